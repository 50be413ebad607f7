import { useQueryClient } from '@tanstack/react-query'
import { useLiveTable } from '@/hooks/use-live-table'
import type { Notification } from '../api/notifications'

/**
 * useNotificationsChannel prepends new notifications to the cache as they are
 * inserted (the list is refetched after a rejoin instead), and reports
 * whether the subscription is live.
 */
export function useNotificationsChannel(userId: string | undefined): boolean {
  const qc = useQueryClient()
  return useLiveTable('notifications', userId ? `user_id=eq.${userId}` : undefined, [['notifications', userId]], {
    event: 'INSERT',
    refreshOnChange: false,
    onChange: (change) => qc.setQueryData<Notification[]>(['notifications', userId], (old) => [change.new as Notification, ...(old ?? [])]),
  })
}
