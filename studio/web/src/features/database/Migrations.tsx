import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api } from '@/lib/api'
import { Badge, ErrorText } from '@/components/ui/misc'
import { DataList, when } from '@/components/ui/data-list'

type Migration = {
  source: string
  name: string
  version?: string
  repeatable: boolean
  status: 'applied' | 'pending' | 'changed' | 'edited' | 'missing'
  applied_at: string | null
  has_down: boolean
}

const tones = { applied: 'ok', pending: 'warn', changed: 'warn', edited: 'bad', missing: 'bad' } as const
const explain: Record<Migration['status'], string> = {
  applied: 'applied',
  pending: 'pending',
  changed: 'changed since applied: pending again',
  edited: 'EDITED after it was applied',
  missing: 'applied, but the file is gone',
}

/** Migrations is `basalt migrate status` as a screen. */
export function Migrations() {
  const q = useQuery({ queryKey: ['database', 'migrations'], queryFn: () => api<{ sources: string[]; pending: number; migrations: Migration[] }>('/api/database/migrations') })
  const [onlyPending, setOnlyPending] = useState(false)
  const rows = q.data?.migrations.filter((m) => !onlyPending || m.status !== 'applied')
  return (
    <>
      <ErrorText error={q.error} />
      {q.data && (
        <div className="flex items-center gap-3 text-sm">
          <span data-testid="migrations-pending">
            {q.data.pending === 0 ? 'Up to date: nothing pending.' : `${q.data.pending} pending: run basalt migrate up (basalt dev and serve apply them at start).`}
          </span>
          <span className="text-xs text-muted-foreground">sources: {q.data.sources.join(', ')}</span>
          <label className="ml-auto flex items-center gap-1.5 text-xs">
            <input type="checkbox" checked={onlyPending} onChange={(e) => setOnlyPending(e.target.checked)} /> only what is not applied
          </label>
        </div>
      )}
      <DataList
        label="Migrations"
        rows={rows}
        rowKey={(m) => `${m.source}/${m.name}`}
        empty="Nothing to show."
        columns={[
          { header: 'source', cell: (m) => m.source },
          { header: 'migration', cell: (m) => <span className="font-mono">{m.name}</span> },
          { header: 'kind', cell: (m) => (m.repeatable ? 'repeatable' : m.has_down ? 'numbered, with down' : 'numbered') },
          { header: 'status', cell: (m) => <Badge tone={tones[m.status]}>{explain[m.status]}</Badge> },
          { header: 'applied at', cell: (m) => when(m.applied_at) },
        ]}
      />
    </>
  )
}
