import { useEffect } from 'react'
import { useQuery } from '@tanstack/react-query'
import { create } from 'zustand'
import { useLiveTable } from '@/hooks/use-live-table'
import { supabase } from '@/lib/supabase'

/** suspensionQueryKey is the cache key of a user's suspension. */
export const suspensionQueryKey = (userId: string | undefined) => ['suspension', userId] as const

/** SUSPENSION_POLL_MS is how often an open page rechecks its user's suspension while realtime is not joined. */
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

// Whether the suspension subscription is joined; polling stands in while it is not.
const useSuspensionLive = create<{ live: boolean }>(() => ({ live: false }))

/**
 * useSuspensionUpdates rechecks the signed-in user's suspension as soon as
 * the platform notifies them: admin_suspend_user and admin_unsuspend_user
 * each send the user a notification (their own row, which realtime delivers
 * to them alone; profiles are public, so they are not published). Mount it
 * once (the app root).
 */
export function useSuspensionUpdates(userId: string | undefined) {
  const live = useLiveTable('notifications', userId ? `user_id=eq.${userId}` : undefined, [suspensionQueryKey(userId)], { event: 'INSERT', name: 'suspension' })
  useEffect(() => useSuspensionLive.setState({ live }), [live])
}

/**
 * useSuspension keeps the signed-in user's suspension current, so a
 * suspended user's open pages switch to Account Suspended without a
 * reload: at once through useSuspensionUpdates, and every
 * SUSPENSION_POLL_MS while that subscription is not joined (realtime down
 * or reconnecting), and when the page becomes visible again.
 */
export function useSuspension(userId: string | undefined) {
  const live = useSuspensionLive((s) => s.live)
  return useQuery({
    queryKey: suspensionQueryKey(userId),
    enabled: !!userId,
    staleTime: SUSPENSION_POLL_MS,
    refetchInterval: live ? false : SUSPENSION_POLL_MS,
    refetchOnWindowFocus: true,
    queryFn: () => (userId ? fetchSuspension(userId) : Promise.resolve({ suspended: false, reason: null })),
  })
}
