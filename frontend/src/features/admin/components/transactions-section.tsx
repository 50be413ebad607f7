import { useState } from 'react'
import { useInfiniteQuery, useMutation, useQuery } from '@tanstack/react-query'
import { CheckCircle2, Download, TriangleAlert } from 'lucide-react'
import { Link, useSearchParams } from 'react-router'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { formatNaira } from '@/lib/format'
import { exportLedger, ledgerQuery, ledgerSummaryQuery, recountLedger, type LedgerFilters, type LedgerRow } from '../api/money'
import { errorMessage } from '../api/rpc'
import { toCsv, type CsvColumn } from '../lib/csv'
import { formatDateTime } from '../lib/dates'
import { dayEnd, dayStart, isUuid, readParams, withParams } from '../lib/filters'
import { flattenPages } from '../lib/keyset'
import { checkLedger, recountProblems } from '../lib/ledger'
import { adminPath } from '../lib/sections'
import { AdminTable, LoadMore, type Column } from './admin-table'
import { DateField, FilterBar, SearchField, SelectField } from './fields'

const kinds = ['', 'sponsored_stream', 'topup', 'cashout_hold', 'cashout_paid', 'cashout_release', 'transfer', 'adjustment'].map((k) => ({
  value: k,
  label: k ? k.replace(/_/g, ' ') : 'Any kind',
}))

const party = (id: string, name: string | null) =>
  isUuid(id) && name && !name.includes(':') ? (
    <Link className="hover:underline" to={adminPath('users', { user: id })}>
      {name}
    </Link>
  ) : (
    <span className="text-muted-foreground">{name ?? id}</span>
  )

const columns: Column<LedgerRow>[] = [
  { header: 'When', priority: 3, width: 150, cell: (t) => <span className="whitespace-nowrap">{formatDateTime(t.created_at)}</span> },
  { header: 'Kind', priority: 1, width: 130, cell: (t) => <span className="capitalize">{t.kind.replace(/_/g, ' ')}</span> },
  { header: 'From', priority: 4, width: 150, cell: (t) => party(t.from_wallet, t.from_name) },
  { header: 'To', priority: 5, width: 150, cell: (t) => party(t.to_wallet, t.to_name) },
  { header: 'Amount', priority: 2, width: 110, cell: (t) => <span className="font-semibold">{formatNaira(Number(t.amount))}</span>, className: 'text-right' },
  { header: 'Reference', priority: 6, width: 200, cell: (t) => <span className="font-mono text-xs">{t.reference}</span> },
]

const csvColumns: CsvColumn<LedgerRow>[] = [
  { header: 'created_at', value: (t) => t.created_at },
  { header: 'id', value: (t) => t.id },
  { header: 'reference', value: (t) => t.reference },
  { header: 'kind', value: (t) => t.kind },
  { header: 'from_wallet', value: (t) => t.from_wallet },
  { header: 'from_name', value: (t) => t.from_name },
  { header: 'to_wallet', value: (t) => t.to_wallet },
  { header: 'to_name', value: (t) => t.to_name },
  { header: 'amount', value: (t) => Number(t.amount) },
  { header: 'from_balance_after', value: (t) => Number(t.from_balance_after) },
  { header: 'to_balance_after', value: (t) => Number(t.to_balance_after) },
]

/** download saves text as a file through a temporary link. */
function download(name: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }))
  const a = Object.assign(document.createElement('a'), { href: url, download: name })
  document.body.append(a)
  a.click()
  a.remove()
  URL.revokeObjectURL(url)
}

