import { useQuery } from '@tanstack/react-query'
import { useAuthStore } from '@/lib/auth'
import { supabase } from '@/lib/supabase'
import type { PublicProfile } from '@/types/api'

/** useOwnProfile reads the signed-in user's public profile (stale 2 min, kept 5 min). */
export function useOwnProfile() {
  const userId = useAuthStore((s) => s.user?.id)
  return useQuery({
    queryKey: ['ownProfile', userId],
    enabled: !!userId,
    staleTime: 2 * 60_000,
    gcTime: 5 * 60_000,
    queryFn: async () => {
      const { data, error } = await supabase()
        .from('public_profiles')
        .select('display_name, avatar_url, id, username, bio, is_verified, website, location, role')
        .eq('id', userId!)
        .maybeSingle()
      if (error) {
        // Profile load errors are logged and treated as empty data.
        console.warn('own profile', error.message)
        return null
      }
      return data as PublicProfile | null
    },
  })
}
