import { useState } from 'react'
import { useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import { Button } from '@/components/ui/button'
import { formatNaira } from '@/lib/format'
import { cashoutsQuery, cashoutTotalsQuery, completeCashout, rejectCashout, type CashoutRow } from '../api/money'
import { useAdminAction } from '../api/rpc'
import { formatDate, formatDateTime } from '../lib/dates'
import { readParams, withParams } from '../lib/filters'
import { flattenPages } from '../lib/keyset'
import { ActionDialog } from './action-dialog'
import { AdminTable, LoadMore, type Column } from './admin-table'
import { FilterBar, SelectField, Stat, StatusBadge } from './fields'

const statuses = [
  { value: 'pending', label: 'Pending (oldest first)' },
  { value: 'completed', label: 'Completed' },
  { value: 'rejected', label: 'Rejected' },
  { value: 'all', label: 'All' },
]

/** CashoutsSection is the cash-out queue with per-day totals. */
export function CashoutsSection() {
  const [params, setParams] = useSearchParams()
  const status = readParams(params, ['status']).status || 'pending'
  const list = useInfiniteQuery(cashoutsQuery(status === 'all' ? '' : status))
  const totals = useQuery(cashoutTotalsQuery())
  const rows = flattenPages(list.data?.pages, (c) => c.id)
  const [acting, setActing] = useState<{ row: CashoutRow; to: 'complete' | 'reject' } | null>(null)
  const complete = useAdminAction(completeCashout, 'Cash-out completed')
  const reject = useAdminAction(rejectCashout, 'Cash-out rejected')

  const columns: Column<CashoutRow>[] = [
    { header: 'Requested', priority: 3, width: 150, cell: (c) => <span className="whitespace-nowrap">{formatDateTime(c.created_at)}</span> },
    {
      header: 'Artist',
      priority: 1,
      width: 180,
      cell: (c) => (
        <div>
          <p className="font-medium">{c.user_name}</p>
          <p className="text-xs text-muted-foreground">{c.email}</p>
        </div>
      ),
    },
    { header: 'Amount', priority: 2, width: 100, cell: (c) => <span className="font-semibold">{formatNaira(Number(c.amount))}</span>, className: 'text-right' },
    {
      header: 'Bank',
      priority: 4,
      width: 170,
      cell: (c) => (
        <div className="text-xs">
          <p>{c.bank_name ?? '—'}</p>
          <p className="text-muted-foreground">
            {c.account_number} {c.account_name}
          </p>
        </div>
      ),
    },
    { header: 'Wallet now', priority: 6, width: 110, cell: (c) => formatNaira(Number(c.wallet_balance ?? 0)), className: 'text-right' },
    {
      header: 'Status',
      priority: 5,
      width: 130,
      cell: (c) => (
        <div>
          <StatusBadge status={c.status} />
          {c.reason && <p className="mt-1 max-w-xs text-xs text-muted-foreground">{c.reason}</p>}
          {c.processed_by_name && <p className="mt-1 text-xs text-muted-foreground">by {c.processed_by_name}</p>}
        </div>
      ),
    },
    {
      header: 'Actions',
      action: true,
      width: 180,
      cell: (c) =>
        c.status === 'pending' ? (
          <div className="flex flex-wrap gap-1">
            <Button size="sm" onClick={() => setActing({ row: c, to: 'complete' })}>
              Complete
            </Button>
            <Button size="sm" variant="outline" onClick={() => setActing({ row: c, to: 'reject' })}>
              Reject
            </Button>
          </div>
        ) : null,
    },
  ]
  const t = totals.data
  return (
    <div className="grid gap-6">
      <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
        <Stat testId="cashouts-pending" label="Pending" value={t ? `${t.pending.count}` : '—'} hint={t ? formatNaira(Number(t.pending.amount)) : undefined} />
        <Stat label="Oldest pending" value={t?.pending.oldest ? formatDate(t.pending.oldest) : '—'} />
        <Stat label="Paid out (14 days)" value={t ? formatNaira(t.days.reduce((s, d) => s + Number(d.completed_amount), 0)) : '—'} />
        <Stat label="Rejected (14 days)" value={t ? formatNaira(t.days.reduce((s, d) => s + Number(d.rejected_amount), 0)) : '—'} />
      </div>
      <div>
        <FilterBar>
          <SelectField id="cashout-status" label="Show" value={status} onChange={(s) => setParams(withParams(params, { status: s === 'pending' ? '' : s }))} options={statuses} />
        </FilterBar>
        <AdminTable testId="admin-cashouts" columns={columns} rows={rows} rowKey={(c) => c.id} loading={list.isLoading} error={list.error} empty="No cash-out requests" />
        <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
      </div>
      <section>
        <h2 className="mb-2 text-lg font-semibold">Totals per day</h2>
        <AdminTable
          columns={[
            { header: 'Day', width: 110, cell: (d) => formatDate(d.day) },
            { header: 'Requested', width: 150, cell: (d) => `${d.requested_count} · ${formatNaira(Number(d.requested_amount))}`, className: 'text-right' },
            { header: 'Completed', width: 150, cell: (d) => `${d.completed_count} · ${formatNaira(Number(d.completed_amount))}`, className: 'text-right' },
            { header: 'Rejected', width: 150, cell: (d) => `${d.rejected_count} · ${formatNaira(Number(d.rejected_amount))}`, className: 'text-right' },
          ]}
          rows={t?.days ?? []}
          rowKey={(d) => d.day}
          loading={totals.isLoading}
          error={totals.error}
          empty="No days"
        />
      </section>
      {acting && (
        <ActionDialog
          open
          onOpenChange={(o) => !o && setActing(null)}
          title={`${acting.to === 'complete' ? 'Complete' : 'Reject'} ${formatNaira(Number(acting.row.amount))} for ${acting.row.user_name}?`}
          description={
            acting.to === 'complete'
              ? `Confirm the transfer to ${acting.row.bank_name ?? 'the bank'} ${acting.row.account_number ?? ''} was made. The held amount leaves the platform and the artist is notified.`
              : 'The held amount goes back to the artist’s wallet and they are told why.'
          }
          confirmLabel={acting.to === 'complete' ? 'Mark as paid' : 'Reject'}
          destructive={acting.to === 'reject'}
          reason={acting.to === 'complete' ? 'none' : 'required'}
          pending={complete.isPending || reject.isPending}
          onConfirm={(reason) => (acting.to === 'complete' ? complete.mutateAsync({ id: acting.row.id }) : reject.mutateAsync({ id: acting.row.id, reason }))}
        />
      )}
    </div>
  )
}
