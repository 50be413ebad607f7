import { useQuery } from '@tanstack/react-query'
import { useAuthStore, useRoleSettled } from '@/lib/auth'
import { ownProfileQueryKey } from '@/lib/shell-keys'
import { supabase } from '@/lib/supabase'

export { ownProfileQueryKey }

/**
 * useOwnProfile reads the signed-in user's public profile (stale 2 min, kept
 * 5 min). It waits until the user's role is settled: the app shell's
 * bootstrap, which settles it, has seeded this cache by then.
 */
export function useOwnProfile() {
  const userId = useAuthStore((s) => s.user?.id)
  const settled = useRoleSettled()
  return useQuery({
    queryKey: ownProfileQueryKey(userId),
    enabled: !!userId && settled,
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
      return data
    },
  })
}
