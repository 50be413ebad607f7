import { queryOptions } from '@tanstack/react-query'
import { cacheProfiles } from '@/lib/query-client'
import { supabase } from '@/lib/supabase'
import type { ArtistProfile, PublicProfile } from '@/types/api'

// Home's Top Artists and Top Fans (and the artist list they come from), apart
// from the other profile reads: home's first paint starts these.

export const PROFILE_COLUMNS = 'id, display_name, username, avatar_url, bio, location, is_verified, website, role'
const ARTIST_COLUMNS = 'id, name, track_count, stream_count, avatar_url, genres, kyc_status, kyc_expiry_date, location, created_at'

/** ArtistSummary joins the artist_profiles columns a card reads with public display data. */
export type ArtistSummary = Pick<ArtistProfile, 'id' | 'name' | 'track_count' | 'stream_count' | 'avatar_url' | 'genres' | 'kyc_status' | 'kyc_expiry_date' | 'location' | 'created_at'> &
  Pick<PublicProfile, 'display_name' | 'username' | 'bio' | 'is_verified'>

/** publicById reads the public profiles of ids, by id. */
export async function publicById(ids: string[]) {
  if (ids.length === 0) return new Map<string, PublicProfile>()
  const { data, error } = await supabase().from('public_profiles').select(PROFILE_COLUMNS).in('id', ids)
  if (error) throw error
  return new Map(data.map((p) => [p.id, p]))
}

/** getArtists lists artists, newest first, with display data. */
export async function getArtists(limit = 60): Promise<ArtistSummary[]> {
  const { data, error } = await supabase()
    .from('artist_profiles')
    .select(ARTIST_COLUMNS)
    .order('created_at', { ascending: false })
    .limit(limit)
  if (error) throw error
  const pub = await publicById(data.map((r) => r.id))
  return data.map((r) => {
    const p = pub.get(r.id)
    return {
      ...r,
      display_name: p?.display_name ?? r.name,
      username: p?.username ?? null,
      bio: p?.bio ?? null,
      is_verified: p?.is_verified ?? false,
      avatar_url: p?.avatar_url ?? r.avatar_url ?? null,
      location: r.location ?? p?.location ?? null,
    }
  })
}

/**
 * getTopArtists fetches the 20 newest artist profiles, sorts them by total
 * streams and keeps the top 8. Failures return an empty list.
 */
export async function getTopArtists(): Promise<ArtistSummary[]> {
  try {
    const artists = await getArtists(20)
    return artists.sort((a, b) => (b.stream_count ?? 0) - (a.stream_count ?? 0)).slice(0, 8)
  } catch (e) {
    console.warn('top artists', e)
    return []
  }
}

/** FanSummary is a fan card's data. */
export interface FanSummary {
  id: string
  display_name: string | null
  username: string | null
  avatar_url: string | null
  streamCount: number
}

/**
 * getTopFans ranks fans by their count of valid streams (role fan only), top 8,
 * through get_top_fans: streams are private to their fan, so the ranking is
 * the server's aggregate. Failures return an empty list.
 */
export async function getTopFans(): Promise<FanSummary[]> {
  try {
    const rpc = await supabase().rpc('get_top_fans', { p_limit: 8 })
    if (rpc.error) throw rpc.error
    return (rpc.data ?? []).map((r) => ({
      id: r.user_id,
      display_name: r.display_name,
      username: r.username,
      avatar_url: r.avatar_url,
      streamCount: Number(r.stream_count),
    }))
  } catch (e) {
    console.warn('top fans', e)
    return []
  }
}

export const topArtistsQueryOptions = () => queryOptions({ queryKey: ['topArtists'], queryFn: getTopArtists, staleTime: 5 * 60_000 })
export const topFansQueryOptions = () => queryOptions({ queryKey: ['topFans'], queryFn: getTopFans, ...cacheProfiles.static })
