import { useSearchParams } from 'react-router'
import { Printer } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { useOwnProfile } from '@/hooks/use-own-profile'
import { useAuthStore } from '@/lib/auth'
import { useStatement } from '@/features/wallet/api/wallet'
import { StatementTable } from '@/features/wallet/components/statement'
import { statementRange, type StatementPeriod } from '@/features/wallet/lib/statement'

/** StatementPrintPage is the printable earnings statement. */
export default function StatementPrintPage() {
  const [q] = useSearchParams()
  const period = (['day', 'week', 'month'].includes(q.get('period') ?? '') ? q.get('period') : 'month') as StatementPeriod
  const def = statementRange(period, new Date())
  const from = q.get('from') ?? def.from
  const to = q.get('to') ?? def.to
  const userId = useAuthStore((s) => s.user?.id)
  const { data: profile } = useOwnProfile()
  const { data, isLoading } = useStatement(userId, period, from, to)
  return (
    <article className="mx-auto max-w-3xl bg-white p-6 text-black print:p-0">
      <div className="flex items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold">Earnings statement</h1>
          <p className="text-sm">
            {profile?.display_name ?? ''} · {from} to {to} · {period === 'day' ? 'daily' : period === 'week' ? 'weekly' : 'monthly'}
          </p>
          <p className="text-xs text-neutral-600">Backline · amounts in naira (NGN) · paid sponsored streams</p>
        </div>
        <Button className="print:hidden" onClick={() => window.print()}>
          <Printer /> Print
        </Button>
      </div>
      <div className="mt-6">{isLoading ? <Skeleton className="h-40" /> : <StatementTable period={period} rows={data ?? []} />}</div>
    </article>
  )
}
