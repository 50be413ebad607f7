import { useQuery } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'

/**
 * suspensionQueryKey is the cache key of a user's suspension. A realtime
 * subscription to the user's profile row can invalidate (or set) it, so an
 * admin's suspension reaches open pages at once; until then the query polls.
 */
export const suspensionQueryKey = (userId: string | undefined) => ['suspension', userId] as const

/** SUSPENSION_POLL_MS is how often an open page rechecks whether its user was suspended. */
export const SUSPENSION_POLL_MS = 10_000

/** Suspension is whether a user is suspended, and why. */
export interface Suspension {
  suspended: boolean
  reason: string | null
}

/** fetchSuspension calls is_user_suspended, then reads suspended_reason (spec section 4); errors read as not suspended. */
export async function fetchSuspension(userId: string): Promise<Suspension> {
  const sb = supabase()
  const { data, error } = await sb.rpc('is_user_suspended', { p_user_id: userId })
  if (error || data !== true) return { suspended: false, reason: null }
  const { data: p } = await sb.from('public_profiles').select('suspended_reason').eq('id', userId).maybeSingle()
  return { suspended: true, reason: p?.suspended_reason ?? null }
}

/**
 * useSuspension keeps the signed-in user's suspension current: rechecked
 * every SUSPENSION_POLL_MS while the page is visible and when it becomes
 * visible again, so a suspended user's open pages switch to Account
 * Suspended without a reload.
 */
export function useSuspension(userId: string | undefined) {
  return useQuery({
    queryKey: suspensionQueryKey(userId),
    enabled: !!userId,
    staleTime: SUSPENSION_POLL_MS,
    refetchInterval: SUSPENSION_POLL_MS,
    refetchOnWindowFocus: true,
    queryFn: () => (userId ? fetchSuspension(userId) : Promise.resolve({ suspended: false, reason: null })),
  })
}
