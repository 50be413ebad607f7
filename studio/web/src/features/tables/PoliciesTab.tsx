import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Pencil, Plus, Trash2 } from 'lucide-react'
import { api } from '@/lib/api'
import type { PgColumn, PgTable, Policy } from '@/lib/types'
import { Button } from '@/components/ui/button'
import { Input, Label, Select, Textarea } from '@/components/ui/input'
import { Dialog, DialogContent } from '@/components/ui/dialog'
import { Badge, Card, ErrorText } from '@/components/ui/misc'
import { templates, type PolicyDraft } from './templates'

/** PoliciesTab shows a table's row-level security and policies, and changes them. */
export function PoliciesTab({ table }: { table: PgTable }) {
  const qc = useQueryClient()
  const policies = useQuery({ queryKey: ['pg', 'policies', table.id], queryFn: () => api<Policy[]>(`/pg/policies?table_id=${table.id}`) })
  const cols = useQuery({ queryKey: ['pg', 'columns', table.id], queryFn: () => api<PgColumn[]>(`/pg/columns?table_id=${table.id}`) })
  const [editing, setEditing] = useState<{ id?: number; draft: PolicyDraft } | null>(null)
  const [dropping, setDropping] = useState<Policy | null>(null)
  const [rlsConfirm, setRlsConfirm] = useState(false)
  const refresh = () => {
    qc.invalidateQueries({ queryKey: ['pg'] })
    qc.invalidateQueries({ queryKey: ['rows', table.schema, table.name] })
  }
  const toggleRLS = useMutation({
    mutationFn: () => api(`/pg/tables/${table.id}`, { method: 'PATCH', json: { rls_enabled: !table.rls_enabled } }),
    onSuccess: () => (setRlsConfirm(false), refresh()),
  })
  const drop = useMutation({
    mutationFn: (p: Policy) => api(`/pg/policies/${p.id}`, { method: 'DELETE' }),
    onSuccess: () => (setDropping(null), refresh()),
  })
  const owner = cols.data?.find((c) => c.format === 'uuid' && /^(user_id|owner_id|owner|created_by|profile_id|artist_id)$/.test(c.name))?.name
  return (
    <div className="grid-scroll flex flex-1 flex-col gap-3 p-4">
      <Card className="flex items-center gap-3">
        <div className="flex-1">
          <div className="font-medium">Row-level security {table.rls_enabled ? <Badge tone="ok">enabled</Badge> : <Badge tone="warn">disabled</Badge>}</div>
          <div className="text-xs text-muted-foreground">
            {table.rls_enabled ? 'Only the rows a policy allows reach API callers (anon, authenticated).' : 'Every API role with a grant on this table reads and writes every row.'}
          </div>
        </div>
        <Button variant={table.rls_enabled ? 'outline' : 'default'} onClick={() => setRlsConfirm(true)}>
          {table.rls_enabled ? 'Disable RLS' : 'Enable RLS'}
        </Button>
        <Button onClick={() => setEditing({ draft: templates(table.name, owner)[0].draft })}>
          <Plus /> New policy
        </Button>
      </Card>
      <ErrorText error={policies.error} />
      {(policies.data ?? []).map((p) => (
        <Card key={p.id} className="flex flex-col gap-1" data-testid="policy">
          <div className="flex items-center gap-2">
            <span className="font-medium">{p.name}</span>
            <Badge>{p.command}</Badge>
            {p.action === 'RESTRICTIVE' && <Badge tone="warn">restrictive</Badge>}
            <span className="text-xs text-muted-foreground">to {p.roles.join(', ')}</span>
            <div className="ml-auto flex gap-1">
              <Button
                variant="ghost"
                size="icon"
                aria-label={`Edit ${p.name}`}
                onClick={() => setEditing({ id: p.id, draft: { name: p.name, command: p.command, roles: p.roles, action: p.action, definition: p.definition ?? '', check: p.check ?? '' } })}
              >
                <Pencil />
              </Button>
              <Button variant="ghost" size="icon" aria-label={`Drop ${p.name}`} onClick={() => setDropping(p)}>
                <Trash2 />
              </Button>
            </div>
          </div>
          {p.definition && <code className="font-mono text-xs text-muted-foreground">USING ({p.definition})</code>}
          {p.check && <code className="font-mono text-xs text-muted-foreground">WITH CHECK ({p.check})</code>}
        </Card>
      ))}
      {policies.data?.length === 0 && <p className="text-xs text-muted-foreground">No policies{table.rls_enabled ? ': with RLS on, API callers see no rows.' : '.'}</p>}
      {editing && <PolicyDialog table={table} id={editing.id} initial={editing.draft} owner={owner} onClose={() => setEditing(null)} onSaved={() => (setEditing(null), refresh())} />}
      <Dialog open={!!dropping} onOpenChange={(o) => !o && setDropping(null)}>
        <DialogContent title={`Drop policy "${dropping?.name}"?`} description="Callers lose what this policy allowed. The change is written to the audit log.">
          <ErrorText error={drop.error} />
          <div className="flex justify-end gap-2">
            <Button variant="outline" onClick={() => setDropping(null)}>
              Cancel
            </Button>
            <Button variant="destructive" onClick={() => dropping && drop.mutate(dropping)}>
              Drop policy
            </Button>
          </div>
        </DialogContent>
      </Dialog>
      <Dialog open={rlsConfirm} onOpenChange={setRlsConfirm}>
        <DialogContent
          title={table.rls_enabled ? `Disable row-level security on ${table.name}?` : `Enable row-level security on ${table.name}?`}
          description={table.rls_enabled ? 'Every API role with a grant will read and write every row.' : 'API callers will see only the rows a policy allows.'}
        >
          <ErrorText error={toggleRLS.error} />
          <div className="flex justify-end gap-2">
            <Button variant="outline" onClick={() => setRlsConfirm(false)}>
              Cancel
            </Button>
            <Button variant={table.rls_enabled ? 'destructive' : 'default'} onClick={() => toggleRLS.mutate()}>
              {table.rls_enabled ? 'Disable' : 'Enable'}
            </Button>
          </div>
        </DialogContent>
      </Dialog>
    </div>
  )
}

