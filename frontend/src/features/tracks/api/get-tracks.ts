import { queryOptions, useQuery } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'
import { hydrateTracks, TRACK_COLUMNS } from '@/lib/tracks'

/** TrackFilter selects a list of tracks. */
export interface TrackFilter {
  order?: 'popular' | 'recent'
  limit?: number
  artistId?: string
  sponsorId?: string
  genre?: string
}

/** getTracks lists tracks with artist and sponsor display data. */
export async function getTracks(f: TrackFilter = {}) {
  let q = supabase().from('tracks').select(TRACK_COLUMNS)
  if (f.artistId) q = q.eq('artist_id', f.artistId)
  if (f.sponsorId) q = q.eq('sponsor_id', f.sponsorId).eq('is_sponsored', true)
  if (f.genre) q = q.eq('genre', f.genre)
  q = f.order === 'popular' ? q.order('streams', { ascending: false }).order('created_at', { ascending: false }) : q.order('created_at', { ascending: false })
  const { data, error } = await q.limit(f.limit ?? 24)
  if (error) throw error
  return hydrateTracks(data)
}

/** getTracksByIdsQueryOptions reads the tracks with these ids (a listening history's), as the player plays them. */
export const getTracksByIdsQueryOptions = (ids: string[]) =>
  queryOptions({
    queryKey: ['tracks', 'byId', [...new Set(ids)].sort()],
    enabled: ids.length > 0,
    staleTime: 30_000,
    queryFn: async () => {
      const { data, error } = await supabase().from('tracks').select(TRACK_COLUMNS).in('id', [...new Set(ids)])
      if (error) throw error
      return new Map((await hydrateTracks(data)).map((t) => [t.id, t]))
    },
  })

/** getTracksQueryOptions: the "tracks" cache, stale after 30 s. */
export const getTracksQueryOptions = (f: TrackFilter = {}) =>
  queryOptions({ queryKey: ['tracks', f], queryFn: () => getTracks(f), staleTime: 30_000 })

/** useTracks reads a track list. */
export const useTracks = (f: TrackFilter = {}) => useQuery(getTracksQueryOptions(f))

/** getChartTracks ranks every track by streams for /charts. */
export const getChartTracksQueryOptions = (genre?: string) =>
  queryOptions({ queryKey: ['chartTracks', genre ?? 'all'], queryFn: () => getTracks({ order: 'popular', limit: 50, genre }), staleTime: 30_000 })
