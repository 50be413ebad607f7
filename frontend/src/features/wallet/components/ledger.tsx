import { useMemo, useState } from 'react'
import { Download } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { DataTable, type DataColumn } from '@/components/ui/data-table'
import { useSeen } from '@/hooks/use-seen'
import { downloadCsv } from '@/lib/csv'
import { formatNaira } from '@/lib/format'
import { fetchLedger, LEDGER_KINDS, useLedger, type LedgerFilter, type LedgerRow } from '../api/wallet'
import { balanceAfter, ledgerCsv, signedAmount } from '../lib/export'

/** ledgerColumns are the ledger's columns as the wallet's owner reads them: amounts signed from their side. */
function ledgerColumns(userId: string): DataColumn<LedgerRow>[] {
  return [
    { header: 'Date', priority: 3, width: 170, cell: (t) => <span className="whitespace-nowrap">{new Date(t.created_at).toLocaleString('en-NG')}</span> },
    { header: 'Type', priority: 1, width: 130, cell: (t) => LEDGER_KINDS[t.kind] ?? t.kind },
    { header: 'Reference', priority: 5, width: 190, cell: (t) => <span className="font-mono text-xs">{t.reference}</span> },
    {
      header: 'Amount',
      priority: 2,
      width: 110,
      className: 'text-right tabular-nums',
      cell: (t) => {
        const amt = signedAmount(t, userId)
        return (
          <span className={amt < 0 ? 'text-red-400' : 'text-green-400'}>
            {amt < 0 ? '-' : '+'}
            {formatNaira(Math.abs(amt))}
          </span>
        )
      },
    },
    { header: 'Balance', priority: 4, width: 110, className: 'text-right tabular-nums', cell: (t) => formatNaira(balanceAfter(t, userId)) },
  ]
}

/**
 * Ledger lists the wallet's movements, paginated, optionally filterable by
 * kind and date, with CSV export. It reads them once it comes into view:
 * on the artist's dashboard it sits below the first screen.
 */
export function Ledger({ userId, filters = false, pageSize = 10 }: { userId: string; filters?: boolean; pageSize?: number }) {
  const columns = useMemo(() => ledgerColumns(userId), [userId])
  const [f, setF] = useState<LedgerFilter>({})
  const [page, setPage] = useState(0)
  const [ref, seen] = useSeen<HTMLDivElement>()
  // Not read yet (out of view) is pending too: it looks like loading, never like an empty ledger.
  const { data, isPending: isLoading } = useLedger(userId, f, page, pageSize, seen)
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
              <Input type="date" aria-label="From date" className="h-9 w-40 max-w-full" value={f.from ?? ''} onChange={(e) => change({ ...f, from: e.target.value || undefined })} />
            </label>
            <label className="grid grid-cols-1 gap-1 text-xs text-muted-foreground">
              To
              <Input type="date" aria-label="To date" className="h-9 w-40 max-w-full" value={f.to ?? ''} onChange={(e) => change({ ...f, to: e.target.value || undefined })} />
            </label>
          </>
        )}
        <Button variant="outline" size="sm" className="ml-auto" onClick={() => void exportCsv()}>
          <Download /> CSV
        </Button>
      </div>
      <DataTable
        testId="ledger"
        columns={columns}
        rows={data?.rows ?? []}
        rowKey={(t) => t.id}
        loading={isLoading}
        // A failed read reads as an empty ledger (spec: data-fetching failures are not shown).
        empty="No transactions yet"
      />
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
