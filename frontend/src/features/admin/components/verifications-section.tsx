import { useState } from 'react'
import { useInfiniteQuery } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { formatNaira } from '@/lib/format'
import { useAdminAction } from '../api/rpc'
import { kycDocumentUrl, kycQuery, reviewKyc, verificationsQuery, type KycRow, type VerificationRow } from '../api/verifications'
import { defaultKycExpiry, formatDate, formatDateTime } from '../lib/dates'
import { dayEnd, readParams, withParams } from '../lib/filters'
import { flattenPages } from '../lib/keyset'
import { ActionDialog } from './action-dialog'
import { AdminTable, LoadMore, type Column } from './admin-table'
import { FilterBar, SelectField, StatusBadge } from './fields'

const documentNames: Record<string, string> = {
  national_id: 'National ID',
  nin: 'NIN slip',
  passport: 'Passport',
  drivers_license: "Driver's licence",
  voters_card: "Voter's card",
}

/** DocumentLink opens a submission's document through a signed link (the kyc bucket is private). */
function DocumentLink({ path }: { path: string }) {
  const open = async () => {
    // Opened before the await, so the browser treats it as the click's window.
    const w = window.open('', '_blank')
    try {
      const url = await kycDocumentUrl(path)
      if (w) w.location.href = url
      else window.location.assign(url)
    } catch (e) {
      w?.close()
      toast.error('Could not open the document', { description: e instanceof Error ? e.message : undefined })
    }
  }
  return (
    <button type="button" className="text-primary underline" onClick={() => void open()}>
      View document ({path.split('/').pop()})
    </button>
  )
}

/** VerificationsSection reviews KYC submissions and lists paid verifications. */
export function VerificationsSection() {
  const [params, setParams] = useSearchParams()
  const status = readParams(params, ['kyc']).kyc || 'pending'
  const kyc = useInfiniteQuery(kycQuery(status === 'all' ? '' : status))
  const paid = useInfiniteQuery(verificationsQuery())
  const [acting, setActing] = useState<{ row: KycRow; approve: boolean } | null>(null)
  const [expiry, setExpiry] = useState(defaultKycExpiry())
  const review = useAdminAction(reviewKyc, (v) => (v.approve ? 'KYC approved' : 'KYC rejected'))

  const kycColumns: Column<KycRow>[] = [
    { header: 'Submitted', priority: 4, width: 150, cell: (k) => formatDateTime(k.created_at) },
    {
      header: 'Artist',
      priority: 1,
      width: 160,
      cell: (k) => (
        <div>
          <p className="font-medium">{k.artist_name}</p>
          <p className="text-xs text-muted-foreground">{k.full_name}</p>
        </div>
      ),
    },
    {
      header: 'Document',
      priority: 3,
      width: 170,
      cell: (k) => (
        <div className="text-xs">
          <p>{documentNames[k.document_type] ?? k.document_type}</p>
          <p className="font-mono text-muted-foreground">{k.document_number}</p>
          {k.document_path && <DocumentLink path={k.document_path} />}
        </div>
      ),
    },
    {
      header: 'Status',
      priority: 2,
      width: 130,
      cell: (k) => (
        <div>
          <StatusBadge status={k.status} />
          {k.expires_at && <p className="mt-1 text-xs text-muted-foreground">until {formatDate(k.expires_at)}</p>}
          {k.reason && <p className="mt-1 max-w-xs text-xs text-muted-foreground">{k.reason}</p>}
        </div>
      ),
    },
    {
      header: 'Actions',
      action: true,
      width: 180,
      cell: (k) =>
        k.status === 'pending' ? (
          <div className="flex flex-wrap gap-1">
            <Button size="sm" onClick={() => (setExpiry(defaultKycExpiry()), setActing({ row: k, approve: true }))}>
              Approve
            </Button>
            <Button size="sm" variant="outline" onClick={() => setActing({ row: k, approve: false })}>
              Reject
            </Button>
          </div>
        ) : null,
    },
  ]
  const paidColumns: Column<VerificationRow>[] = [
    { header: 'Granted', priority: 3, width: 150, cell: (v) => formatDateTime(v.granted_at) },
    { header: 'User', priority: 1, width: 180, cell: (v) => `${v.user_name} (${v.role})` },
    { header: 'Payment', priority: 5, width: 200, cell: (v) => <span className="font-mono text-xs">{v.tx_ref ?? v.source}</span> },
    { header: 'Paid', priority: 2, width: 100, cell: (v) => (v.total ? formatNaira(Number(v.total)) : '—'), className: 'text-right' },
    { header: 'Expires', priority: 4, width: 110, cell: (v) => <span className={v.active ? undefined : 'text-muted-foreground line-through'}>{formatDate(v.expires_at)}</span> },
  ]
  const expiryEnd = dayEnd(expiry)
  return (
    <div className="grid gap-8">
      <section>
        <h2 className="mb-2 text-lg font-semibold">KYC submissions</h2>
        <FilterBar>
          <SelectField
            id="kyc-status"
            label="Show"
            value={status}
            onChange={(s) => setParams(withParams(params, { kyc: s === 'pending' ? '' : s }))}
            options={[
              { value: 'pending', label: 'Pending (oldest first)' },
              { value: 'approved', label: 'Approved' },
              { value: 'rejected', label: 'Rejected' },
              { value: 'all', label: 'All' },
            ]}
          />
        </FilterBar>
        <AdminTable testId="admin-kyc" columns={kycColumns} rows={flattenPages(kyc.data?.pages, (k) => k.id)} rowKey={(k) => k.id} loading={kyc.isLoading} error={kyc.error} empty="No KYC submissions" />
        <LoadMore hasNextPage={kyc.hasNextPage} isFetchingNextPage={kyc.isFetchingNextPage} fetchNextPage={kyc.fetchNextPage} />
      </section>
      <section>
        <h2 className="mb-2 text-lg font-semibold">Paid verifications</h2>
        <AdminTable columns={paidColumns} rows={flattenPages(paid.data?.pages, (v) => v.id)} rowKey={(v) => v.id} loading={paid.isLoading} error={paid.error} empty="No paid verifications" />
        <LoadMore hasNextPage={paid.hasNextPage} isFetchingNextPage={paid.isFetchingNextPage} fetchNextPage={paid.fetchNextPage} />
      </section>
      {acting && (
        <ActionDialog
          open
          onOpenChange={(o) => !o && setActing(null)}
          title={`${acting.approve ? 'Approve' : 'Reject'} ${acting.row.artist_name}'s KYC?`}
          description={acting.approve ? 'The artist shows as KYC-verified until the expiry date.' : 'The artist is told why and may submit again.'}
          confirmLabel={acting.approve ? 'Approve' : 'Reject'}
          destructive={!acting.approve}
          reason={acting.approve ? 'optional' : 'required'}
          canConfirm={!acting.approve || (!!expiryEnd && new Date(expiryEnd) > new Date())}
          pending={review.isPending}
          onConfirm={(reason) => review.mutateAsync({ id: acting.row.id, approve: acting.approve, expiresAt: acting.approve ? expiryEnd : undefined, reason })}
        >
          {acting.approve && (
            <div className="grid gap-1">
              <Label htmlFor="kyc-expiry">Valid until (end of day)</Label>
              <Input id="kyc-expiry" type="date" value={expiry} onChange={(e) => setExpiry(e.target.value)} />
            </div>
          )}
        </ActionDialog>
      )}
    </div>
  )
}
