import { useEffect } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'
import type { Notification } from '../api/notifications'

/** useNotificationsChannel prepends new notifications to the cache as they are inserted. */
export function useNotificationsChannel(userId: string | undefined) {
  const qc = useQueryClient()
  useEffect(() => {
    if (!userId) return
    const sb = supabase()
    const channel = sb
      .channel(`notifications:${userId}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'notifications', filter: `user_id=eq.${userId}` }, (payload) => {
        qc.setQueryData<Notification[]>(['notifications', userId], (old) => [payload.new as Notification, ...(old ?? [])])
      })
      .subscribe()
    return () => {
      void sb.removeChannel(channel)
    }
  }, [qc, userId])
}
