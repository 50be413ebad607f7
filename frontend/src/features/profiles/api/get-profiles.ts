import { useQuery } from '@tanstack/react-query'
import { cacheProfiles } from '@/lib/query-client'
import type { Enums } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'
import type { ArtistProfile, PublicProfile, SponsorProfile } from '@/types/api'
import { getArtists, PROFILE_COLUMNS, publicById } from './top-profiles'

export { getArtists, getTopArtists, getTopFans, topArtistsQueryOptions, topFansQueryOptions, type ArtistSummary, type FanSummary } from './top-profiles'

const SPONSOR_COLUMNS = 'id, name, avatar_url, bio, company_name, website'

/** SponsorSummary is the sponsor_profiles columns a card reads with public display data. */
export type SponsorSummary = Pick<SponsorProfile, 'id' | 'name' | 'avatar_url' | 'bio' | 'company_name' | 'website'> & Pick<PublicProfile, 'display_name' | 'username' | 'is_verified'>

/** getSponsors lists sponsors with display data. */
export async function getSponsors(): Promise<SponsorSummary[]> {
  const { data, error } = await supabase().from('sponsor_profiles').select(SPONSOR_COLUMNS).limit(60)
  if (error) throw error
  const pub = await publicById(data.map((r) => r.id))
  return data.map((r) => {
    const p = pub.get(r.id)
    return { ...r, display_name: p?.display_name ?? r.name, username: p?.username ?? null, is_verified: p?.is_verified ?? false, avatar_url: p?.avatar_url ?? r.avatar_url ?? null }
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

export const useArtists = () => useQuery({ queryKey: ['artists'], queryFn: () => getArtists(), ...cacheProfiles.dynamic })
export const useSponsors = () => useQuery({ queryKey: ['sponsors'], queryFn: getSponsors, ...cacheProfiles.dynamic })
export const usePublicProfiles = (role?: Enums<'app_role'> | 'all', search?: string) =>
  useQuery({ queryKey: ['publicProfiles', role ?? 'all', search ?? ''], queryFn: () => getPublicProfiles(role, search) })
export const useProfile = (by: { username?: string; id?: string }) =>
  useQuery({ queryKey: ['profile', by], queryFn: () => getProfile(by), staleTime: 2 * 60_000, gcTime: 5 * 60_000, enabled: !!(by.username || by.id) })
