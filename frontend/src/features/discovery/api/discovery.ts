import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'
import { toTrack } from '@/lib/tracks'
import type { ProfileBits, Track, TrackRow } from '@/types/api'

// Search, public playlists, following and the listener's home: each a call
// of the database (sql/app: search_catalog, get_playlist, follows,
// get_listener_home), which decides what the caller may see.

/** TrackList is the tracks-and-people answer of the database's list calls. */
interface TrackList {
  tracks: TrackRow[]
  people: ProfileBits[]
}

/** tracksOf maps a TrackList to the app's tracks, in the order given. */
export function tracksOf(l: TrackList | null | undefined): Track[] {
  if (!l) return []
  const people = new Map(l.people.map((p) => [p.id, p]))
  return l.tracks.map((r) => toTrack(r, people))
}

/** SearchPerson is an artist or sponsor found by search. */
export interface SearchPerson {
  id: string
  name: string
  username: string | null
  avatar_url: string | null
  is_verified: boolean
  follower_count?: number
}

/** SearchPlaylist is a public playlist found by search. */
export interface SearchPlaylist {
  id: string
  name: string
  cover_url: string | null
  owner_name: string | null
  track_count: number
}

/** SearchResults are the results grouped by kind. */
export interface SearchResults {
  tracks: Track[]
  artists: SearchPerson[]
  sponsors: SearchPerson[]
  playlists: SearchPlaylist[]
}

/** searchCatalog asks the database; under two letters nothing is asked. */
export async function searchCatalog(q: string): Promise<SearchResults> {
  const empty = { tracks: [], artists: [], sponsors: [], playlists: [] }
  if (q.trim().length < 2) return empty
  const { data, error } = await supabase().rpc('search_catalog', { p_query: q, p_limit: 8 })
  if (error) throw error
  const r = data as unknown as TrackList & Omit<SearchResults, 'tracks'>
  return { tracks: tracksOf(r), artists: r.artists, sponsors: r.sponsors, playlists: r.playlists }
}

/** useSearch searches as one types, keeping the last results on screen. */
export const useSearch = (q: string) =>
  useQuery({ queryKey: ['search', q.trim().toLowerCase()], queryFn: () => searchCatalog(q), placeholderData: keepPreviousData, staleTime: 30_000 })

/** PlaylistPage is a playlist as its page shows it. */
export interface PlaylistPage {
  playlist: {
    id: string | null
    kind: 'playlist' | 'liked'
    name: string
    is_public: boolean
    cover_url: string | null
    description: string | null
    owner_id: string
    owner_name: string | null
    owner_username: string | null
  }
  tracks: Track[]
}

/** getPlaylist reads a playlist (null id: the caller's Liked songs); null when not found. */
export async function getPlaylist(id: string | null): Promise<PlaylistPage | null> {
  const { data, error } = await supabase().rpc('get_playlist', id ? { p_playlist_id: id } : {})
  if (error) {
    if (error.code === 'P0002') return null
    throw error
  }
  const r = data as unknown as TrackList & Pick<PlaylistPage, 'playlist'>
  return { playlist: r.playlist, tracks: tracksOf(r) }
}

export const usePlaylistPage = (id: string | null) => useQuery({ queryKey: ['playlistPage', id], queryFn: () => getPlaylist(id) })

/**
 * useUpdatePlaylist changes the owner's playlist: public or private, its
 * description, its cover (an upload in their folder of covers; the database
 * deletes the one it replaces).
 */
export function useUpdatePlaylist() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async ({ id, ...change }: { id: string; is_public?: boolean; cover_url?: string | null; description?: string | null }) => {
      const { error } = await supabase().from('playlists').update(change).eq('id', id)
      if (error) throw error
    },
    onSuccess: (_d, v) => void qc.invalidateQueries({ queryKey: ['playlistPage', v.id] }),
  })
}

const followKey = (userId: string | undefined) => ['following', userId] as const

/** FollowedArtist is a row of the Following list. */
export interface FollowedArtist {
  artistId: string
  name: string
  username: string | null
  avatarUrl: string | null
  followerCount: number
  since: string
}

/** getFollowing lists the caller's followed artists, latest first. */
export async function getFollowing(): Promise<FollowedArtist[]> {
  const { data, error } = await supabase()
    .from('follows')
    .select('artist_id, created_at, artist_profiles(name, follower_count, public_profiles(username, avatar_url))')
    .order('created_at', { ascending: false })
  if (error) throw error
  return data.map((r) => {
    const a = r.artist_profiles as unknown as { name: string; follower_count: number; public_profiles: { username: string | null; avatar_url: string | null } | null } | null
    return {
      artistId: r.artist_id,
      name: a?.name ?? 'Artist',
      username: a?.public_profiles?.username ?? null,
      avatarUrl: a?.public_profiles?.avatar_url ?? null,
      followerCount: Number(a?.follower_count ?? 0),
      since: r.created_at,
    }
  })
}

export const useFollowing = (userId: string | undefined) =>
  useQuery({ queryKey: followKey(userId), queryFn: getFollowing, enabled: !!userId, staleTime: 60_000 })

/** useFollow follows or unfollows an artist; the counts are the database's. */
export function useFollow(userId: string | undefined) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: async ({ artistId, follow }: { artistId: string; follow: boolean }) => {
      const q = supabase().from('follows')
      const { error } = follow ? await q.insert({ artist_id: artistId }) : await q.delete().eq('artist_id', artistId)
      if (error && error.code !== '23505') throw error
    },
    onSettled: (_d, _e, v) => {
      void qc.invalidateQueries({ queryKey: followKey(userId) })
      void qc.invalidateQueries({ queryKey: ['artistProfile', v.artistId] })
    },
  })
}

/** ListenerHome is the fan home's sections. */
export interface ListenerHome {
  recentlyPlayed: Track[]
  becauseYouLiked: { artist: { id: string; name: string; username: string | null }; tracks: Track[] } | null
  newReleases: Track[]
  genres: string[]
}

export async function getListenerHome(): Promise<ListenerHome> {
  const { data, error } = await supabase().rpc('get_listener_home', { p_limit: 12 })
  if (error) throw error
  const r = data as unknown as {
    recently_played: TrackList
    because_you_liked: (TrackList & { artist: { id: string; name: string; username: string | null } }) | null
    new_releases: TrackList
    genres: string[]
  }
  return {
    recentlyPlayed: tracksOf(r.recently_played),
    becauseYouLiked: r.because_you_liked ? { artist: r.because_you_liked.artist, tracks: tracksOf(r.because_you_liked) } : null,
    newReleases: tracksOf(r.new_releases),
    genres: r.genres,
  }
}

export const useListenerHome = (userId: string | undefined) =>
  useQuery({ queryKey: ['listenerHome', userId], queryFn: getListenerHome, enabled: !!userId, staleTime: 60_000 })

/** getGenreStation is a genre's most-streamed tracks, in order. */
export async function getGenreStation(genre: string): Promise<Track[]> {
  const { data, error } = await supabase().rpc('get_genre_station', { p_genre: genre, p_limit: 50 })
  if (error) throw error
  return tracksOf(data as unknown as TrackList)
}
