// The notifications caches' keys, apart from the calls, so the app shell can
// seed the badge's count without loading the panel's code.

/** NOTIFICATIONS_LIMIT is how many of the newest notifications the panel lists (and the badge counts). */
export const NOTIFICATIONS_LIMIT = 200

/** notificationsQueryKey is the "notifications" cache; the unread count's key extends it, so one invalidation refreshes both. */
export const notificationsQueryKey = (userId: string | undefined) => ['notifications', userId] as const

/** unreadCountQueryKey is the cache of the badge's count (the app shell's bootstrap seeds it). */
export const unreadCountQueryKey = (userId: string | undefined) => ['notifications', userId, 'unread'] as const
