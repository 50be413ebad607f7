import { useState } from 'react'
import { useInfiniteQuery } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import { Button } from '@/components/ui/button'
import { formatNaira } from '@/lib/format'
import { useAdminAction } from '../api/rpc'
import { endSponsorship, invitesQuery, sponsoredTracksQuery, type InviteRow, type SponsoredTrackRow } from '../api/sponsorships'
import { formatDate, formatDateTime } from '../lib/dates'
import { readParams, withParams } from '../lib/filters'
import { flattenPages } from '../lib/keyset'
import { ActionDialog } from './action-dialog'
import { AdminTable, LoadMore, type Column } from './admin-table'
import { FilterBar, SelectField, StatusBadge } from './fields'

/** SponsorshipsSection lists sponsored tracks (with spend and balance) and every invite. */
export function SponsorshipsSection() {
  const [params, setParams] = useSearchParams()
  const status = readParams(params, ['invites']).invites
  const tracks = useInfiniteQuery(sponsoredTracksQuery())
  const invites = useInfiniteQuery(invitesQuery(status))
  const [ending, setEnding] = useState<SponsoredTrackRow | null>(null)
  const end = useAdminAction(endSponsorship, 'Sponsorship ended')

  const trackColumns: Column<SponsoredTrackRow>[] = [
    {
      header: 'Track',
      width: 180,
      cell: (t) => (
        <div>
          <p className="font-medium">{t.title}</p>
          <p className="text-xs text-muted-foreground">{t.artist_name}</p>
        </div>
      ),
    },
    { header: 'Sponsor', width: 140, cell: (t) => t.sponsor_name },
    { header: 'Spent', width: 170, cell: (t) => `${formatNaira(Number(t.paid_amount))} · ${t.paid_streams} streams`, className: 'text-right' },
    { header: 'Sponsor balance', width: 130, cell: (t) => <span className={Number(t.sponsor_balance) < 100 ? 'text-amber-400' : undefined}>{formatNaira(Number(t.sponsor_balance ?? 0))}</span>, className: 'text-right' },
    { header: 'Last paid', priority: 7, width: 150, cell: (t) => formatDateTime(t.last_paid_at) },
    { header: 'Track status', priority: 6, width: 110, cell: (t) => <StatusBadge status={t.status} /> },
    {
      header: 'Actions',
      action: true,
      width: 80,
      cell: (t) => (
        <Button size="sm" variant="outline" onClick={() => setEnding(t)}>
          End
        </Button>
      ),
    },
  ]
  const inviteColumns: Column<InviteRow>[] = [
    { header: 'Created', priority: 5, width: 110, cell: (i) => formatDate(i.created_at) },
    { header: 'Sponsor → artist', priority: 1, width: 200, cell: (i) => `${i.sponsor_name} → ${i.artist_name}` },
    { header: 'Track', priority: 2, width: 150, cell: (i) => i.track_title ?? 'Any track' },
    { header: 'By', priority: 6, width: 80, cell: (i) => <span className="capitalize">{i.initiated_by}</span> },
    { header: 'Status', priority: 3, width: 100, cell: (i) => <StatusBadge status={i.status} /> },
    { header: 'Spent', priority: 4, width: 100, cell: (i) => formatNaira(Number(i.spend_amount)), className: 'text-right' },
    { header: 'Sponsor balance', priority: 7, width: 130, cell: (i) => formatNaira(Number(i.sponsor_balance ?? 0)), className: 'text-right' },
  ]
  return (
    <div className="grid gap-8">
      <section>
        <h2 className="mb-2 text-lg font-semibold">Sponsored tracks</h2>
        <AdminTable testId="admin-sponsored" columns={trackColumns} rows={flattenPages(tracks.data?.pages, (t) => t.track_id)} rowKey={(t) => t.track_id} loading={tracks.isLoading} error={tracks.error} empty="No sponsored tracks" />
        <LoadMore hasNextPage={tracks.hasNextPage} isFetchingNextPage={tracks.isFetchingNextPage} fetchNextPage={tracks.fetchNextPage} />
      </section>
      <section>
        <h2 className="mb-2 text-lg font-semibold">Invites</h2>
        <FilterBar>
          <SelectField
            id="invite-status"
            label="Status"
            value={status}
            onChange={(s) => setParams(withParams(params, { invites: s }))}
            options={[
              { value: '', label: 'Any' },
              { value: 'pending', label: 'Pending' },
              { value: 'accepted', label: 'Accepted' },
              { value: 'rejected', label: 'Rejected' },
              { value: 'ended', label: 'Ended' },
            ]}
          />
        </FilterBar>
        <AdminTable columns={inviteColumns} rows={flattenPages(invites.data?.pages, (i) => i.id)} rowKey={(i) => i.id} loading={invites.isLoading} error={invites.error} empty="No invites" />
        <LoadMore hasNextPage={invites.hasNextPage} isFetchingNextPage={invites.isFetchingNextPage} fetchNextPage={invites.fetchNextPage} />
      </section>
      {ending && (
        <ActionDialog
          open
          onOpenChange={(o) => !o && setEnding(null)}
          title={`End ${ending.sponsor_name}'s sponsorship of "${ending.title}"?`}
          description="The track becomes unsponsored and no further stream is paid. Both sides are told why."
          confirmLabel="End sponsorship"
          destructive
          pending={end.isPending}
          onConfirm={(reason) => end.mutateAsync({ trackId: ending.track_id, reason })}
        />
      )}
    </div>
  )
}
