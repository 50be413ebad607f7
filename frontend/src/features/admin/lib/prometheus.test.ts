import { describe, expect, it } from 'vitest'
import { basaltFigures, formatBytes, parseMetrics, sumOf } from './prometheus'

const body = `# HELP basalt_http_requests_total Requests answered.
# TYPE basalt_http_requests_total counter
basalt_http_requests_total{method="GET",service="rest",status="200"} 120
basalt_http_requests_total{method="POST",service="rest",status="500"} 3
basalt_http_requests_total{method="GET",service="auth",status="503"} 2
basalt_http_requests_in_flight{service="rest"} 1
basalt_db_pool_acquired_connections{pool="user"} 4
basalt_db_pool_acquired_connections{pool="admin"} 1
basalt_db_pool_max_connections{pool="user"} 20
basalt_realtime_slot_lag_bytes{slot="basalt_realtime"} 2048
process_resident_memory_bytes 5.24288e+07
process_start_time_seconds 1.7e+09
weird{label="with \\"quote\\" and , comma"} 7
not a metric line
`

describe('parseMetrics', () => {
  it('reads names, labels and values and skips comments', () => {
    const s = parseMetrics(body)
    expect(s.find((x) => x.name === 'weird')?.labels.label).toBe('with "quote" and , comma')
    expect(s.filter((x) => x.name === 'basalt_http_requests_total')).toHaveLength(3)
    expect(sumOf(s, 'process_resident_memory_bytes')).toBe(52428800)
  })
  it('sums by label match and tells a missing series', () => {
    const s = parseMetrics(body)
    expect(sumOf(s, 'basalt_http_requests_total')).toBe(125)
    expect(sumOf(s, 'basalt_http_requests_total', { status: /^5/ })).toBe(5)
    expect(sumOf(s, 'basalt_http_requests_total', { service: 'rest', status: '200' })).toBe(120)
    expect(sumOf(s, 'basalt_realtime_sockets')).toBeUndefined()
  })
})

describe('basaltFigures', () => {
  it('picks the status page figures; realtime sockets stay unknown until realtime runs', () => {
    const f = basaltFigures(parseMetrics(body))
    expect(f).toMatchObject({ requests: 125, serverErrors: 5, inFlight: 1, userPool: { used: 4, max: 20 }, slotLagBytes: 2048 })
    expect(f.realtimeSockets).toBeUndefined()
    expect(f.startedAt?.getTime()).toBe(1.7e12)
  })
  it('counts no server errors as zero once requests are counted, unknown before', () => {
    expect(basaltFigures(parseMetrics('basalt_http_requests_total{status="200"} 4\n')).serverErrors).toBe(0)
    expect(basaltFigures([]).serverErrors).toBeUndefined()
  })
})

describe('formatBytes', () => {
  it('uses binary units', () => {
    expect(formatBytes(512)).toBe('512 B')
    expect(formatBytes(1536)).toBe('1.5 KiB')
    expect(formatBytes(52428800)).toBe('50.0 MiB')
    expect(formatBytes(undefined)).toBe('—')
  })
})
