import type { ProfileBits, Track, TrackRow } from '@/types/api'
import { supabase } from '@/lib/supabase'

// Turning track rows into the client-side track object. Artist and sponsor
// display data come from public_profiles in one extra query, which works
// whatever foreign keys the schema declares.

/** TRACK_COLUMNS are the tracks columns the app reads. */
export const TRACK_COLUMNS =
  'id, title, artist_id, sponsor_id, is_sponsored, streams, cover_url, audio_url, duration, created_at, release_date, description, genre, is_explicit'

/** loadProfiles fetches display data for a set of user ids. Failures yield an empty map. */
export async function loadProfiles(ids: string[]): Promise<Map<string, ProfileBits>> {
  const unique = [...new Set(ids.filter(Boolean))]
  if (unique.length === 0) return new Map()
  const { data, error } = await supabase().from('public_profiles').select('id, display_name, username, avatar_url').in('id', unique)
  if (error) {
    console.warn('load profiles', error.message)
    return new Map()
  }
  return new Map(data.map((p) => [p.id, p]))
}

/** toTrack maps a row and its people to the client-side track object. */
export function toTrack(r: TrackRow, people: Map<string, ProfileBits>): Track {
  const artist = people.get(r.artist_id)
  const sponsor = r.sponsor_id ? people.get(r.sponsor_id) : undefined
  const date = r.release_date ?? r.created_at
  return {
    id: r.id,
    title: r.title,
    artist: artist?.display_name || 'Unknown Artist',
    artistId: r.artist_id,
    artistAvatar: artist?.avatar_url ?? null,
    artistUsername: artist?.username ?? null,
    coverUrl: r.cover_url,
    audioUrl: r.audio_url,
    duration: Number(r.duration ?? 0),
    isSponsored: !!r.is_sponsored && !!r.sponsor_id,
    sponsorId: r.sponsor_id,
    sponsorName: sponsor?.display_name ?? null,
    sponsorUsername: sponsor?.username ?? null,
    sponsorAvatar: sponsor?.avatar_url ?? null,
    isExplicit: !!r.is_explicit,
    genre: r.genre,
    releaseYear: date ? new Date(date).getFullYear() : null,
    streams: Number(r.streams ?? 0),
  }
}

/** hydrateTracks loads the people of a list of rows and maps them. */
export async function hydrateTracks(rows: TrackRow[]): Promise<Track[]> {
  const people = await loadProfiles(rows.flatMap((r) => [r.artist_id, r.sponsor_id ?? '']))
  return rows.map((r) => toTrack(r, people))
}
