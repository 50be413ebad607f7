import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Pencil, Plus, Trash2 } from 'lucide-react'
import { api } from '@/lib/api'
import type { PgTable } from '@/lib/types'
import { Button } from '@/components/ui/button'
import { Input, Label } from '@/components/ui/input'
import { FormDialog } from '@/components/ui/form-dialog'
import { Badge, ErrorText } from '@/components/ui/misc'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { DataList } from '@/components/ui/data-list'

type Publication = {
  id: number
  name: string
  owner: string
  publish_insert: boolean
  publish_update: boolean
  publish_delete: boolean
  publish_truncate: boolean
  tables: { id: number; name: string; schema: string }[] | null
}

const events = ['insert', 'update', 'delete', 'truncate'] as const
/** realtime streams this one: it keeps its name and is never dropped. */
const realtimePublication = 'supabase_realtime'

/** Publications lists what each publication sends to logical replication (realtime reads supabase_realtime); tables and events are edited here. */
export function Publications() {
  const qc = useQueryClient()
  const q = useQuery({ queryKey: ['pg', 'publications'], queryFn: () => api<Publication[]>('/pg/publications') })
  const [editing, setEditing] = useState<Publication | 'new' | null>(null)
  const [dropping, setDropping] = useState<Publication | null>(null)
  const refresh = () => qc.invalidateQueries({ queryKey: ['pg', 'publications'] })
  const drop = useMutation({
    mutationFn: (p: Publication) => api(`/pg/publications/${p.id}`, { method: 'DELETE' }),
    onSuccess: () => (setDropping(null), refresh()),
  })
  return (
    <>
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-xs text-muted-foreground">Add a table to supabase_realtime to send its changes to realtime subscribers.</span>
        <Button className="ml-auto" onClick={() => setEditing('new')}>
          <Plus /> New publication
        </Button>
      </div>
      <ErrorText error={q.error} />
      <DataList
        label="Publications"
        rows={q.data}
        rowKey={(p) => p.id}
        empty="No publications."
        columns={[
          { header: 'name', cell: (p) => <span className="font-mono">{p.name}</span> },
          {
            header: 'changes',
            cell: (p) => <span className="flex flex-wrap gap-1">{events.map((k) => (p[`publish_${k}`] ? <Badge key={k}>{k}</Badge> : null))}</span>,
          },
          { header: 'tables', cell: (p) => (p.tables === null ? <Badge tone="warn">all tables</Badge> : p.tables.map((t) => `${t.schema}.${t.name}`).join(', ') || 'none') },
          { header: 'owner', cell: (p) => p.owner },
          {
            header: '',
            cell: (p) => (
              <span className="flex">
                <Button variant="ghost" size="icon" aria-label={`Edit publication ${p.name}`} onClick={() => setEditing(p)}>
                  <Pencil />
                </Button>
                {p.name !== realtimePublication && (
                  <Button variant="ghost" size="icon" aria-label={`Drop publication ${p.name}`} onClick={() => (drop.reset(), setDropping(p))}>
                    <Trash2 />
                  </Button>
                )}
              </span>
            ),
          },
        ]}
      />
      {editing && (
        <PublicationDialog publication={editing === 'new' ? undefined : editing} onClose={() => setEditing(null)} onSaved={() => (setEditing(null), refresh())} />
      )}
      <ConfirmDialog
        open={!!dropping}
        title={`Drop publication ${dropping?.name}?`}
        description="DROP PUBLICATION: subscribers and replication slots reading it stop receiving changes. The change is written to the audit log."
        confirm="Drop publication"
        pending={drop.isPending}
        error={drop.error}
        onCancel={() => setDropping(null)}
        onConfirm={() => dropping && drop.mutate(dropping)}
      />
    </>
  )
}

/** PublicationDialog creates a publication or edits one: its events and its tables. */
function PublicationDialog({ publication: p, onClose, onSaved }: { publication?: Publication; onClose: () => void; onSaved: () => void }) {
  const [name, setName] = useState(p?.name ?? '')
  const [on, setOn] = useState<Record<string, boolean>>(
    Object.fromEntries(events.map((k) => [k, p ? p[`publish_${k}`] : true])),
  )
  const [all, setAll] = useState(p ? p.tables === null : false)
  const [tables, setTables] = useState<string[]>(p?.tables?.map((t) => `${t.schema}.${t.name}`) ?? [])
  const list = useQuery({ queryKey: ['pg', 'tables', 'all'], queryFn: () => api<PgTable[]>('/pg/tables') })
  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, unknown> = Object.fromEntries(events.map((k) => [`publish_${k}`, on[k]]))
      if (!p || p.name !== name) body.name = name
      if (!all) body.tables = tables
      else if (!p) body.tables = null
      return p ? api(`/pg/publications/${p.id}`, { method: 'PATCH', json: body }) : api('/pg/publications', { method: 'POST', json: body })
    },
    onSuccess: onSaved,
  })
  return (
    <FormDialog
      className="max-w-xl"
      title={p ? `Edit publication ${p.name}` : 'New publication'}
      description="Which changes of which tables logical replication sends. The change is written to the audit log."
      submit={p ? 'Save publication' : 'Create publication'}
      pending={save.isPending}
      error={save.error}
      onSubmit={() => save.mutate()}
      onClose={onClose}
    >
      <Label htmlFor="pub-name">Name</Label>
      <Input id="pub-name" value={name} required disabled={p?.name === realtimePublication} onChange={(e) => setName(e.target.value)} />
      <fieldset className="flex flex-wrap gap-4 text-xs">
        <legend className="mb-1 text-xs font-medium text-muted-foreground">Changes</legend>
        {events.map((k) => (
          <label key={k} className="flex items-center gap-1.5">
            <input type="checkbox" aria-label={`Publish ${k}`} checked={on[k]} onChange={(e) => setOn({ ...on, [k]: e.target.checked })} />
            {k}
          </label>
        ))}
      </fieldset>
      {!p && (
        <label className="flex items-center gap-1.5 text-xs">
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> Every table (FOR ALL TABLES)
        </label>
      )}
      {all ? (
        <p className="text-xs text-muted-foreground">Every table, now and later: there is no list to change.</p>
      ) : (
        <fieldset className="flex max-h-60 flex-col gap-1 overflow-y-auto text-xs">
          <legend className="mb-1 text-xs font-medium text-muted-foreground">Tables</legend>
          {(list.data ?? []).map((t) => {
            const key = `${t.schema}.${t.name}`
            return (
              <label key={t.id} className="flex items-center gap-1.5 font-mono">
                <input
                  type="checkbox"
                  aria-label={`Publish table ${key}`}
                  checked={tables.includes(key)}
                  onChange={(e) => setTables(e.target.checked ? [...tables, key] : tables.filter((x) => x !== key))}
                />
                {key}
              </label>
            )
          })}
        </fieldset>
      )}
    </FormDialog>
  )
}
