import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api'
import type { Schema, Trigger } from '@/lib/types'
import { formatBytes } from '@/lib/utils'
import { Button } from '@/components/ui/button'
import { Input, Select } from '@/components/ui/input'
import { Dialog, DialogContent } from '@/components/ui/dialog'
import { Badge, ErrorText } from '@/components/ui/misc'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { DataList } from '@/components/ui/data-list'

/** SchemaPicker chooses one schema (public by default). */
function SchemaPicker({ value, onChange }: { value: string; onChange: (s: string) => void }) {
  const schemas = useQuery({ queryKey: ['pg', 'schemas'], queryFn: () => api<Schema[]>('/pg/schemas') })
  return (
    <Select aria-label="Schema" className="max-w-48" value={value} onChange={(e) => onChange(e.target.value)}>
      {(schemas.data ?? [{ id: 0, name: value, owner: '' }]).map((s) => (
        <option key={s.id}>{s.name}</option>
      ))}
    </Select>
  )
}

type PgFunction = {
  id: number
  schema: string
  name: string
  language: string
  argument_types: string
  return_type: string
  behavior: string
  security_definer: boolean
  complete_statement: string | null
  kind: string
}

/** Functions lists one schema's functions; a click shows the definition. */
export function Functions() {
  const [schema, setSchema] = useState('public')
  const [search, setSearch] = useState('')
  const [shown, setShown] = useState<PgFunction | null>(null)
  const q = useQuery({ queryKey: ['pg', 'functions', schema], queryFn: () => api<PgFunction[]>(`/pg/functions?included_schemas=${encodeURIComponent(schema)}`) })
  const rows = q.data?.filter((f) => f.name.toLowerCase().includes(search.toLowerCase()))
  return (
    <>
      <div className="flex gap-2">
        <SchemaPicker value={schema} onChange={setSchema} />
        <Input className="max-w-xs" placeholder="Search functions" aria-label="Search functions" value={search} onChange={(e) => setSearch(e.target.value)} />
      </div>
      <ErrorText error={q.error} />
      <DataList
        label="Functions"
        rows={rows}
        rowKey={(f) => f.id}
        empty="No functions in this schema."
        onRowClick={setShown}
        columns={[
          {
            header: 'name',
            cell: (f) => (
              <span className="font-mono">
                {f.name}({f.argument_types})
              </span>
            ),
          },
          { header: 'returns', cell: (f) => <span className="font-mono">{f.return_type}</span> },
          { header: 'language', cell: (f) => f.language },
          { header: 'behaviour', cell: (f) => f.behavior.toLowerCase() },
          { header: 'security', cell: (f) => (f.security_definer ? <Badge tone="warn">definer</Badge> : 'invoker') },
        ]}
      />
      <Dialog open={!!shown} onOpenChange={(o) => !o && setShown(null)}>
        <DialogContent className="max-w-4xl" title={`${shown?.schema}.${shown?.name}`} description={`${shown?.kind} in ${shown?.language}`}>
          <pre className="grid-scroll max-h-[70vh] rounded-md bg-panel p-3 font-mono text-xs" data-testid="function-definition">
            {shown?.complete_statement}
          </pre>
        </DialogContent>
      </Dialog>
    </>
  )
}

/** Triggers lists the triggers of one schema's tables. */
export function Triggers() {
  const [schema, setSchema] = useState('public')
  const q = useQuery({ queryKey: ['pg', 'triggers', schema], queryFn: () => api<(Trigger & { schema: string; table: string })[]>(`/pg/triggers?included_schemas=${encodeURIComponent(schema)}`) })
  return (
    <>
      <SchemaPicker value={schema} onChange={setSchema} />
      <ErrorText error={q.error} />
      <DataList
        label="Triggers"
        rows={q.data}
        rowKey={(t) => t.id}
        empty="No triggers in this schema."
        columns={[
          { header: 'table', cell: (t) => <span className="font-mono">{t.table}</span> },
          { header: 'name', cell: (t) => <span className="font-mono">{t.name}</span> },
          { header: 'when', cell: (t) => `${t.activation} ${t.events.join(' OR ')}` },
          { header: 'for each', cell: (t) => t.orientation.toLowerCase() },
          { header: 'function', cell: (t) => <span className="font-mono">{`${t.function_schema}.${t.function_name}`}</span> },
          { header: 'enabled', cell: (t) => (t.enabled_mode === 'DISABLED' ? <Badge tone="warn">disabled</Badge> : <Badge tone="ok">{t.enabled_mode.toLowerCase()}</Badge>) },
        ]}
      />
    </>
  )
}

type Slot = {
  name: string
  plugin: string | null
  type: string
  database: string | null
  temporary: boolean
  active: boolean
  wal_status: string | null
  retained_bytes: number | null
  lag_bytes: number | null
}

/** Slots lists the replication slots and the WAL each holds back; an inactive one may be dropped. */
export function Slots() {
  const qc = useQueryClient()
  const q = useQuery({ queryKey: ['database', 'slots'], queryFn: () => api<Slot[]>('/api/database/replication-slots'), refetchInterval: 5000 })
  const [dropping, setDropping] = useState<Slot | null>(null)
  const drop = useMutation({
    mutationFn: (s: Slot) => api(`/api/database/replication-slots/${encodeURIComponent(s.name)}`, { method: 'DELETE' }),
    onSuccess: () => (setDropping(null), qc.invalidateQueries({ queryKey: ['database', 'slots'] })),
  })
  return (
    <>
      <ErrorText error={q.error} />
      <DataList
        label="Replication slots"
        rows={q.data}
        rowKey={(s) => s.name}
        empty="No replication slots."
        columns={[
          { header: 'name', cell: (s) => <span className="font-mono">{s.name}</span> },
          { header: 'type', cell: (s) => (s.plugin ? `${s.type} (${s.plugin})` : s.type) },
          { header: 'active', cell: (s) => (s.active ? <Badge tone="ok">active</Badge> : <Badge tone="warn">inactive</Badge>) },
          { header: 'WAL held', cell: (s) => (s.retained_bytes === null ? '–' : formatBytes(s.retained_bytes)) },
          { header: 'lag', cell: (s) => (s.lag_bytes === null ? '–' : formatBytes(s.lag_bytes)) },
          { header: 'WAL status', cell: (s) => s.wal_status ?? '–' },
          {
            header: '',
            cell: (s) =>
              !s.active && (
                <Button size="sm" variant="outline" aria-label={`Drop ${s.name}`} onClick={() => (drop.reset(), setDropping(s))}>
                  Drop
                </Button>
              ),
          },
        ]}
      />
      <ConfirmDialog
        open={!!dropping}
        title={`Drop replication slot ${dropping?.name}?`}
        description="Whatever reads this slot loses its place and must start again from a new one. The WAL it held is freed. The change is written to the audit log."
        confirm="Drop slot"
        pending={drop.isPending}
        error={drop.error}
        onCancel={() => setDropping(null)}
        onConfirm={() => dropping && drop.mutate(dropping)}
      />
    </>
  )
}
