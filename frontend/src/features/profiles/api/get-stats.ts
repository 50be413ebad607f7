import { queryOptions } from '@tanstack/react-query'
import type { Enums } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

/** PlatformStats are the home page's headline and platform numbers. */
export interface PlatformStats {
  artists: number
  sponsors: number
  fans: number
  tracks: number
  validStreams: number
  sponsoredStreams: number
  walletTotal: number
  paidOut: number
}

const zero: PlatformStats = { artists: 0, sponsors: 0, fans: 0, tracks: 0, validStreams: 0, sponsoredStreams: 0, walletTotal: 0, paidOut: 0 }

async function countRole(role: Enums<'app_role'>) {
  const { count, error } = await supabase().from('user_roles').select('user_id', { count: 'exact', head: true }).eq('role', role)
  if (error) throw error
  return count ?? 0
}

/**
 * getPlatformStats counts users per role, tracks and valid streams, and sums
 * NGN wallet balances and completed cash-outs. Any failing read counts as 0.
 */
export async function getPlatformStats(): Promise<PlatformStats> {
  const sb = supabase()
  // Preferred: the server's aggregate, which visitors may call without
  // seeing wallets or private stream columns.
  const rpc = await sb.rpc('get_platform_stats')
  if (!rpc.error && rpc.data) {
    const d = rpc.data as Record<string, number | string>
    const n = (k: string) => Number(d[k] ?? 0) || 0
    return {
      artists: n('artists'),
      sponsors: n('sponsors'),
      fans: n('fans'),
      tracks: n('total_tracks'),
      validStreams: n('total_streams'),
      sponsoredStreams: n('sponsored_streams'),
      walletTotal: n('total_wallet_balance'),
      paidOut: n('total_paid_out'),
    }
  }
  const safe = async <T,>(f: () => Promise<T>, fallback: T): Promise<T> => {
    try {
      return await f()
    } catch {
      return fallback
    }
  }
  const [artists, sponsors, fans, tracks, validStreams, sponsoredStreams, walletTotal, paidOut] = await Promise.all([
    safe(() => countRole('artist'), 0),
    safe(() => countRole('sponsor'), 0),
    safe(() => countRole('fan'), 0),
    safe(async () => {
      const { count, error } = await sb.from('tracks').select('id', { count: 'exact', head: true })
      if (error) throw error
      return count ?? 0
    }, 0),
    safe(async () => {
      // Streams are private to their fan: the tracks' counters are the public total.
      const { data, error } = await sb.from('tracks').select('streams')
      if (error) throw error
      return (data as { streams: number }[]).reduce((s, r) => s + Number(r.streams ?? 0), 0)
    }, 0),
    safe(async () => {
      const { data, error } = await sb.from('tracks').select('streams').eq('is_sponsored', true)
      if (error) throw error
      return (data as { streams: number }[]).reduce((s, r) => s + Number(r.streams ?? 0), 0)
    }, 0),
    safe(async () => {
      const { data, error } = await sb.from('wallets').select('balance').eq('currency', 'NGN')
      if (error) throw error
      return (data as { balance: number | string }[]).reduce((s, r) => s + Number(r.balance ?? 0), 0)
    }, 0),
    safe(async () => {
      const { data, error } = await sb.from('cashout_requests').select('amount').eq('status', 'completed')
      if (error) throw error
      return (data as { amount: number | string }[]).reduce((s, r) => s + Number(r.amount ?? 0), 0)
    }, 0),
  ])
  return { ...zero, artists, sponsors, fans, tracks, validStreams, sponsoredStreams, walletTotal, paidOut }
}

/** platformStatsQueryOptions: stale 5 min, refetched every 30 s (hero stats). */
export const platformStatsQueryOptions = () =>
  queryOptions({ queryKey: ['platformStats'], queryFn: getPlatformStats, staleTime: 5 * 60_000, refetchInterval: 30_000 })
