import { useState } from 'react'
import { Download } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Skeleton } from '@/components/ui/skeleton'
import { useSeen } from '@/hooks/use-seen'
import { downloadCsv } from '@/lib/csv'
import { formatNaira } from '@/lib/format'
import { fetchLedger, LEDGER_KINDS, useLedger, type LedgerFilter } from '../api/wallet'
import { balanceAfter, ledgerCsv, signedAmount } from '../lib/export'

/**
 * Ledger lists the wallet's movements, paginated, optionally filterable by
 * kind and date, with CSV export. It reads them once it comes into view:
 * on the artist's dashboard it sits below the first screen.
 */
export function Ledger({ userId, filters = false, pageSize = 10 }: { userId: string; filters?: boolean; pageSize?: number }) {
  const [f, setF] = useState<LedgerFilter>({})
  const [page, setPage] = useState(0)
  const [ref, seen] = useSeen<HTMLDivElement>()
  // Not read yet (out of view) is pending too: it looks like loading, never like an empty ledger.
  const { data, isPending: isLoading, isError } = useLedger(userId, f, page, pageSize, seen)
  const pages = Math.max(1, Math.ceil((data?.count ?? 0) / pageSize))
  const change = (next: LedgerFilter) => {
    setF(next)
    setPage(0)
  }
  const exportCsv = async () => {
    try {
      const all = await fetchLedger(f, 0, 5000)
      downloadCsv(`backline-transactions-${new Date().toISOString().slice(0, 10)}.csv`, ledgerCsv(all.rows, userId))
    } catch {
      toast.error('Could not export the transactions')
    }
  }
  return (
    <div ref={ref} className="grid grid-cols-1 gap-3">
      <div className="flex flex-wrap items-end gap-2">
        {filters && (
          <>
            <label className="grid grid-cols-1 gap-1 text-xs text-muted-foreground">
              Type
              <select
                aria-label="Filter by type"
                className="h-9 rounded-md border border-border bg-background px-2 text-sm text-foreground"
                value={f.kind ?? ''}
                onChange={(e) => change({ ...f, kind: e.target.value || undefined })}
              >
                <option value="">All types</option>
                {Object.entries(LEDGER_KINDS).map(([k, label]) => (
                  <option key={k} value={k}>
                    {label}
                  </option>
                ))}
              </select>
            </label>
            <label className="grid grid-cols-1 gap-1 text-xs text-muted-foreground">
              From
              <Input type="date" aria-label="From date" className="h-9 w-40" value={f.from ?? ''} onChange={(e) => change({ ...f, from: e.target.value || undefined })} />
            </label>
            <label className="grid grid-cols-1 gap-1 text-xs text-muted-foreground">
              To
              <Input type="date" aria-label="To date" className="h-9 w-40" value={f.to ?? ''} onChange={(e) => change({ ...f, to: e.target.value || undefined })} />
            </label>
          </>
        )}
        <Button variant="outline" size="sm" className="ml-auto" onClick={() => void exportCsv()}>
          <Download /> CSV
        </Button>
      </div>
      <div className="overflow-x-auto rounded-xl border border-border">
        <table className="w-full min-w-[36rem] text-left text-sm" data-testid="ledger">
          <thead className="bg-card text-muted-foreground">
            <tr>
              <th className="p-3">Date</th>
              <th className="p-3">Type</th>
              <th className="p-3">Reference</th>
              <th className="p-3 text-right">Amount</th>
              <th className="p-3 text-right">Balance</th>
            </tr>
          </thead>
          <tbody>
            {(data?.rows ?? []).map((t) => {
              const amt = signedAmount(t, userId)
              return (
                <tr key={t.id} className="border-t border-border">
                  <td className="whitespace-nowrap p-3">{new Date(t.created_at).toLocaleString('en-NG')}</td>
                  <td className="p-3">{LEDGER_KINDS[t.kind] ?? t.kind}</td>
                  <td className="max-w-48 truncate p-3 font-mono text-xs">{t.reference}</td>
                  <td className={`p-3 text-right tabular-nums ${amt < 0 ? 'text-red-400' : 'text-green-400'}`}>
                    {amt < 0 ? '-' : '+'}
                    {formatNaira(Math.abs(amt))}
                  </td>
                  <td className="p-3 text-right tabular-nums">{formatNaira(balanceAfter(t, userId))}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
        {isLoading && <Skeleton className="m-3 h-24" />}
        {!isLoading && (isError || (data?.rows ?? []).length === 0) && <p className="p-8 text-center text-muted-foreground">No transactions yet</p>}
      </div>
      <div className="flex items-center justify-center gap-2">
        <Button variant="outline" size="sm" disabled={page === 0} onClick={() => setPage(page - 1)}>
          Previous
        </Button>
        <span className="text-sm text-muted-foreground">
          Page {page + 1} of {pages}
        </span>
        <Button variant="outline" size="sm" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
          Next
        </Button>
      </div>
    </div>
  )
}
