import { useInfiniteQuery } from '@tanstack/react-query'
import { useSearchParams } from 'react-router'
import type { Role } from '@/config/nav'
import { formatNaira } from '@/lib/format'
import { usersQuery, type UserRow } from '../api/users'
import { formatDate, formatDateTime } from '../lib/dates'
import { readParams, triState, withParams } from '../lib/filters'
import { flattenPages } from '../lib/keyset'
import { AdminTable, LoadMore, type Column } from './admin-table'
import { FilterBar, SearchField, SelectField, StatusBadge } from './fields'
import { UserDetailPanel } from './user-detail'

const roleOptions = [
  { value: '', label: 'Any role' },
  { value: 'fan', label: 'Fans' },
  { value: 'artist', label: 'Artists' },
  { value: 'sponsor', label: 'Sponsors' },
  { value: 'admin', label: 'Admins' },
] as const
const yesNo = (any: string, yes: string, no: string) => [
  { value: '', label: any },
  { value: 'yes', label: yes },
  { value: 'no', label: no },
]

const columns: Column<UserRow>[] = [
  {
    header: 'User',
    width: 200,
    cell: (u) => (
      <div>
        <p className="font-medium">{u.display_name || u.username || '—'}</p>
        <p className="text-xs text-muted-foreground">
          @{u.username} · {u.email}
        </p>
      </div>
    ),
  },
  { header: 'Role', priority: 3, width: 80, cell: (u) => <span className="capitalize">{u.role}</span> },
  {
    header: 'Status',
    priority: 2,
    cell: (u) => (
      <div className="flex flex-wrap gap-1">
        <StatusBadge status={u.is_suspended ? 'suspended' : 'active'} />
        {u.is_verified && <StatusBadge status="verified" />}
      </div>
    ),
  },
  { header: 'Balance', priority: 4, width: 100, cell: (u) => formatNaira(Number(u.balance ?? 0)), className: 'text-right' },
  { header: 'Joined', priority: 5, width: 110, cell: (u) => formatDate(u.created_at) },
  { header: 'Last sign-in', priority: 6, width: 160, cell: (u) => formatDateTime(u.last_sign_in_at) },
]

/** UsersSection searches users and opens one in a panel (?user=<id>). */
export function UsersSection() {
  const [params, setParams] = useSearchParams()
  const f = readParams(params, ['q', 'role', 'verified', 'suspended', 'user'])
  const filters = { q: f.q || undefined, role: (f.role || undefined) as Role | undefined, verified: triState(f.verified), suspended: triState(f.suspended) }
  const list = useInfiniteQuery(usersQuery(filters))
  const rows = flattenPages(list.data?.pages, (u) => u.id)
  const set = (patch: Record<string, string>) => setParams(withParams(params, patch))
  return (
    <div>
      <FilterBar>
        <SearchField id="user-search" label="Search" value={f.q} placeholder="E-mail, name or username" onSearch={(q) => set({ q })} />
        <SelectField id="user-role" label="Role" value={f.role} onChange={(role) => set({ role })} options={roleOptions} />
        <SelectField id="user-verified" label="Verified" value={f.verified} onChange={(verified) => set({ verified })} options={yesNo('Any', 'Verified', 'Not verified')} />
        <SelectField id="user-suspended" label="Suspended" value={f.suspended} onChange={(suspended) => set({ suspended })} options={yesNo('Any', 'Suspended', 'Active')} />
      </FilterBar>
      <AdminTable
        testId="admin-users"
        columns={columns}
        rows={rows}
        rowKey={(u) => u.id}
        loading={list.isLoading}
        error={list.error}
        empty="No users match"
        onRowClick={(u) => set({ user: u.id })}
        rowLabel={(u) => u.display_name || u.username || u.email || 'user'}
      />
      <LoadMore hasNextPage={list.hasNextPage} isFetchingNextPage={list.isFetchingNextPage} fetchNextPage={list.fetchNextPage} />
      {f.user && <UserDetailPanel userId={f.user} onClose={() => set({ user: '' })} />}
    </div>
  )
}
