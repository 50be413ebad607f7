import { queryOptions } from '@tanstack/react-query'
import { env } from '@/config/env'
import { supabase } from '@/lib/supabase'
import { basaltFigures, parseMetrics, type BasaltFigures } from '../lib/prometheus'
import { ADMIN_KEY, unwrap } from './rpc'

/** SystemStatus is admin_system_status' answer. */
export interface SystemStatus {
  database: { up: boolean; version: string; size_bytes: number; started_at: string; connections: number; max_connections: number }
  migrations: Record<string, { version: string; name: string; applied_at: string }> | null
  payments_pending: { count: number; oldest: string | null; older_than_hour: number }
  cashouts_pending: { count: number; amount: number }
  kyc_pending: number
  replication_slots: { name: string; active: boolean; plugin: string; lag_bytes: number | null }[] | null
  checked_at: string
}

// Status refreshes on its own while the page is open.
const REFRESH_MS = 30_000

/** systemStatusQuery reads the database side of system status. */
export const systemStatusQuery = () =>
  queryOptions({
    queryKey: [ADMIN_KEY, 'system'],
    refetchInterval: REFRESH_MS,
    retry: 0,
    queryFn: async () => unwrap(await supabase().rpc('admin_system_status')) as unknown as SystemStatus,
  })

/** Health is the gateway's GET /health answer. */
export interface Health {
  status: string
  version?: string
  httpStatus: number
}

/** healthQuery asks the API origin's /health (no key needed; 503 while the database is down). */
export const healthQuery = () =>
  queryOptions({
    queryKey: [ADMIN_KEY, 'health'],
    refetchInterval: REFRESH_MS,
    retry: 0,
    queryFn: async (): Promise<Health> => {
      const res = await fetch(new URL('/health', env().SUPABASE_URL), { cache: 'no-store' })
      const body = (await res.json().catch(() => ({}))) as { status?: string; version?: string }
      return { status: body.status ?? 'unknown', version: body.version, httpStatus: res.status }
    },
  })

/**
 * metricsQuery reads the API origin's Prometheus /metrics. A proxy may keep
 * /metrics off the public internet (deploy guide); then the figures are
 * simply unavailable.
 */
export const metricsQuery = () =>
  queryOptions({
    queryKey: [ADMIN_KEY, 'metrics'],
    refetchInterval: REFRESH_MS,
    retry: 0,
    queryFn: async (): Promise<BasaltFigures> => {
      const res = await fetch(new URL('/metrics', env().SUPABASE_URL), { cache: 'no-store' })
      if (!res.ok) throw new Error(`/metrics answered ${res.status}`)
      return basaltFigures(parseMetrics(await res.text()))
    },
  })
