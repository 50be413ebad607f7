import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { Input, Label, Select } from '@/components/ui/input'
import { Badge, ErrorText } from '@/components/ui/misc'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { DataList } from '@/components/ui/data-list'
import type { Schema } from '@/lib/types'

type Extension = { name: string; schema: string | null; default_version: string; installed_version: string | null; comment: string | null }

/** Extensions lists the available extensions and enables or disables them, after a confirmation. */
export function Extensions() {
  const qc = useQueryClient()
  const q = useQuery({ queryKey: ['pg', 'extensions'], queryFn: () => api<Extension[]>('/pg/extensions') })
  const schemas = useQuery({ queryKey: ['pg', 'schemas'], queryFn: () => api<Schema[]>('/pg/schemas') })
  const [search, setSearch] = useState('')
  const [enabling, setEnabling] = useState<Extension | null>(null)
  const [schema, setSchema] = useState('extensions')
  const [disabling, setDisabling] = useState<Extension | null>(null)
  const [cascade, setCascade] = useState(false)
  const done = () => {
    setEnabling(null)
    setDisabling(null)
    setCascade(false)
    qc.invalidateQueries({ queryKey: ['pg'] })
  }
  const enable = useMutation({
    mutationFn: (e: Extension) => api('/pg/extensions', { method: 'POST', json: { name: e.name, schema, cascade: true } }),
    onSuccess: done,
  })
  const disable = useMutation({
    mutationFn: (e: Extension) => api(`/pg/extensions/${encodeURIComponent(e.name)}${cascade ? '?cascade=true' : ''}`, { method: 'DELETE' }),
    onSuccess: done,
  })
  const rows = q.data?.filter((e) => e.name.includes(search.toLowerCase()))
  return (
    <>
      <Input className="max-w-xs" placeholder="Search extensions" aria-label="Search extensions" value={search} onChange={(e) => setSearch(e.target.value)} />
      <ErrorText error={q.error} />
      <DataList
        label="Extensions"
        rows={rows}
        rowKey={(e) => e.name}
        empty="No extension matches."
        columns={[
          { header: 'name', cell: (e) => <span className="font-mono">{e.name}</span> },
          { header: 'status', cell: (e) => (e.installed_version ? <Badge tone="ok">enabled {e.installed_version}</Badge> : <Badge>available {e.default_version}</Badge>) },
          { header: 'schema', cell: (e) => e.schema ?? '' },
          { header: 'description', cell: (e) => <span className="text-muted-foreground">{e.comment}</span> },
          {
            header: '',
            cell: (e) =>
              e.installed_version ? (
                <Button size="sm" variant="outline" aria-label={`Disable ${e.name}`} onClick={() => (disable.reset(), setDisabling(e))}>
                  Disable
                </Button>
              ) : (
                <Button size="sm" aria-label={`Enable ${e.name}`} onClick={() => (enable.reset(), setEnabling(e))}>
                  Enable
                </Button>
              ),
          },
        ]}
      />
      <ConfirmDialog
        open={!!enabling}
        destructive={false}
        title={`Enable ${enabling?.name}?`}
        description="CREATE EXTENSION runs as the database owner, with the extensions it needs. The change is written to the audit log."
        confirm="Enable extension"
        pending={enable.isPending}
        error={enable.error}
        onCancel={() => setEnabling(null)}
        onConfirm={() => enabling && enable.mutate(enabling)}
      >
        <Label htmlFor="ext-schema">Schema</Label>
        <Select id="ext-schema" value={schema} onChange={(e) => setSchema(e.target.value)}>
          {(schemas.data ?? [{ id: 0, name: 'extensions', owner: '' }]).map((s) => (
            <option key={s.id}>{s.name}</option>
          ))}
        </Select>
      </ConfirmDialog>
      <ConfirmDialog
        open={!!disabling}
        title={`Disable ${disabling?.name}?`}
        description="DROP EXTENSION removes its functions and types. Objects that use them make PostgreSQL refuse, unless you drop them too. The change is written to the audit log."
        confirm="Disable extension"
        pending={disable.isPending}
        error={disable.error}
        onCancel={() => setDisabling(null)}
        onConfirm={() => disabling && disable.mutate(disabling)}
      >
        <label className="flex items-center gap-2 text-xs">
          <input type="checkbox" checked={cascade} onChange={(e) => setCascade(e.target.checked)} /> also drop every object that depends on it (CASCADE)
        </label>
      </ConfirmDialog>
    </>
  )
}
