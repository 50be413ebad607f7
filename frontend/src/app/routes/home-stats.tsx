import { HandCoins, Mic2, Users, Wallet } from 'lucide-react'
import type { PlatformStats as Stats } from '@/features/profiles/api/get-stats'
import { abbreviateNumber, formatNaira } from '@/lib/format'
import { Section } from './home'

/** PlatformStats is home's Platform Stats section: the platform's counts and the money in wallets. */
export default function PlatformStats({ stats }: { stats: Stats | undefined }) {
  return (
    <Section title="Platform Stats">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4" data-testid="platform-stats">
        {[
          { icon: Users, label: 'Fans', value: abbreviateNumber(stats?.fans ?? 0) },
          { icon: Mic2, label: 'Artists', value: abbreviateNumber(stats?.artists ?? 0) },
          { icon: HandCoins, label: 'Sponsors', value: abbreviateNumber(stats?.sponsors ?? 0) },
          { icon: Wallet, label: 'In wallets', value: formatNaira(stats?.walletTotal ?? 0) },
        ].map(({ icon: Icon, label, value }) => (
          <div key={label} className="rounded-xl border border-border bg-card p-4">
            <Icon className="size-5 text-primary" />
            <p className="mt-2 text-2xl font-bold">{value}</p>
            <p className="text-sm text-muted-foreground">{label}</p>
          </div>
        ))}
      </div>
    </Section>
  )
}
