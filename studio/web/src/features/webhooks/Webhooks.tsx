import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Pencil, Plus, Trash2 } from 'lucide-react'
import { api } from '@/lib/api'
import type { PgTable, Schema } from '@/lib/types'
import { Button } from '@/components/ui/button'
import { Input, Label, Select, Textarea } from '@/components/ui/input'
import { FormDialog } from '@/components/ui/form-dialog'
import { Badge, ErrorText } from '@/components/ui/misc'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { DataList, ago, when } from '@/components/ui/data-list'

type Hook = {
  id: number
  name: string
  schema: string
  table: string
  table_id: number
  enabled: boolean
  events: string[]
  url: string
  method: string
  headers: Record<string, string>
  params: Record<string, string>
  timeout_ms: number
  fired: number
  last_fired_at: string | null
}
type Delivery = {
  id: number
  hook_name: string
  schema: string | null
  table: string | null
  created_at: string
  request_id: number
  state: 'pending' | 'delivered' | 'failed' | 'timed_out' | 'error' | 'unknown'
  status_code: number | null
  error_msg: string | null
  content: string | null
}

const stateTone = { pending: 'warn', delivered: 'ok', failed: 'bad', timed_out: 'bad', error: 'bad', unknown: 'muted' } as const

/** Webhooks lists the database webhooks (supabase_functions.http_request triggers) and their recent deliveries. */
export default function Webhooks() {
  const qc = useQueryClient()
  const hooks = useQuery({ queryKey: ['webhooks'], queryFn: () => api<Hook[]>('/api/webhooks'), refetchInterval: 3000 })
  const [only, setOnly] = useState<Hook | null>(null)
  const deliveries = useQuery({
    queryKey: ['webhooks', 'deliveries', only?.id ?? 0],
    queryFn: () => api<Delivery[]>(`/api/webhooks/deliveries?limit=100${only ? `&id=${only.id}` : ''}`),
    refetchInterval: 3000,
  })
  const [creating, setCreating] = useState(false)
  const [editing, setEditing] = useState<Hook | null>(null)
  const [deleting, setDeleting] = useState<Hook | null>(null)
  const refresh = () => qc.invalidateQueries({ queryKey: ['webhooks'] })
  const toggle = useMutation({ mutationFn: (h: Hook) => api(`/api/webhooks/${h.id}`, { method: 'PATCH', json: { enabled: !h.enabled } }), onSuccess: refresh })
  const remove = useMutation({
    mutationFn: (h: Hook) => api(`/api/webhooks/${h.id}`, { method: 'DELETE' }),
    onSuccess: (_, h) => {
      setDeleting(null)
      if (only?.id === h.id) setOnly(null)
      refresh()
    },
  })
  return (
    <div className="grid-scroll flex flex-1 flex-col gap-3 p-5">
      <div className="flex items-center gap-3">
        <h1 className="text-lg font-semibold">Database Webhooks</h1>
        <span className="text-xs text-muted-foreground">An HTTP request for each row change, sent after the transaction commits (pg_net).</span>
        <Button className="ml-auto" onClick={() => setCreating(true)}>
          <Plus /> New webhook
        </Button>
      </div>
      <ErrorText error={hooks.error ?? toggle.error} />
      <DataList
        label="Webhooks"
        rows={hooks.data}
        rowKey={(h) => h.id}
        empty="No webhooks yet."
        selected={(h) => h.id === only?.id}
        onRowClick={(h) => setOnly(only?.id === h.id ? null : h)}
        columns={[
          { header: 'name', cell: (h) => <span className="font-medium">{h.name}</span> },
          { header: 'table', cell: (h) => <span className="font-mono">{`${h.schema}.${h.table}`}</span> },
          { header: 'events', cell: (h) => <span className="flex gap-1">{h.events.map((e) => <Badge key={e}>{e}</Badge>)}</span> },
          { header: 'request', className: 'max-w-md', cell: (h) => <code className="break-all font-mono">{`${h.method} ${h.url}`}</code> },
          { header: 'fired', cell: (h) => (h.fired ? `${h.fired} · ${ago(h.last_fired_at)} ago` : 'never') },
          {
            header: 'enabled',
            cell: (h) => (
              <label className="flex items-center gap-1.5" onClick={(e) => e.stopPropagation()}>
                <input type="checkbox" aria-label={`Enabled ${h.name}`} checked={h.enabled} onChange={() => toggle.mutate(h)} />
                {h.enabled ? 'on' : 'paused'}
              </label>
            ),
          },
          {
            header: '',
            cell: (h) => (
              <span className="flex">
                <Button
                  variant="ghost"
                  size="icon"
                  aria-label={`Edit ${h.name}`}
                  onClick={(e) => {
                    e.stopPropagation()
                    setEditing(h)
                  }}
                >
                  <Pencil />
                </Button>
                <Button
                  variant="ghost"
                  size="icon"
                  aria-label={`Delete ${h.name}`}
                  onClick={(e) => {
                    e.stopPropagation()
                    remove.reset()
                    setDeleting(h)
                  }}
                >
                  <Trash2 />
                </Button>
              </span>
            ),
          },
        ]}
      />
      <section className="flex flex-col gap-2" aria-label="Recent deliveries">
        <h2 className="text-sm font-semibold">Recent deliveries{only ? ` of ${only.name}` : ''}</h2>
        <ErrorText error={deliveries.error} />
        <DataList
          label="Deliveries"
          rows={deliveries.data}
          rowKey={(d) => d.id}
          empty="Nothing sent yet."
          columns={[
            { header: 'fired', cell: (d) => when(d.created_at) },
            { header: 'webhook', cell: (d) => d.hook_name },
            { header: 'table', cell: (d) => <span className="font-mono">{d.table ? `${d.schema}.${d.table}` : '(dropped)'}</span> },
            { header: 'request', cell: (d) => d.request_id },
            {
              header: 'state',
              cell: (d) => (
                <Badge tone={stateTone[d.state]} data-testid="delivery-state">
                  {d.state.replace('_', ' ')}
                  {d.status_code ? ` ${d.status_code}` : ''}
                </Badge>
              ),
            },
            { header: 'answer', className: 'max-w-xl', cell: (d) => <code className="line-clamp-2 break-all font-mono text-muted-foreground">{d.error_msg ?? d.content}</code> },
          ]}
        />
      </section>
      {creating && <HookDialog onClose={() => setCreating(false)} onSaved={() => (setCreating(false), refresh())} />}
      {editing && <HookDialog hook={editing} onClose={() => setEditing(null)} onSaved={() => (setEditing(null), refresh())} />}
      <ConfirmDialog
        open={!!deleting}
        title={`Delete webhook ${deleting?.name}?`}
        description="Its trigger is dropped: row changes stop sending requests. Past deliveries stay listed. The change is written to the audit log."
        confirm="Delete webhook"
        pending={remove.isPending}
        error={remove.error}
        onCancel={() => setDeleting(null)}
        onConfirm={() => deleting && remove.mutate(deleting)}
      />
    </div>
  )
}

