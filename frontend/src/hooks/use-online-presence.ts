import { useEffect } from 'react'
import { create } from 'zustand'
import { supabase } from '@/lib/supabase'

/** ONLINE_CHANNEL is the one presence channel every signed-in tab joins. */
export const ONLINE_CHANNEL = 'online-users'

interface OnlineState {
  /** ids is who is present on the channel right now (live, from realtime presence). */
  ids: Set<string>
  set: (ids: Set<string>) => void
}

/** useOnlineStore holds the presence list, shared by every online dot. */
export const useOnlineStore = create<OnlineState>((set) => ({
  ids: new Set(),
  set: (ids) => set({ ids }),
}))

// The browser journeys read who is present without depending on where the
// dots are drawn.
declare global {
  interface Window {
    __backlineOnline?: () => string[]
  }
}
if (typeof window !== 'undefined') window.__backlineOnline = () => [...useOnlineStore.getState().ids]

/** presentIds lists the user ids of a presence state (keys are user ids). */
export function presentIds(state: Record<string, unknown[]>): Set<string> {
  return new Set(Object.entries(state).filter(([, metas]) => metas.length > 0).map(([key]) => key))
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
    const sb = supabase()
    const channel = sb.channel(ONLINE_CHANNEL, { config: { presence: { key: userId } } })
    channel
      .on('presence', { event: 'sync' }, () => store.set(presentIds(channel.presenceState())))
      .subscribe((status) => {
        if (status === 'SUBSCRIBED') void channel.track({ online_at: new Date().toISOString() })
      })
    return () => {
      void sb.removeChannel(channel)
      store.set(new Set())
    }
  }, [userId])
}
