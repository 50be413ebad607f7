import { useInfiniteQuery } from '@tanstack/react-query'
import { Link, useSearchParams } from 'react-router'
import { activityQuery, type ActivityEntry } from '../api/activity'
import { formatDateTime } from '../lib/dates'
import { ACTIVITY_KINDS, describeActivity } from '../lib/describe'
import { dayEnd, dayStart, readParams, withParams } from '../lib/filters'
import { flattenPages } from '../lib/keyset'
import { adminPath } from '../lib/sections'
import { AdminTable, LoadMore, type Column } from './admin-table'
import { DateField, FilterBar, SelectField } from './fields'

const kindTone: Record<string, string> = {
  stream: 'text-sky-400',
  admin: 'text-amber-400',
  fraud: 'text-red-400',
  cashout: 'text-green-400',
  payment: 'text-green-400',
}

const columns: Column<ActivityEntry>[] = [
  { header: 'When', priority: 3, width: 150, cell: (a) => <span className="whitespace-nowrap">{formatDateTime(a.at)}</span> },
  { header: 'Kind', priority: 4, width: 100, cell: (a) => <span className={`text-xs font-semibold uppercase ${kindTone[a.kind] ?? ''}`}>{a.kind}</span> },
  {
    header: 'Who',
    priority: 2,
    width: 150,
    cell: (a) =>
      a.actor_id ? (
        <Link className="hover:underline" to={adminPath('users', { user: a.actor_id })} onClick={(e) => e.stopPropagation()}>
          {a.actor_name}
        </Link>
      ) : (
        <span className="text-muted-foreground">system</span>
      ),
  },
  {
    header: 'What',
    priority: 1,
    width: 260,
    cell: (a) => <span className={a.action === 'stream.rejected' ? 'text-red-300' : undefined}>{describeActivity(a)}</span>,
  },
]

/** ActivitySection is the platform's activity feed, filterable by kind, user and dates. */
export function ActivitySection() {
  const [params, setParams] = useSearchParams()
  const f = readParams(params, ['kind', 'user', 'from', 'to'])
  const list = useInfiniteQuery(activityQuery({ kind: f.kind || undefined, userId: f.user || undefined, from: dayStart(f.from), to: dayEnd(f.to) }))
  const rows = flattenPages(list.data?.pages, (a) => a.key)
  const set = (patch: Record<string, string>) => setParams(withParams(params, patch))
  return (
    <div>
      <FilterBar>
        <SelectField id="activity-kind" label="Kind" value={f.kind} onChange={(kind) => set({ kind })} options={ACTIVITY_KINDS} />
        <DateField id="activity-from" label="From" value={f.from} onChange={(from) => set({ from })} />
        <DateField id="activity-to" label="To" value={f.to} onChange={(to) => set({ to })} />
        {f.user && (
          <button className="h-10 rounded-md border border-border px-3 text-sm" onClick={() => set({ user: '' })}>
            One user only ✕
          </button>
        )}
      </FilterBar>
      <AdminTable testId="admin-activity" columns={columns} rows={rows} rowKey={(a) => a.key} loading={list.isLoading} error={list.error} empty="No activity" />
      <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
    </div>
  )
}
