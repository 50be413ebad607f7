import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'

/** useIsLiked reads whether the user has this track in favorites. */
export function useIsLiked(trackId: string | undefined, userId: string | undefined) {
  return useQuery({
    queryKey: ['favorite', trackId, userId],
    enabled: !!trackId && !!userId,
    queryFn: async () => {
      const { data, error } = await supabase().from('favorites').select('id').eq('track_id', trackId!).eq('user_id', userId!).maybeSingle()
      if (error) throw error
      return !!data
    },
  })
}

/** useToggleLike adds or removes a favorite and refreshes the favorites caches. */
export function useToggleLike(trackId: string | undefined, userId: string | undefined) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async (liked: boolean) => {
      if (!trackId || !userId) throw new Error('Sign in to like tracks')
      const sb = supabase()
      const { error } = liked
        ? await sb.from('favorites').delete().eq('track_id', trackId).eq('user_id', userId)
        : await sb.from('favorites').insert({ track_id: trackId, user_id: userId })
      if (error) throw error
      return !liked
    },
    onSuccess: (now) => {
      qc.setQueryData(['favorite', trackId, userId], now)
      void qc.invalidateQueries({ queryKey: ['favorites'] })
    },
  })
}
