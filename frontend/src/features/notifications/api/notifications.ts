import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'
import { NOTIFICATIONS_LIMIT, notificationsQueryKey, unreadCountQueryKey } from './keys'

/** Notification is a row of notifications. */
export interface Notification {
  id: string
  user_id: string
  type: string
  title: string
  message: string
  is_read: boolean
  created_at: string
  data: Record<string, unknown> | null
}

/** getNotifications reads the user's notifications, newest first; a failed fetch yields an empty list. */
export async function getNotifications(userId: string): Promise<Notification[]> {
  const { data, error } = await supabase().from('notifications').select('*').eq('user_id', userId).order('created_at', { ascending: false }).limit(NOTIFICATIONS_LIMIT)
  if (error) {
    console.warn('notifications', error.message)
    return []
  }
  return data as Notification[]
}

/** getUnreadCount counts the unread ones among the notifications the panel lists; a failed fetch counts none. */
export async function getUnreadCount(userId: string): Promise<number> {
  const { data, error } = await supabase().from('notifications').select('is_read').eq('user_id', userId).order('created_at', { ascending: false }).limit(NOTIFICATIONS_LIMIT)
  if (error) {
    console.warn('unread notifications', error.message)
    return 0
  }
  return (data as { is_read: boolean }[]).filter((n) => !n.is_read).length
}

/** useNotifications is the "notifications" cache, read once enabled (the panel opens). */
export const useNotifications = (userId: string | undefined, enabled = true) =>
  useQuery({ queryKey: notificationsQueryKey(userId), queryFn: () => getNotifications(userId!), enabled: !!userId && enabled, staleTime: 15_000 })

/** useUnreadCount is the badge's count while the list itself is not loaded. */
export const useUnreadCount = (userId: string | undefined, enabled: boolean) =>
  useQuery({ queryKey: unreadCountQueryKey(userId), queryFn: () => getUnreadCount(userId!), enabled: !!userId && enabled, staleTime: 15_000 })

/** useMarkRead marks one notification (or all unread when id is null) as read. */
export function useMarkRead(userId: string | undefined) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (id: string | null) => {
      let q = supabase().from('notifications').update({ is_read: true }).eq('user_id', userId!)
      q = id ? q.eq('id', id) : q.eq('is_read', false)
      const { error } = await q
      if (error) console.warn('mark read', error.message)
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: ['notifications', userId] }),
  })
}

/** useDeleteNotification deletes one of the user's notifications. */
export function useDeleteNotification(userId: string | undefined) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (id: string) => {
      const { error } = await supabase().from('notifications').delete().eq('id', id).eq('user_id', userId!)
      if (error) console.warn('delete notification', error.message)
    },
    onSuccess: () => qc.invalidateQueries({ queryKey: ['notifications', userId] }),
  })
}

/** useRespondToInvite accepts or declines a sponsorship invitation carried by a notification. */
export function useRespondToInvite(userId: string | undefined) {
  const qc = useQueryClient()
  return useMutation({
    retry: false,
    mutationFn: async ({ notification, accept }: { notification: Notification; accept: boolean }) => {
      const inviteId = notification.data?.invite_id
      if (typeof inviteId !== 'string' || !inviteId) throw new InviteError('Invalid invitation data')
      // The database answers the invite, marks the track sponsored on acceptance, and notifies the other side.
      const { error } = await supabase().rpc('respond_to_invite', { p_invite_id: inviteId, p_accept: accept })
      // An invite answered already (elsewhere, or twice) is refused by the database with a message to show.
      if (error) throw new InviteError(error.code === 'P0001' && error.message !== 'Invalid invitation data' ? error.message : 'Failed to process the invitation')
      await supabase().from('notifications').update({ is_read: true }).eq('id', notification.id).eq('user_id', userId!)
      return accept
    },
    onSuccess: () => {
      for (const key of ['notifications', 'inviteStates', 'tracks', 'artistTracks', 'sponsorProfile', 'artistWallet', 'sponsorWallet']) void qc.invalidateQueries({ queryKey: [key] })
    },
  })
}

/** InviteError carries the user-facing description of a failed invite action. */
export class InviteError extends Error {}

/** useInviteStates reads the current status of the invites the notifications carry (the parties may read them). */
export function useInviteStates(userId: string | undefined, ids: string[]) {
  const sorted = [...new Set(ids)].sort()
  return useQuery({
    queryKey: ['inviteStates', userId, sorted],
    enabled: !!userId && sorted.length > 0,
    staleTime: 15_000,
    queryFn: async () => {
      const { data, error } = await supabase().from('sponsor_artist_invites').select('id, status').in('id', sorted)
      if (error) return new Map<string, string>()
      return new Map((data as { id: string; status: string }[]).map((r) => [r.id, r.status]))
    },
  })
}
