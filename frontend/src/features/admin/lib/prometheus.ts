// A reader for the Prometheus text format Basalt's /metrics serves: enough
// for the system status page to show a few figures, not a full parser
// (no exemplars or timestamps are needed).

/** Sample is one series value with its labels. */
export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

const line = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/
const label = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** parseMetrics reads every sample of a /metrics body; comments and bad lines are skipped. */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = []
  for (const raw of text.split('\n')) {
    const l = raw.trim()
    if (!l || l.startsWith('#')) continue
    const m = line.exec(l)
    if (!m) continue
    const labels: Record<string, string> = {}
    for (const lm of (m[2] ?? '').matchAll(label)) labels[lm[1]] = lm[2].replace(/\\n/g, '\n').replace(/\\(.)/g, '$1')
    const value = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3])
    if (!Number.isNaN(value)) out.push({ name: m[1], labels, value })
  }
  return out
}

/** sumOf adds the samples of a series whose labels match every given label (undefined when there is none). */
export function sumOf(samples: readonly Sample[], name: string, match: Record<string, string | RegExp> = {}): number | undefined {
  let found = false
  let total = 0
  for (const s of samples) {
    if (s.name !== name) continue
    const ok = Object.entries(match).every(([k, v]) => (typeof v === 'string' ? s.labels[k] === v : v.test(s.labels[k] ?? '')))
    if (!ok) continue
    found = true
    total += s.value
  }
  return found ? total : undefined
}

/** BasaltFigures are the figures the status page shows from /metrics. */
export interface BasaltFigures {
  requests?: number
  serverErrors?: number
  inFlight?: number
  userPool?: { used?: number; max?: number }
  realtimeSockets?: number
  slotLagBytes?: number
  memoryBytes?: number
  startedAt?: Date
}

/** basaltFigures picks the status page's figures out of the samples. */
export function basaltFigures(samples: readonly Sample[]): BasaltFigures {
  const started = sumOf(samples, 'process_start_time_seconds')
  const lag = samples.filter((s) => s.name === 'basalt_realtime_slot_lag_bytes').map((s) => s.value)
  const requests = sumOf(samples, 'basalt_http_requests_total')
  return {
    requests,
    // No 5xx series yet means none were answered.
    serverErrors: requests === undefined ? undefined : (sumOf(samples, 'basalt_http_requests_total', { status: /^5/ }) ?? 0),
    inFlight: sumOf(samples, 'basalt_http_requests_in_flight'),
    userPool: {
      used: sumOf(samples, 'basalt_db_pool_acquired_connections', { pool: 'user' }),
      max: sumOf(samples, 'basalt_db_pool_max_connections', { pool: 'user' }),
    },
    realtimeSockets: sumOf(samples, 'basalt_realtime_sockets'),
    slotLagBytes: lag.length ? Math.max(...lag) : undefined,
    memoryBytes: sumOf(samples, 'process_resident_memory_bytes'),
    startedAt: started === undefined ? undefined : new Date(started * 1000),
  }
}

/** formatBytes renders a byte count with a binary unit ("1.5 MiB"). */
export function formatBytes(n: number | undefined | null): string {
  if (n === undefined || n === null || !Number.isFinite(n)) return '—'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = n
  let i = 0
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`
}
