import { useQueryClient, type QueryClient } from '@tanstack/react-query'
import { useLiveTable } from '@/hooks/use-live-table'
import type { Notification } from '../api/notifications'
import { notificationsQueryKey, unreadCountQueryKey } from '../api/keys'

/**
 * addNotification puts a new notification into the caches: the list, when
 * the panel has loaded it (a list not loaded yet stays unloaded: the panel
 * reads it whole when it opens), and the badge's unread count.
 */
export function addNotification(qc: QueryClient, userId: string | undefined, n: Notification) {
  qc.setQueryData<Notification[]>(notificationsQueryKey(userId), (old) => old && [n, ...old])
  if (!n.is_read) qc.setQueryData<number>(unreadCountQueryKey(userId), (old) => (old === undefined ? old : old + 1))
}

/**
 * useNotificationsChannel adds new notifications to the caches as they are
 * inserted (both are refetched after a rejoin instead), and reports whether
 * the subscription is live.
 */
export function useNotificationsChannel(userId: string | undefined): boolean {
  const qc = useQueryClient()
  return useLiveTable('notifications', userId ? `user_id=eq.${userId}` : undefined, [notificationsQueryKey(userId)], {
    event: 'INSERT',
    refreshOnChange: false,
    onChange: (change) => addNotification(qc, userId, change.new as Notification),
  })
}
