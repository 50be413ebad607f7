import { queryOptions, useQuery } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'
import { hydrateTracks, TRACK_COLUMNS } from '@/lib/tracks'
import type { TrackRow } from '@/types/api'

/** getFavoriteTracks lists the tracks a user has liked, newest like first. */
export async function getFavoriteTracks(userId: string) {
  const { data: favs, error } = await supabase().from('favorites').select('track_id').eq('user_id', userId).order('created_at', { ascending: false })
  if (error) throw error
  const ids = (favs as { track_id: string }[]).map((f) => f.track_id)
  if (ids.length === 0) return []
  const { data, error: e2 } = await supabase().from('tracks').select(TRACK_COLUMNS).in('id', ids)
  if (e2) throw e2
  const byId = new Map(data.map((r) => [r.id, r]))
  return hydrateTracks(ids.map((id) => byId.get(id)).filter((r): r is TrackRow => !!r))
}

/** favoritesQueryKey is the "favorites" cache of a user's liked tracks. */
export const favoritesQueryKey = (userId: string | undefined) => ['favorites', userId] as const

/** useFavoriteTracks reads the "favorites" cache. */
export const useFavoriteTracks = (userId: string | undefined) =>
  useQuery(queryOptions({ queryKey: favoritesQueryKey(userId), queryFn: () => getFavoriteTracks(userId!), enabled: !!userId }))
