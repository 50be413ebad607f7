import { useQuery } from '@tanstack/react-query'
import { useAuthStore } from '@/lib/auth'
import { supabase } from '@/lib/supabase'

/**
 * useOnlineUsers returns the set of online user ids, refreshed every 60 s
 * and stale after 30 s. Only signed-in viewers query it: online dots are
 * shown to logged-in users only.
 */
export function useOnlineUsers(): Set<string> {
  const signedIn = useAuthStore((s) => !!s.user)
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
  return signedIn && data ? data : new Set()
}
