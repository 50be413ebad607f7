import { useRef } from 'react'
import { useQuery } from '@tanstack/react-query'
import { api } from '@/lib/api'
import { formatBytes, formatCount } from '@/lib/utils'
import { Badge, Card, ErrorText } from '@/components/ui/misc'

type Counters = { total: number; errors_5xx: number; errors_4xx: number; in_flight: number }
type HomeData = {
  at: string
  services: { name: string; up: boolean; status: number; latency_ms: number; detail?: string }[]
  requests: Record<string, Counters>
  process: Record<string, number>
  database: {
    name: string
    size_bytes: number
    version: string
    max_connections: number
    connections: number
    active: number
    idle: number
    idle_in_transaction: number
    started_at: string
  }
}

type Rates = Record<string, { rps: number; errors: number }>

/** rates turns two readings of the counters into per-second rates. */
function rates(prev: HomeData | undefined, cur: HomeData): Rates | null {
  if (!prev) return null
  const dt = (Date.parse(cur.at) - Date.parse(prev.at)) / 1000
  if (dt <= 0) return null
  const out: Rates = {}
  for (const [svc, c] of Object.entries(cur.requests)) {
    const p = prev.requests[svc] ?? { total: 0, errors_5xx: 0 }
    out[svc] = { rps: Math.max(0, c.total - p.total) / dt, errors: Math.max(0, c.errors_5xx - p.errors_5xx) / dt }
  }
  return out
}

/** Home shows the health of every service, request rates and errors, and the database. */
export default function Home() {
  const prev = useRef<HomeData | undefined>(undefined)
  const last = useRef<Rates | null>(null)
  const q = useQuery({
    queryKey: ['home'],
    queryFn: async () => {
      const d = await api<HomeData>('/api/home')
      last.current = rates(prev.current, d) ?? last.current
      prev.current = d
      return d
    },
    refetchInterval: 5000,
    staleTime: 0,
  })
  const d = q.data
  const r = last.current
  return (
    <div className="grid-scroll flex-1 p-6">
      <h1 className="mb-4 text-lg font-semibold">Home</h1>
      <ErrorText error={q.error} />
      {d && (
        <div className="flex flex-col gap-6">
          <section>
            <h2 className="mb-2 text-xs font-semibold uppercase tracking-wide text-muted-foreground">Services</h2>
            <div className="grid grid-cols-2 gap-3 lg:grid-cols-3 xl:grid-cols-6">
              {d.services.map((s) => {
                const c = d.requests[s.name]
                const rate = r?.[s.name]
                return (
                  <Card key={s.name} data-testid={`service-${s.name}`} className="flex flex-col gap-1">
                    <div className="flex items-center justify-between">
                      <span className="font-medium capitalize">{s.name}</span>
                      <Badge tone={s.up ? 'ok' : 'bad'}>{s.up ? 'healthy' : 'down'}</Badge>
                    </div>
                    <div className="text-xs text-muted-foreground">probe {s.latency_ms.toFixed(1)} ms · HTTP {s.status}</div>
                    <div className="mt-2 text-xl font-semibold">{rate ? rate.rps.toFixed(1) : '–'}<span className="text-xs font-normal text-muted-foreground"> req/s</span></div>
                    <div className="text-xs text-muted-foreground">
                      {c ? `${formatCount(c.total)} requests · ${formatCount(c.errors_5xx)} 5xx · ${formatCount(c.errors_4xx)} 4xx` : 'no requests yet'}
                    </div>
                    {rate && rate.errors > 0 && <div className="text-xs text-destructive">{rate.errors.toFixed(2)} errors/s</div>}
                    {!s.up && s.detail && <div className="truncate text-xs text-destructive" title={s.detail}>{s.detail}</div>}
                  </Card>
                )
              })}
            </div>
          </section>
          <section>
            <h2 className="mb-2 text-xs font-semibold uppercase tracking-wide text-muted-foreground">Database</h2>
            <div className="grid grid-cols-2 gap-3 lg:grid-cols-4">
              <Stat label="Database size" value={formatBytes(d.database.size_bytes)} note={`${d.database.name} · PostgreSQL ${d.database.version.split(' ')[0]} · up since ${new Date(d.database.started_at).toLocaleString()}`} />
              <Stat label="Connections" value={`${d.database.connections} / ${d.database.max_connections}`} note={`${d.database.active} active · ${d.database.idle} idle · ${d.database.idle_in_transaction} idle in transaction`} />
              <Stat label="Realtime" value={`${d.process.basalt_realtime_sockets ?? 0} sockets`} note={`replication slot lag ${formatBytes(d.process.basalt_realtime_slot_lag_bytes ?? 0)}`} />
              <Stat label="This node" value={formatBytes(d.process.process_resident_memory_bytes ?? 0)} note={`memory in use · ${d.process.go_goroutines ?? 0} goroutines`} />
            </div>
          </section>
          <p className="text-xs text-muted-foreground">Figures from this node's /metrics and PostgreSQL, read every 5 seconds; rates are the change between two readings.</p>
        </div>
      )}
    </div>
  )
}

function Stat({ label, value, note }: { label: string; value: string; note: string }) {
  return (
    <Card className="flex flex-col gap-1">
      <span className="text-xs text-muted-foreground">{label}</span>
      <span className="text-xl font-semibold">{value}</span>
      <span className="text-xs text-muted-foreground">{note}</span>
    </Card>
  )
}