function PolicyDialog({ table, id, initial, owner, onClose, onSaved }: { table: PgTable; id?: number; initial: PolicyDraft; owner?: string; onClose: () => void; onSaved: () => void }) {
  const [d, setD] = useState<PolicyDraft>(initial)
  const needsUsing = d.command !== 'INSERT'
  const needsCheck = d.command === 'INSERT' || d.command === 'UPDATE' || d.command === 'ALL'
  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, unknown> = { name: d.name, roles: d.roles }
      if (needsUsing && d.definition.trim()) body.definition = d.definition
      if (needsCheck && d.check.trim()) body.check = d.check
      if (id !== undefined) return api(`/pg/policies/${id}`, { method: 'PATCH', json: body })
      return api('/pg/policies', { method: 'POST', json: { ...body, schema: table.schema, table: table.name, command: d.command, action: d.action } })
    },
    onSuccess: onSaved,
  })
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent className="max-w-2xl" title={id ? `Edit policy on ${table.name}` : `New policy on ${table.name}`} description="PostgreSQL checks the expressions when the policy is saved.">
        {!id && (
          <div className="flex flex-wrap gap-1">
            {templates(table.name, owner).map((t) => (
              <Button key={t.label} type="button" size="sm" variant="outline" onClick={() => setD(t.draft)}>
                {t.label}
              </Button>
            ))}
          </div>
        )}
        <form
          className="flex flex-col gap-2"
          onSubmit={(e) => {
            e.preventDefault()
            save.mutate()
          }}
        >
          <Label htmlFor="policy-name">Name</Label>
          <Input id="policy-name" value={d.name} onChange={(e) => setD({ ...d, name: e.target.value })} required />
          <div className="flex gap-2">
            <div className="flex flex-1 flex-col gap-1">
              <Label htmlFor="policy-command">Command</Label>
              <Select id="policy-command" disabled={!!id} value={d.command} onChange={(e) => setD({ ...d, command: e.target.value as PolicyDraft['command'] })}>
                {['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'ALL'].map((c) => (
                  <option key={c}>{c}</option>
                ))}
              </Select>
            </div>
            <div className="flex flex-1 flex-col gap-1">
              <Label htmlFor="policy-action">Kind</Label>
              <Select id="policy-action" disabled={!!id} value={d.action} onChange={(e) => setD({ ...d, action: e.target.value as PolicyDraft['action'] })}>
                <option value="PERMISSIVE">permissive (any one may allow)</option>
                <option value="RESTRICTIVE">restrictive (every one must allow)</option>
              </Select>
            </div>
            <div className="flex flex-1 flex-col gap-1">
              <Label htmlFor="policy-roles">Roles (comma-separated)</Label>
              <Input id="policy-roles" value={d.roles.join(', ')} onChange={(e) => setD({ ...d, roles: e.target.value.split(',').map((s) => s.trim()).filter(Boolean) })} />
            </div>
          </div>
          {needsUsing && (
            <>
              <Label htmlFor="policy-using">USING (which rows it applies to)</Label>
              <Textarea id="policy-using" value={d.definition} onChange={(e) => setD({ ...d, definition: e.target.value })} />
            </>
          )}
          {needsCheck && (
            <>
              <Label htmlFor="policy-check">WITH CHECK (which new rows are allowed)</Label>
              <Textarea id="policy-check" value={d.check} onChange={(e) => setD({ ...d, check: e.target.value })} />
            </>
          )}
          <ErrorText error={save.error} />
          <div className="flex justify-end gap-2">
            <Button type="button" variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={save.isPending}>
              Save policy
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  )
}
