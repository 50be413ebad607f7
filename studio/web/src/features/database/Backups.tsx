import { useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { api, ApiError } from '@/lib/api'
import { formatBytes } from '@/lib/utils'
import { Button } from '@/components/ui/button'
import { Input, Label } from '@/components/ui/input'
import { Card, ErrorText } from '@/components/ui/misc'
import { ConfirmDialog } from '@/components/ui/confirm-dialog'
import { DataList, when } from '@/components/ui/data-list'

type Backup = { name: string; created_at: string; basalt_version: string; postgres_version: string; database_bytes: number; objects: number; object_bytes: number }
type Restored = { database: string; storage: string; notes: string[] }

/** Backups runs `basalt backup`, lists the backups and restores one into a new database. */
export function Backups() {
  const qc = useQueryClient()
  const q = useQuery({ queryKey: ['database', 'backups'], queryFn: () => api<Backup[]>('/api/database/backups') })
  const [restoring, setRestoring] = useState<Backup | null>(null)
  const [target, setTarget] = useState('')
  const [restored, setRestored] = useState<Restored | null>(null)
  const run = useMutation({ mutationFn: () => api<Backup>('/api/database/backups', { method: 'POST' }), onSuccess: () => qc.invalidateQueries({ queryKey: ['database', 'backups'] }) })
  const restore = useMutation({
    mutationFn: (b: Backup) => api<Restored>(`/api/database/backups/${encodeURIComponent(b.name)}/restore`, { method: 'POST', json: { database: target } }),
    onSuccess: (r) => (setRestoring(null), setRestored(r)),
  })
  if (q.error instanceof ApiError && q.error.status === 501) return <p className="text-muted-foreground">{q.error.message}</p>
  return (
    <>
      <div className="flex items-center gap-3">
        <Button onClick={() => run.mutate()} disabled={run.isPending}>
          {run.isPending ? 'Backing up…' : 'Run backup'}
        </Button>
        <span className="text-xs text-muted-foreground">The database (pg_dump of one snapshot) and every storage object, with checksums: what basalt backup writes.</span>
      </div>
      <ErrorText error={q.error ?? run.error} />
      {restored && (
        <Card className="border-primary/50 text-xs" data-testid="restored">
          Restored into database <span className="font-mono">{restored.database}</span>, objects in <span className="font-mono">{restored.storage}</span>.
          {restored.notes.map((n) => (
            <div key={n} className="mt-1 text-warning">
              {n}
            </div>
          ))}
        </Card>
      )}
      <DataList
        label="Backups"
        rows={q.data}
        rowKey={(b) => b.name}
        empty="No backups yet."
        columns={[
          { header: 'backup', cell: (b) => <span className="font-mono">{b.name}</span> },
          { header: 'snapshot', cell: (b) => when(b.created_at) },
          { header: 'database', cell: (b) => formatBytes(b.database_bytes) },
          { header: 'objects', cell: (b) => `${b.objects} (${formatBytes(b.object_bytes)})` },
          { header: 'basalt', cell: (b) => b.basalt_version },
          {
            header: '',
            cell: (b) => (
              <Button size="sm" variant="outline" aria-label={`Restore ${b.name}`} onClick={() => (restore.reset(), setTarget(''), setRestoring(b))}>
                Restore…
              </Button>
            ),
          },
        ]}
      />
      <ConfirmDialog
        open={!!restoring}
        destructive={false}
        title={`Restore ${restoring?.name}?`}
        description="Into a new database of this cluster and a new object store under the data folder; the running project is not touched. The change is written to the audit log."
        confirm="Restore into a new database"
        pending={restore.isPending}
        error={restore.error}
        onCancel={() => setRestoring(null)}
        onConfirm={() => restoring && restore.mutate(restoring)}
      >
        <Label htmlFor="restore-db">New database name</Label>
        <Input id="restore-db" value={target} placeholder="restored_copy" onChange={(e) => setTarget(e.target.value)} />
      </ConfirmDialog>
    </>
  )
}
