import { useMemo } from 'react'
import { useQuery } from '@tanstack/react-query'
import { useAuthStore } from '@/lib/auth'
import { supabase } from '@/lib/supabase'
import { useOnlineStore } from './online-store'

/**
 * useOnlineUsers returns the set of online user ids: who is present on the
 * shared realtime presence channel (live), together with the
 * get_online_users RPC (session heartbeats of the last minutes, refreshed
 * every 60 s), which still covers clients without a websocket. Only
 * signed-in viewers see it: online dots are shown to logged-in users only.
 */
export function useOnlineUsers(): Set<string> {
  const signedIn = useAuthStore((s) => !!s.user)
  const present = useOnlineStore((s) => s.ids)
  const { data } = useQuery({
    queryKey: ['onlineUsers'],
    enabled: signedIn,
    staleTime: 30_000,
    refetchInterval: 60_000,
    queryFn: async () => {
      const { data, error } = await supabase().rpc('get_online_users')
      if (error) throw error
      return new Set(((data ?? []) as { user_id: string }[]).map((r) => r.user_id))
    },
  })
  return useMemo(() => (signedIn ? new Set([...(data ?? []), ...present]) : new Set<string>()), [signedIn, data, present])
}
