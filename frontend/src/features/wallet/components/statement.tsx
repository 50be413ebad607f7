import { useState } from 'react'
import { Link } from 'react-router'
import { Download, Printer } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { Tabs, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { downloadCsv } from '@/lib/csv'
import { formatNaira } from '@/lib/format'
import { useStatement } from '../api/wallet'
import { statementCsv } from '../lib/export'
import { DEFAULT_STATEMENT_PERIOD, periodLabel, statementRange, statementTotals, type StatementPeriod, type StatementRow } from '../lib/statement'

/** StatementTable renders statement rows and their total. */
export function StatementTable({ period, rows }: { period: StatementPeriod; rows: StatementRow[] }) {
  const t = statementTotals(rows)
  return (
    <table className="w-full text-left text-sm" data-testid="statement">
      <thead className="text-muted-foreground">
        <tr>
          <th className="p-2">Period</th>
          <th className="p-2 text-right">Paid streams</th>
          <th className="p-2 text-right">Earnings</th>
        </tr>
      </thead>
      <tbody>
        {[...rows].reverse().map((r) => (
          <tr key={r.period_start} className="border-t border-border">
            <td className="p-2">{periodLabel(period, r.period_start)}</td>
            <td className="p-2 text-right tabular-nums">{r.streams}</td>
            <td className="p-2 text-right tabular-nums">{formatNaira(Number(r.amount))}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr className="border-t-2 border-border font-semibold">
          <td className="p-2">Total</td>
          <td className="p-2 text-right tabular-nums" data-testid="statement-total-streams">
            {t.streams}
          </td>
          <td className="p-2 text-right tabular-nums" data-testid="statement-total">
            {formatNaira(t.amount)}
          </td>
        </tr>
      </tfoot>
    </table>
  )
}

/** Statement is the dashboard's earnings statement per day, week or month, with CSV and a printable page. */
export function Statement({ userId }: { userId: string }) {
  const [period, setPeriod] = useState<StatementPeriod>(DEFAULT_STATEMENT_PERIOD)
  const { from, to } = statementRange(period, new Date())
  const { data, isLoading } = useStatement(userId, period, from, to)
  return (
    <div className="grid grid-cols-1 gap-3">
      <div className="flex flex-wrap items-center gap-2">
        <Tabs value={period} onValueChange={(v) => setPeriod(v as StatementPeriod)}>
          <TabsList>
            <TabsTrigger value="day">Daily</TabsTrigger>
            <TabsTrigger value="week">Weekly</TabsTrigger>
            <TabsTrigger value="month">Monthly</TabsTrigger>
          </TabsList>
        </Tabs>
        <div className="ml-auto flex gap-2">
          <Button variant="outline" size="sm" disabled={!data} onClick={() => data && downloadCsv(`backline-earnings-${period}-${from}-${to}.csv`, statementCsv(period, data))}>
            <Download /> CSV
          </Button>
          <Button asChild variant="outline" size="sm">
            <Link to={`/dashboard/artist/statement?period=${period}&from=${from}&to=${to}`}>
              <Printer /> Print
            </Link>
          </Button>
        </div>
      </div>
      <div className="max-h-96 overflow-y-auto rounded-xl border border-border">
        {isLoading ? <Skeleton className="m-3 h-24" /> : <StatementTable period={period} rows={data ?? []} />}
      </div>
    </div>
  )
}
