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
  const list = notificationsQueryKey(userId)
  const unread = unreadCountQueryKey(userId)
  qc.setQueryData<Notification[]>(list, (old) => old && [n, ...old])
  if (!n.is_read) qc.setQueryData<number>(unread, (old) => (old === undefined ? old : old + 1))
  // A read in flight may have been answered before this row existed, and its
  // answer would overwrite the patch: cancel it and read again.
  for (const key of [list, unread]) {
    if (qc.isFetching({ queryKey: key, exact: true }) > 0) void qc.invalidateQueries({ queryKey: key, exact: true })
  }
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
