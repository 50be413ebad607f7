import { queryOptions, useQuery } from '@tanstack/react-query'
import { cacheProfiles } from '@/lib/query-client'
import type { Enums } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'
import type { ArtistProfile, PublicProfile, SponsorProfile } from '@/types/api'

const PROFILE_COLUMNS = 'id, display_name, username, avatar_url, bio, location, is_verified, website, role'
const ARTIST_COLUMNS = 'id, name, track_count, stream_count, avatar_url, genres, kyc_status, kyc_expiry_date, location, created_at'
const SPONSOR_COLUMNS = 'id, name, avatar_url, bio, company_name, website'

/** ArtistSummary joins the artist_profiles columns a card reads with public display data. */
export type ArtistSummary = Pick<ArtistProfile, 'id' | 'name' | 'track_count' | 'stream_count' | 'avatar_url' | 'genres' | 'kyc_status' | 'kyc_expiry_date' | 'location' | 'created_at'> &
  Pick<PublicProfile, 'display_name' | 'username' | 'bio' | 'is_verified'>

async function publicById(ids: string[]) {
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
      avatar_url: r.avatar_url ?? p?.avatar_url ?? null,
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

/** SponsorSummary is the sponsor_profiles columns a card reads with public display data. */
export type SponsorSummary = Pick<SponsorProfile, 'id' | 'name' | 'avatar_url' | 'bio' | 'company_name' | 'website'> & Pick<PublicProfile, 'display_name' | 'username' | 'is_verified'>

/** getSponsors lists sponsors with display data. */
export async function getSponsors(): Promise<SponsorSummary[]> {
  const { data, error } = await supabase().from('sponsor_profiles').select(SPONSOR_COLUMNS).limit(60)
  if (error) throw error
  const pub = await publicById(data.map((r) => r.id))
  return data.map((r) => {
    const p = pub.get(r.id)
    return { ...r, display_name: p?.display_name ?? r.name, username: p?.username ?? null, is_verified: p?.is_verified ?? false, avatar_url: r.avatar_url ?? p?.avatar_url ?? null }
  })
}

/** getPublicProfiles lists profiles for Discover, optionally filtered by role and a search term. */
export async function getPublicProfiles(role?: Enums<'app_role'> | 'all', search?: string): Promise<PublicProfile[]> {
  let q = supabase().from('public_profiles').select(PROFILE_COLUMNS)
  if (role && role !== 'all') q = q.eq('role', role)
  if (search) q = q.or(`display_name.ilike.%${search.replace(/[%,()]/g, '')}%,username.ilike.%${search.replace(/[%,()]/g, '')}%`)
  const { data, error } = await q.neq('role', 'admin').order('created_at', { ascending: false }).limit(60)
  if (error) throw error
  return data
}

/** getProfile reads one public profile by username or id; null when absent. */
export async function getProfile(by: { username?: string; id?: string }): Promise<PublicProfile | null> {
  let q = supabase().from('public_profiles').select(PROFILE_COLUMNS)
  q = by.username ? q.eq('username', by.username) : q.eq('id', by.id!)
  const { data, error } = await q.maybeSingle()
  if (error) throw error
  return data
}

/** getArtistProfile reads an artist_profiles row; null when absent. */
export async function getArtistProfile(id: string): Promise<ArtistProfile | null> {
  const { data, error } = await supabase().from('artist_profiles').select('*').eq('id', id).maybeSingle()
  if (error) throw error
  return data
}

/** getSponsorProfile reads a sponsor_profiles row; null when absent. */
export async function getSponsorProfile(id: string): Promise<SponsorProfile | null> {
  const { data, error } = await supabase().from('sponsor_profiles').select('*').eq('id', id).maybeSingle()
  if (error) throw error
  return data
}

export const topArtistsQueryOptions = () => queryOptions({ queryKey: ['topArtists'], queryFn: getTopArtists, staleTime: 5 * 60_000 })
export const topFansQueryOptions = () => queryOptions({ queryKey: ['topFans'], queryFn: getTopFans, ...cacheProfiles.static })
export const useArtists = () => useQuery({ queryKey: ['artists'], queryFn: () => getArtists(), ...cacheProfiles.dynamic })
export const useSponsors = () => useQuery({ queryKey: ['sponsors'], queryFn: getSponsors, ...cacheProfiles.dynamic })
export const usePublicProfiles = (role?: Enums<'app_role'> | 'all', search?: string) =>
  useQuery({ queryKey: ['publicProfiles', role ?? 'all', search ?? ''], queryFn: () => getPublicProfiles(role, search) })
export const useProfile = (by: { username?: string; id?: string }) =>
  useQuery({ queryKey: ['profile', by], queryFn: () => getProfile(by), staleTime: 2 * 60_000, gcTime: 5 * 60_000, enabled: !!(by.username || by.id) })
