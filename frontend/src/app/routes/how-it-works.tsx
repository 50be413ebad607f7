import { Link } from 'react-router'
import { HandCoins, Headphones, Mic2, Music2 } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Section } from './home'

/** HowItWorks is the home page's last section, loaded after its first paint. */
export default function HowItWorks({ signedOut }: { signedOut: boolean }) {
  return (
    <Section title="How It Works">
      <div className="grid grid-cols-1 gap-4 md:grid-cols-3">
        {[
          { icon: Mic2, title: 'Artists upload', text: 'Publish your tracks and build a following. Your artist wallet is credited ₦50 for every complete fan stream of a sponsored track.' },
          { icon: HandCoins, title: 'Sponsors back artists', text: 'Fund your wallet and sponsor artists and tracks you believe in. Sponsors pay ₦100 per complete listen in campaign budgets.' },
          { icon: Headphones, title: 'Fans listen', text: 'Listen for at least 30 seconds and your stream counts. Cash-out opens for artists once the threshold of ₦1,000 is reached.' },
        ].map(({ icon: Icon, title, text }) => (
          <div key={title} className="rounded-xl border border-border bg-card p-5">
            <Icon className="size-6 text-primary" />
            <p className="mt-3 font-semibold">{title}</p>
            <p className="mt-1 text-sm text-muted-foreground">{text}</p>
          </div>
        ))}
      </div>
      {/* Joining is for visitors. */}
      {signedOut && (
        <div className="mt-8 flex justify-center">
          <Button asChild size="lg">
            <Link to="/register">
              <Music2 /> Join Backline
            </Link>
          </Button>
        </div>
      )}
    </Section>
  )
}
