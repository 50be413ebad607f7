import { useState } from 'react'
import { useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { abbreviateNumber } from '@/lib/format'
import { useAdminAction } from '../api/rpc'
import { moderateTrack, trackDetailQuery, tracksQuery, type AdminTrackRow } from '../api/tracks'
import { formatDate, formatDateTime } from '../lib/dates'
import { adminVerb } from '../lib/describe'
import { readParams, triState, withParams } from '../lib/filters'
import { flattenPages } from '../lib/keyset'
import { ActionDialog } from './action-dialog'
import { AdminTable, LoadMore, type Column } from './admin-table'
import { DetailPanel, KeyValues, PanelSection } from './detail-panel'
import { FilterBar, SearchField, SelectField, StatusBadge } from './fields'

type Moderation = { track: Pick<AdminTrackRow, 'id' | 'title'>; to: 'hidden' | 'removed' | 'active' } | null

const dialogText = {
  hidden: { title: 'Hide', body: 'The track leaves every public list and cannot be streamed or paid for until it is restored. The artist is told why.', cta: 'Hide track' },
  removed: { title: 'Remove', body: 'The track is taken down; the artist is told why. It can be restored later.', cta: 'Remove track' },
  active: { title: 'Restore', body: 'The track becomes public and streamable again.', cta: 'Restore track' },
} as const

/** TracksSection searches tracks, moderates them and shows one in a panel (?track=<id>). */
export function TracksSection() {
  const [params, setParams] = useSearchParams()
  const f = readParams(params, ['q', 'status', 'sponsored', 'track'])
  const list = useInfiniteQuery(tracksQuery({ q: f.q || undefined, status: f.status || undefined, sponsored: triState(f.sponsored) }))
  const rows = flattenPages(list.data?.pages, (t) => t.id)
  const set = (patch: Record<string, string>) => setParams(withParams(params, patch))
  const [moderation, setModeration] = useState<Moderation>(null)
  const moderate = useAdminAction(moderateTrack, (v) => (v.to === 'active' ? 'Track restored' : v.to === 'hidden' ? 'Track hidden' : 'Track removed'))

  const actions = (t: AdminTrackRow) => (
    <div className="flex flex-wrap gap-1" onClick={(e) => e.stopPropagation()}>
      {t.status === 'active' ? (
        <>
          <Button size="sm" variant="outline" onClick={() => setModeration({ track: t, to: 'hidden' })}>
            Hide
          </Button>
          <Button size="sm" variant="ghost" className="text-red-400" onClick={() => setModeration({ track: t, to: 'removed' })}>
            Remove
          </Button>
        </>
      ) : (
        <Button size="sm" variant="outline" onClick={() => setModeration({ track: t, to: 'active' })}>
          Unhide
        </Button>
      )}
    </div>
  )
  const columns: Column<AdminTrackRow>[] = [
    {
      header: 'Track',
      width: 200,
      cell: (t) => (
        <div>
          <p className="font-medium">{t.title}</p>
          <p className="text-xs text-muted-foreground">
            {t.artist_name}
            {t.sponsor_name ? ` · sponsored by ${t.sponsor_name}` : ''}
          </p>
        </div>
      ),
    },
    { header: 'Status', width: 100, cell: (t) => <StatusBadge status={t.status} /> },
    { header: 'Streams', width: 90, cell: (t) => abbreviateNumber(Number(t.streams)), className: 'text-right' },
    { header: 'Rejected', width: 100, cell: (t) => <span className={Number(t.rejected_streams) > 0 ? 'text-red-400' : undefined}>{abbreviateNumber(Number(t.rejected_streams))}</span>, className: 'text-right' },
    { header: 'Uploaded', width: 110, cell: (t) => formatDate(t.created_at) },
    { header: 'Actions', action: true, width: 170, cell: actions },
  ]
  const text = moderation ? dialogText[moderation.to] : null
  return (
    <div>
      <FilterBar>
        <SearchField id="track-search" label="Search" value={f.q} placeholder="Title" onSearch={(q) => set({ q })} />
        <SelectField
          id="track-status"
          label="Status"
          value={f.status}
          onChange={(status) => set({ status })}
          options={[
            { value: '', label: 'Any status' },
            { value: 'active', label: 'Active' },
            { value: 'hidden', label: 'Hidden' },
            { value: 'removed', label: 'Removed' },
          ]}
        />
        <SelectField
          id="track-sponsored"
          label="Sponsored"
          value={f.sponsored}
          onChange={(sponsored) => set({ sponsored })}
          options={[
            { value: '', label: 'Any' },
            { value: 'yes', label: 'Sponsored' },
            { value: 'no', label: 'Not sponsored' },
          ]}
        />
      </FilterBar>
      <AdminTable testId="admin-tracks" columns={columns} rows={rows} rowKey={(t) => t.id} loading={list.isLoading} error={list.error} empty="No tracks match" onRowClick={(t) => set({ track: t.id })} rowLabel={(t) => t.title} />
      <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
      {f.track && <TrackDetailPanel trackId={f.track} onClose={() => set({ track: '' })} />}
      {moderation && text && (
        <ActionDialog
          open
          onOpenChange={(o) => !o && setModeration(null)}
          title={`${text.title} "${moderation.track.title}"?`}
          description={text.body}
          confirmLabel={text.cta}
          destructive={moderation.to !== 'active'}
          reason={moderation.to === 'active' ? 'optional' : 'required'}
          pending={moderate.isPending}
          onConfirm={(reason) => moderate.mutateAsync({ id: moderation.track.id, to: moderation.to, reason })}
        />
      )}
    </div>
  )
}

/** TrackDetailPanel shows a track's streams by verdict and its fraud signals. */
function TrackDetailPanel({ trackId, onClose }: { trackId: string; onClose: () => void }) {
  const detail = useQuery(trackDetailQuery(trackId))
  const d = detail.data
  return (
    <DetailPanel open onClose={onClose} title={d?.track.title ?? 'Track'} testId="track-detail">
      {detail.isLoading && <Skeleton className="h-40" />}
      {d && (
        <>
          <KeyValues
            items={[
              ['Artist', d.track.artist_name],
              ['Sponsor', d.track.sponsor_name ?? '—'],
              ['Status', <StatusBadge key="s" status={d.track.status} />],
              ...(d.track.moderation_reason ? ([['Reason', d.track.moderation_reason]] as [string, string][]) : []),
              ['Uploaded', formatDateTime(d.track.created_at)],
            ]}
          />
          <PanelSection title="Streams">
            <KeyValues
              items={[
                ['Valid', d.streams.valid],
                ['Rejected', d.streams.rejected],
                ['Paid', d.streams.paid],
                ['Listeners', d.streams.listeners],
                ['Last 24 h', d.streams.last_24h],
              ]}
            />
          </PanelSection>
          <PanelSection title="Why streams were rejected">
            {d.rejections.length === 0 ? <p className="text-sm text-muted-foreground">None</p> : (
              <ul className="grid gap-1 text-sm">
                {d.rejections.map((r) => (
                  <li key={r.reason}>
                    {r.count} × {r.reason}
                  </li>
                ))}
              </ul>
            )}
          </PanelSection>
          <PanelSection title="Fraud signals">
            <ul className="grid gap-1 text-sm">
              {d.fraud_flags.map((f, i) => (
                <li key={i} className="text-red-300">
                  {f.details.risk_level}: {(f.details.fraud_reasons ?? []).join(', ')} · {formatDateTime(f.created_at)}
                </li>
              ))}
              {d.top_addresses.map((a) => (
                <li key={a.address_key}>
                  Address {a.address_key.slice(0, 12)}…: {a.streams} streams from {a.accounts} account(s) in 24 h
                </li>
              ))}
              {d.fraud_flags.length + d.top_addresses.length === 0 && <li className="text-muted-foreground">None</li>}
            </ul>
          </PanelSection>
          <PanelSection title="Top listeners">
            <ul className="grid gap-1 text-sm">
              {d.top_listeners.map((l) => (
                <li key={l.user_id}>
                  {l.name}: {l.streams}
                </li>
              ))}
            </ul>
          </PanelSection>
          {d.audit.length > 0 && (
            <PanelSection title="Admin actions">
              <ul className="grid gap-1 text-sm">
                {d.audit.map((a) => (
                  <li key={a.id}>
                    {a.actor_name} {adminVerb(a.action)}
                    {a.reason ? `: ${a.reason}` : ''} · {formatDateTime(a.created_at)}
                  </li>
                ))}
              </ul>
            </PanelSection>
          )}
        </>
      )}
    </DetailPanel>
  )
}
