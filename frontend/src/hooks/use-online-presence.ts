import { useEffect } from 'react'
import type { RealtimeChannel } from '@supabase/supabase-js'
import { supabase, type Client } from '@/lib/supabase'
import { useOnlineStore } from './online-store'

/** ONLINE_CHANNEL is the one (private) presence channel every signed-in tab joins. */
export const ONLINE_CHANNEL = 'online-users'

export { useOnlineStore }

/** presentIds lists the user ids of a presence state: its keys, which on the private channel are the members' own ids (the server binds each presence to its joiner's sub), never a field of the tracked payload. */
export function presentIds(state: Record<string, unknown[]>): Set<string> {
  return new Set(Object.entries(state).filter(([, metas]) => metas.length > 0).map(([key]) => key))
}

/** OnlineClient is the part of the supabase client joinOnline uses. */
export type OnlineClient = Pick<Client, 'channel' | 'removeChannel'> & { realtime: Pick<Client['realtime'], 'setAuth'> }

/**
 * joinOnline joins the private presence channel as the signed-in user,
 * tracking them, and reports who is present on every sync; it returns the
 * function that leaves. Only signed-in users who are not suspended may
 * join and track (sql/app/0030), so the socket gets the user's session
 * (setAuth) before the join: the anon key would be refused.
 */
export function joinOnline(sb: OnlineClient, userId: string, onSync: (ids: Set<string>) => void): () => void {
  let closed = false
  let channel: RealtimeChannel | undefined
  void sb.realtime
    .setAuth()
    .catch(() => undefined)
    .then(() => {
      if (closed) return
      const ch = sb.channel(ONLINE_CHANNEL, { config: { private: true, presence: { key: userId } } })
      channel = ch
      ch.on('presence', { event: 'sync' }, () => onSync(presentIds(ch.presenceState()))).subscribe((status) => {
        if (status === 'SUBSCRIBED') void ch.track({ online_at: new Date().toISOString() })
      })
    })
  return () => {
    closed = true
    if (channel) void sb.removeChannel(channel)
  }
}

/**
 * useOnlinePresence joins the shared presence channel while a user is
 * signed in, tracking them under their id, and keeps useOnlineStore in sync
 * with who else is there. Mount it once (the app root).
 */
export function useOnlinePresence(userId: string | undefined) {
  useEffect(() => {
    const store = useOnlineStore.getState()
    if (!userId) {
      store.set(new Set())
      return
    }
    const leave = joinOnline(supabase(), userId, (ids) => store.set(ids))
    return () => {
      leave()
      store.set(new Set())
    }
  }, [userId])
}
