import { useEffect, useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
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
    const channel = sb
      .channel(`notifications:${userId}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'notifications', filter: `user_id=eq.${userId}` }, (payload) => {
        qc.setQueryData<Notification[]>(['notifications', userId], (old) => [payload.new as Notification, ...(old ?? [])])
      })
      .subscribe((status) => setLive(status === 'SUBSCRIBED'))
    return () => {
      void sb.removeChannel(channel)
    }
  }, [qc, userId])
  return live
}
