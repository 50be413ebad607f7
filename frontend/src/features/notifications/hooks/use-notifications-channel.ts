import { useEffect, useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import type { RealtimeChannel } from '@supabase/supabase-js'
import { supabase } from '@/lib/supabase'
import type { Notification } from '../api/notifications'

/**
 * useNotificationsChannel prepends new notifications to the cache as they are
 * inserted, and reports whether the subscription is live.
 */
export function useNotificationsChannel(userId: string | undefined): boolean {
  const qc = useQueryClient()
  const [live, setLive] = useState(false)
  useEffect(() => {
    setLive(false)
    if (!userId) return
    const sb = supabase()
    let channel: RealtimeChannel | undefined
    let cancelled = false
    // Row-level security decides which inserts reach this subscriber, by the
    // token the join carries: hand the socket the user's session first, or
    // a join made right after sign-in may still carry the anon key.
    void sb.realtime.setAuth().then(() => {
      if (cancelled) return
      channel = sb
        .channel(`notifications:${userId}`)
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'notifications', filter: `user_id=eq.${userId}` }, (payload) => {
          qc.setQueryData<Notification[]>(['notifications', userId], (old) => [payload.new as Notification, ...(old ?? [])])
        })
        .subscribe((status) => setLive(status === 'SUBSCRIBED'))
    })
    return () => {
      cancelled = true
      if (channel) void sb.removeChannel(channel)
    }
  }, [qc, userId])
  return live
}
