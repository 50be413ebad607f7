import { Link } from 'react-router'
import { Check, HandCoins, Headphones, Mic2 } from 'lucide-react'
import { Button } from '@/components/ui/button'

const roles = [
  {
    role: 'fan',
    title: 'Fan',
    icon: Headphones,
    benefits: ['Stream the best of Nigerian music', 'Like tracks and build your favourites', 'Your listens pay the artists you love', 'Climb the Top Fans chart'],
  },
  {
    role: 'artist',
    title: 'Artist',
    icon: Mic2,
    benefits: ['Upload tracks and grow your audience', 'Earn ₦50 per sponsored fan stream', 'Accept sponsorships from brands', 'Cash out from ₦1,000'],
  },
  {
    role: 'sponsor',
    title: 'Sponsor',
    icon: HandCoins,
    benefits: ['Back artists and tracks you believe in', 'Pay only for complete listens', 'Pitch artists directly with invitations', 'Track spend and reach in real time'],
  },
] as const

/** RegisterPage is the role chooser. */
export default function RegisterPage() {
  return (
    <div className="mx-auto max-w-5xl py-6">
      <h1 className="text-center text-3xl font-bold">Join Backline</h1>
      <p className="mt-2 text-center text-muted-foreground">Choose how you want to use Backline.</p>
      <div className="mt-8 grid grid-cols-1 gap-4 md:grid-cols-3">
        {roles.map(({ role, title, icon: Icon, benefits }) => (
          <div key={role} className="flex flex-col rounded-2xl border border-border bg-card p-6" data-testid={`role-${role}`}>
            <Icon className="size-8 text-primary" />
            <h2 className="mt-3 text-xl font-semibold">{title}</h2>
            <ul className="my-4 grid grid-cols-1 gap-2 text-sm text-muted-foreground">
              {benefits.map((b) => (
                <li key={b} className="flex gap-2">
                  <Check className="size-4 shrink-0 text-green-400" /> {b}
                </li>
              ))}
            </ul>
            <Button asChild className="mt-auto">
              <Link to={`/register/${role}`}>Sign up as {title}</Link>
            </Button>
          </div>
        ))}
      </div>
      <p className="mt-8 text-center text-sm text-muted-foreground">
        Already have an account?{' '}
        <Link to="/login" className="text-primary hover:underline">
          Login
        </Link>
      </p>
    </div>
  )
}
