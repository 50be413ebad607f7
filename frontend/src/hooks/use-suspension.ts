import { useEffect, useRef } from 'react'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { create } from 'zustand'
import { useLiveTable } from '@/hooks/use-live-table'
import { useRoleSettled } from '@/lib/auth'
import { suspensionQueryKey, type Suspension } from '@/lib/shell-keys'
import { supabase } from '@/lib/supabase'

export { suspensionQueryKey, type Suspension }

/** SUSPENSION_POLL_MS is how often an open page rechecks its user's suspension while realtime is not joined. */
export const SUSPENSION_POLL_MS = 10_000

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
 * to them alone; profiles are public, so they are not published), and the
 * suspension closes the user's channels, which is checked at once too.
 * Mount it once (the app root).
 */
export function useSuspensionUpdates(userId: string | undefined) {
  const qc = useQueryClient()
  const live = useLiveTable('notifications', userId ? `user_id=eq.${userId}` : undefined, [suspensionQueryKey(userId)], { event: 'INSERT', name: 'suspension' })
  const wasLive = useRef(false)
  useEffect(() => {
    useSuspensionLive.setState({ live })
    // Suspending a user closes their channels (they are private): check at
    // once rather than at the next poll.
    if (wasLive.current && !live) void qc.invalidateQueries({ queryKey: suspensionQueryKey(userId) })
    wasLive.current = live
  }, [live, qc, userId])
}

/**
 * useSuspension keeps the signed-in user's suspension current, so a
 * suspended user's open pages switch to Account Suspended without a
 * reload: at once through useSuspensionUpdates, and every
 * SUSPENSION_POLL_MS while that subscription is not joined (realtime down
 * or reconnecting), and when the page becomes visible again. The first
 * answer comes with the app shell's bootstrap, which settles the role: the
 * query waits for it.
 */
export function useSuspension(userId: string | undefined) {
  const live = useSuspensionLive((s) => s.live)
  const settled = useRoleSettled()
  return useQuery({
    queryKey: suspensionQueryKey(userId),
    enabled: !!userId && settled,
    staleTime: SUSPENSION_POLL_MS,
    refetchInterval: live ? false : SUSPENSION_POLL_MS,
    refetchOnWindowFocus: true,
    queryFn: () => (userId ? fetchSuspension(userId) : Promise.resolve({ suspended: false, reason: null })),
  })
}
