import { useQuery } from '@tanstack/react-query'
import { formatNaira } from '@/lib/format'
import { errorMessage } from '../api/rpc'
import { healthQuery, metricsQuery, systemStatusQuery } from '../api/system'
import { formatDateTime } from '../lib/dates'
import { formatBytes } from '../lib/prometheus'
import { Stat } from './fields'

const n = (v: number | undefined) => (v === undefined ? '—' : new Intl.NumberFormat('en-NG').format(v))

/**
 * SystemSection shows the database (from the database itself), Basalt's
 * /health and a few /metrics figures (read from the API origin), and the
 * queues waiting on people or payment providers. It refreshes every 30 s.
 */
export function SystemSection() {
  const status = useQuery(systemStatusQuery())
  const health = useQuery(healthQuery())
  const metrics = useQuery(metricsQuery())
  const s = status.data
  const m = metrics.data
  const dbUp = !!s?.database.up && !status.error
  const app = s?.migrations?.app
  const platform = s?.migrations?.platform
  const slots = s?.replication_slots ?? []
  return (
    <div className="grid gap-6">
      <section>
        <h2 className="mb-2 text-lg font-semibold">Database</h2>
        <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
          <Stat
            testId="system-database"
            label="Database"
            value={status.isLoading ? '—' : dbUp ? 'Healthy' : 'Unavailable'}
            tone={status.isLoading ? undefined : dbUp ? 'good' : 'bad'}
            hint={status.error ? errorMessage(status.error) : s ? `PostgreSQL ${s.database.version}` : undefined}
          />
          <Stat label="Size" value={formatBytes(s?.database.size_bytes)} hint={s ? `up since ${formatDateTime(s.database.started_at)}` : undefined} />
          <Stat label="Connections" value={s ? `${s.database.connections} / ${s.database.max_connections}` : '—'} />
          <Stat label="Migrations" value={app ? app.version : '—'} hint={app ? `${app.name}${platform ? ` · platform ${platform.version}` : ''}` : undefined} />
        </div>
      </section>
      <section>
        <h2 className="mb-2 text-lg font-semibold">Basalt</h2>
        <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
          <Stat
            testId="system-health"
            label="API health"
            value={health.isLoading ? '—' : health.data?.status === 'ok' ? 'OK' : (health.data?.status ?? 'Unreachable')}
            tone={health.isLoading ? undefined : health.data?.status === 'ok' ? 'good' : 'bad'}
            hint={health.data?.version ? `version ${health.data.version}` : undefined}
          />
          <Stat label="Requests served" value={n(m?.requests)} hint={m ? `${n(m.serverErrors)} server errors · ${n(m.inFlight)} in flight` : metrics.error ? 'metrics not reachable' : undefined} />
          <Stat label="Database pool" value={m?.userPool?.max ? `${n(m.userPool.used)} / ${n(m.userPool.max)}` : '—'} hint={m?.memoryBytes ? `${formatBytes(m.memoryBytes)} resident` : undefined} />
          <Stat
            label="Realtime"
            value={m?.realtimeSockets === undefined ? 'Not running' : `${n(m.realtimeSockets)} ${m.realtimeSockets === 1 ? 'socket' : 'sockets'}`}
            hint={slots.length ? slots.map((sl) => `${sl.name}: ${formatBytes(sl.lag_bytes)} behind`).join(' · ') : m?.slotLagBytes !== undefined ? `slot lag ${formatBytes(m.slotLagBytes)}` : 'no replication slot'}
          />
        </div>
      </section>
      <section>
        <h2 className="mb-2 text-lg font-semibold">Waiting</h2>
        <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
          <Stat
            label="Payments awaiting verification"
            value={n(s?.payments_pending.count)}
            tone={s && s.payments_pending.older_than_hour > 0 ? 'bad' : undefined}
            hint={s?.payments_pending.oldest ? `oldest ${formatDateTime(s.payments_pending.oldest)} · ${s.payments_pending.older_than_hour} over an hour` : undefined}
          />
          <Stat label="Cash-outs pending" value={n(s?.cashouts_pending.count)} hint={s ? formatNaira(Number(s.cashouts_pending.amount)) : undefined} />
          <Stat label="KYC to review" value={n(s?.kyc_pending)} />
          <Stat label="Checked" value={s ? formatDateTime(s.checked_at) : '—'} hint="refreshes every 30 s" />
        </div>
      </section>
    </div>
  )
}
