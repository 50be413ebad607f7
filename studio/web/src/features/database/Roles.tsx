import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Pencil, Plus, Trash2 } from 'lucide-react'
import { api } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { Input, Label } from '@/components/ui/input'
import { FormDialog } from '@/components/ui/form-dialog'
import { Badge, ErrorText } from '@/components/ui/misc'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { DataList } from '@/components/ui/data-list'

type Role = {
  id: number
  name: string
  is_superuser: boolean
  can_login: boolean
  can_bypass_rls: boolean
  can_create_role: boolean
  inherit_role: boolean
  active_connections: number
  connection_limit: number
  member_of: string[]
  reserved: boolean
}

const yes = (v: boolean, tone: 'ok' | 'warn' = 'ok') => (v ? <Badge tone={tone}>yes</Badge> : <span className="text-muted-foreground">no</span>)

/** Roles lists the database's roles; ordinary ones are created, edited and dropped here, Basalt's own are read-only. */
export function Roles() {
  const qc = useQueryClient()
  const q = useQuery({ queryKey: ['pg', 'roles'], queryFn: () => api<Role[]>('/pg/roles') })
  const [editing, setEditing] = useState<Role | 'new' | null>(null)
  const [dropping, setDropping] = useState<Role | null>(null)
  const refresh = () => qc.invalidateQueries({ queryKey: ['pg', 'roles'] })
  const drop = useMutation({
    mutationFn: (r: Role) => api(`/pg/roles/${r.id}`, { method: 'DELETE' }),
    onSuccess: () => (setDropping(null), refresh()),
  })
  return (
    <>
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs text-muted-foreground">Reserved roles (Basalt's API roles, superusers, PostgreSQL's) are changed with SQL migrations only.</span>
        <Button className="ml-auto" onClick={() => setEditing('new')}>
          <Plus /> New role
        </Button>
      </div>
      <ErrorText error={q.error} />
      <DataList
        label="Roles"
        rows={q.data}
        rowKey={(r) => r.id}
        empty="No roles."
        columns={[
          {
            header: 'name',
            cell: (r) => (
              <span className="flex items-center gap-1 font-mono">
                {r.name}
                {r.reserved && <Badge>reserved</Badge>}
              </span>
            ),
          },
          { header: 'can log in', cell: (r) => yes(r.can_login) },
          { header: 'superuser', cell: (r) => yes(r.is_superuser, 'warn') },
          { header: 'bypasses RLS', cell: (r) => yes(r.can_bypass_rls, 'warn') },
          { header: 'inherits', cell: (r) => yes(r.inherit_role) },
          { header: 'member of', cell: (r) => <span className="font-mono">{r.member_of.join(', ') || '—'}</span> },
          { header: 'connections', cell: (r) => `${r.active_connections} / ${r.connection_limit}` },
          {
            header: '',
            cell: (r) =>
              r.reserved ? null : (
                <span className="flex">
                  <Button variant="ghost" size="icon" aria-label={`Edit role ${r.name}`} onClick={() => setEditing(r)}>
                    <Pencil />
                  </Button>
                  <Button variant="ghost" size="icon" aria-label={`Drop role ${r.name}`} onClick={() => (drop.reset(), setDropping(r))}>
                    <Trash2 />
                  </Button>
                </span>
              ),
          },
        ]}
      />
      {editing && (
        <RoleDialog
          role={editing === 'new' ? undefined : editing}
          roles={q.data ?? []}
          onClose={() => setEditing(null)}
          onSaved={() => (setEditing(null), refresh())}
        />
      )}
      <ConfirmDialog
        open={!!dropping}
        title={`Drop role ${dropping?.name}?`}
        description="DROP ROLE: refused while the role owns objects or holds privileges. The change is written to the audit log."
        confirm="Drop role"
        pending={drop.isPending}
        error={drop.error}
        onCancel={() => setDropping(null)}
        onConfirm={() => dropping && drop.mutate(dropping)}
      />
    </>
  )
}

/** RoleDialog creates a role or edits one: login and password, inheritance, connection limit, memberships. */
function RoleDialog({ role, roles, onClose, onSaved }: { role?: Role; roles: Role[]; onClose: () => void; onSaved: () => void }) {
  const [name, setName] = useState(role?.name ?? '')
  const [login, setLogin] = useState(role?.can_login ?? false)
  const [password, setPassword] = useState('')
  const [inherit, setInherit] = useState(role?.inherit_role ?? true)
  const [limit, setLimit] = useState(role ? String(role.connection_limit) : '-1')
  const [memberOf, setMemberOf] = useState<string[]>(role?.member_of ?? [])
  const grantable = roles.filter((r) => !r.is_superuser && r.name !== role?.name)
  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, unknown> = { name, can_login: login, inherit_role: inherit, member_of: memberOf }
      if (password) body.password = password
      if (!role || Number(limit) !== role.connection_limit) body.connection_limit = Number(limit)
      return role ? api(`/pg/roles/${role.id}`, { method: 'PATCH', json: body }) : api('/pg/roles', { method: 'POST', json: body })
    },
    onSuccess: onSaved,
  })
  return (
    <FormDialog
      className="max-w-xl"
      title={role ? `Edit role ${role.name}` : 'New role'}
      description="SUPERUSER, CREATEROLE, REPLICATION and BYPASSRLS are not given here. The password is sent to Postgres as a SCRAM secret and never written to the audit log."
      submit={role ? 'Save role' : 'Create role'}
      pending={save.isPending}
      error={save.error}
      onSubmit={() => save.mutate()}
      onClose={onClose}
    >
      <Label htmlFor="role-name">Name</Label>
      <Input id="role-name" value={name} required onChange={(e) => setName(e.target.value)} />
      <label className="flex items-center gap-1.5 text-xs">
        <input type="checkbox" checked={login} onChange={(e) => setLogin(e.target.checked)} /> Can log in (LOGIN)
      </label>
      {login && (
        <>
          <Label htmlFor="role-password">{role ? 'New password (empty keeps it)' : 'Password'}</Label>
          <Input id="role-password" type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
        </>
      )}
      <label className="flex items-center gap-1.5 text-xs">
        <input type="checkbox" checked={inherit} onChange={(e) => setInherit(e.target.checked)} /> Inherits the privileges of its roles (INHERIT)
      </label>
      <Label htmlFor="role-limit">Connection limit (-1: none)</Label>
      <Input id="role-limit" type="number" min={-1} className="w-32" value={limit} onChange={(e) => setLimit(e.target.value)} />
      <fieldset className="flex flex-wrap gap-x-4 gap-y-1 text-xs">
        <legend className="mb-1 text-xs font-medium text-muted-foreground">Member of</legend>
        {grantable.map((r) => (
          <label key={r.id} className="flex items-center gap-1.5 font-mono">
            <input
              type="checkbox"
              aria-label={`Member of ${r.name}`}
              checked={memberOf.includes(r.name)}
              onChange={(e) => setMemberOf(e.target.checked ? [...memberOf, r.name] : memberOf.filter((x) => x !== r.name))}
            />
            {r.name}
          </label>
        ))}
      </fieldset>
    </FormDialog>
  )
}