/** HookDialog creates a webhook, or edits one in place (its name and table stay). */
function HookDialog({ hook, onClose, onSaved }: { hook?: Hook; onClose: () => void; onSaved: () => void }) {
  const [schema, setSchema] = useState(hook?.schema ?? 'public')
  const [d, setD] = useState({
    name: hook?.name ?? '',
    table: hook?.table ?? '',
    url: hook?.url ?? '',
    method: hook?.method ?? 'POST',
    timeout: String(hook?.timeout_ms ?? 5000),
  })
  const [events, setEvents] = useState<string[]>(hook?.events ?? ['INSERT'])
  const [headers, setHeaders] = useState(JSON.stringify(hook?.headers ?? { 'Content-Type': 'application/json' }, null, 2))
  const [localError, setLocalError] = useState('')
  const schemas = useQuery({ queryKey: ['pg', 'schemas'], queryFn: () => api<Schema[]>('/pg/schemas'), enabled: !hook })
  const tables = useQuery({
    queryKey: ['pg', 'tables', schema],
    queryFn: () => api<PgTable[]>(`/pg/tables?included_schemas=${encodeURIComponent(schema)}`),
    enabled: !hook,
  })
  const save = useMutation({
    mutationFn: (h: Record<string, string>) => {
      const body = { events, url: d.url, method: d.method, headers: h, timeout_ms: Number(d.timeout) }
      return hook
        ? api(`/api/webhooks/${hook.id}`, { method: 'PATCH', json: body })
        : api('/api/webhooks', { method: 'POST', json: { ...body, name: d.name, schema, table: d.table } })
    },
    onSuccess: onSaved,
  })
  const submit = () => {
    let h: Record<string, string>
    try {
      h = JSON.parse(headers)
    } catch (err) {
      setLocalError(`Headers are not JSON: ${(err as Error).message}`)
      return
    }
    setLocalError('')
    save.mutate(h)
  }
  return (
    <FormDialog
      className="max-w-2xl"
      title={hook ? `Edit webhook ${hook.name}` : 'New database webhook'}
      description={
        hook
          ? `On ${hook.schema}.${hook.table}. The trigger is replaced in place; its past deliveries stay listed. The change is written to the audit log (header values of credentials redacted).`
          : 'A trigger running supabase_functions.http_request, as Supabase makes it. A POST carries type, table, schema, record and old_record.'
      }
      submit={hook ? 'Save webhook' : 'Create webhook'}
      pending={save.isPending}
      error={localError || save.error}
      onSubmit={submit}
      onClose={onClose}
    >
      {!hook && (
        <>
          <Label htmlFor="hook-name">Name</Label>
          <Input id="hook-name" value={d.name} required onChange={(e) => setD({ ...d, name: e.target.value })} />
          <div className="flex flex-wrap gap-2">
            <div className="flex min-w-40 flex-1 flex-col gap-1">
              <Label htmlFor="hook-schema">Schema</Label>
              <Select id="hook-schema" value={schema} onChange={(e) => (setSchema(e.target.value), setD({ ...d, table: '' }))}>
                {(schemas.data ?? [{ id: 0, name: schema, owner: '' }]).map((s) => (
                  <option key={s.id}>{s.name}</option>
                ))}
              </Select>
            </div>
            <div className="flex min-w-40 flex-1 flex-col gap-1">
              <Label htmlFor="hook-table">Table</Label>
              <Select id="hook-table" value={d.table} required onChange={(e) => setD({ ...d, table: e.target.value })}>
                <option value="">choose a table</option>
                {(tables.data ?? []).map((t) => (
                  <option key={t.id}>{t.name}</option>
                ))}
              </Select>
            </div>
          </div>
        </>
      )}
      <fieldset className="flex gap-4 text-xs">
        <legend className="mb-1 text-xs font-medium text-muted-foreground">Events</legend>
        {['INSERT', 'UPDATE', 'DELETE'].map((ev) => (
          <label key={ev} className="flex items-center gap-1.5">
            <input type="checkbox" checked={events.includes(ev)} onChange={(e) => setEvents(e.target.checked ? [...events, ev] : events.filter((x) => x !== ev))} />
            {ev}
          </label>
        ))}
      </fieldset>
      <div className="flex flex-wrap gap-2">
        <div className="flex w-28 flex-col gap-1">
          <Label htmlFor="hook-method">Method</Label>
          <Select id="hook-method" value={d.method} onChange={(e) => setD({ ...d, method: e.target.value })}>
            <option>POST</option>
            <option>GET</option>
          </Select>
        </div>
        <div className="flex min-w-48 flex-1 flex-col gap-1">
          <Label htmlFor="hook-url">URL</Label>
          <Input id="hook-url" value={d.url} required placeholder="https://example.com/hooks/orders" onChange={(e) => setD({ ...d, url: e.target.value })} />
        </div>
        <div className="flex w-32 flex-col gap-1">
          <Label htmlFor="hook-timeout">Timeout (ms)</Label>
          <Input id="hook-timeout" type="number" min={1} max={10000} value={d.timeout} onChange={(e) => setD({ ...d, timeout: e.target.value })} />
        </div>
      </div>
      <Label htmlFor="hook-headers">Headers (JSON)</Label>
      <Textarea id="hook-headers" value={headers} onChange={(e) => setHeaders(e.target.value)} />
    </FormDialog>
  )
}