/** LedgerCheckBanner shows the ledger-wide invariant, checked when the page loads. */
function LedgerCheckBanner() {
  const summary = useQuery(ledgerSummaryQuery())
  if (summary.isLoading) return <p className="rounded-xl border border-border p-4 text-sm text-muted-foreground">Checking the ledger…</p>
  if (summary.error || !summary.data) return <p className="rounded-xl border border-red-500/50 p-4 text-sm">Ledger check failed: {errorMessage(summary.error)}</p>
  const c = checkLedger(summary.data)
  return (
    <div data-testid="ledger-check" className={`rounded-xl border p-4 text-sm ${c.ok ? 'border-green-600/50' : 'border-red-500/60 bg-red-500/10'}`}>
      <p className="flex items-center gap-2 font-semibold">
        {c.ok ? <CheckCircle2 className="size-4 text-green-500" /> : <TriangleAlert className="size-4 text-red-500" />}
        {c.ok ? 'Ledger balanced' : 'Ledger out of balance'}
      </p>
      <p className="mt-1 text-muted-foreground">
        Users hold {formatNaira(c.usersHold)}; the ledger's net into user wallets is {formatNaira(c.ledgerNet)}; all wallets sum to{' '}
        {formatNaira(Number(summary.data.wallets.total))} over {summary.data.ledger.count} movements. Checked {formatDateTime(summary.data.checked_at)}.
      </p>
      {c.problems.map((p) => (
        <p key={p} className="mt-1 text-red-400">
          {p}
        </p>
      ))}
      <FullRecount />
    </div>
  )
}

/** FullRecount offers the full recount (the on-load check reads running totals) and shows what it found. */
function FullRecount() {
  const recount = useMutation({ mutationFn: recountLedger })
  const problems = recount.data ? recountProblems(recount.data) : []
  return (
    <div className="mt-2 flex flex-wrap items-center gap-2" data-testid="ledger-recount">
      <Button size="sm" variant="outline" disabled={recount.isPending} onClick={() => recount.mutate()}>
        {recount.isPending ? 'Counting…' : 'Recount the whole ledger'}
      </Button>
      {recount.error && <span className="text-red-400">Recount failed: {errorMessage(recount.error)}</span>}
      {recount.data && problems.length === 0 && <span>Full recount: ledger balanced over {recount.data.ledger.count} movements</span>}
      {problems.map((p) => (
        <span key={p} className="text-red-400">
          {p}
        </span>
      ))}
    </div>
  )
}

/** TransactionsSection is the whole ledger by keyset, filterable and exportable. */
export function TransactionsSection() {
  const [params, setParams] = useSearchParams()
  const f = readParams(params, ['kind', 'user', 'ref', 'from', 'to'])
  const filters: LedgerFilters = { kind: f.kind || undefined, userId: isUuid(f.user) ? f.user : undefined, reference: f.ref || undefined, from: dayStart(f.from), to: dayEnd(f.to) }
  const list = useInfiniteQuery(ledgerQuery(filters))
  const rows = flattenPages(list.data?.pages, (t) => t.id)
  const set = (patch: Record<string, string>) => setParams(withParams(params, patch))
  const [exporting, setExporting] = useState<number | null>(null)
  const onExport = async () => {
    setExporting(0)
    try {
      const { rows: all, truncated } = await exportLedger(filters, setExporting)
      download(`backline-ledger-${new Date().toISOString().slice(0, 10)}.csv`, toCsv(csvColumns, all))
      toast.success(`Exported ${all.length} movements${truncated ? ' (the first ones only: narrow the filters for the rest)' : ''}`)
    } catch (e) {
      toast.error(errorMessage(e))
    } finally {
      setExporting(null)
    }
  }
  return (
    <div className="grid gap-4">
      <LedgerCheckBanner />
      <FilterBar className="mb-0">
        <SelectField id="ledger-kind" label="Kind" value={f.kind} onChange={(kind) => set({ kind })} options={kinds} />
        <SearchField id="ledger-user" label="User id" value={f.user} placeholder="User id" onSearch={(user) => set({ user })} />
        <SearchField id="ledger-ref" label="Reference" value={f.ref} placeholder="Exact reference" onSearch={(ref) => set({ ref })} />
        <DateField id="ledger-from" label="From" value={f.from} onChange={(from) => set({ from })} />
        <DateField id="ledger-to" label="To" value={f.to} onChange={(to) => set({ to })} />
        <Button variant="outline" onClick={() => void onExport()} disabled={exporting !== null}>
          <Download /> {exporting === null ? 'Export CSV' : `Exporting… ${exporting}`}
        </Button>
      </FilterBar>
      <AdminTable testId="admin-ledger" columns={columns} rows={rows} rowKey={(t) => t.id} loading={list.isLoading} error={list.error} empty="No movements" />
      <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
    </div>
  )
}
