// Row shapes of the Backline tables the frontend reads (spec section 3).
// These mirror the SQL migrations' columns; only the fields the app uses.

import type { Role } from '@/config/nav'

/** PublicProfile is a row of public_profiles. */
export interface PublicProfile {
  id: string
  display_name: string | null
  username: string | null
  avatar_url: string | null
  bio: string | null
  location: string | null
  is_verified: boolean | null
  website: string | null
  role: Role | null
  name?: string | null
  suspended_reason?: string | null
  created_at?: string
}

/** ArtistProfile is a row of artist_profiles. */
export interface ArtistProfile {
  id: string
  name: string | null
  phone?: string | null
  track_count: number | null
  stream_count: number | null
  avatar_url: string | null
  genres?: string[] | string | null
  kyc_status?: string | null
  kyc_expiry_date?: string | null
  location?: string | null
  created_at?: string
}

/** SponsorProfile is a row of sponsor_profiles. */
export interface SponsorProfile {
  id: string
  name: string | null
  avatar_url: string | null
  bio: string | null
  company_name: string | null
  website: string | null
  phone?: string | null
}

/** TrackRow is a row of tracks. */
export interface TrackRow {
  id: string
  title: string
  artist_id: string
  sponsor_id: string | null
  is_sponsored: boolean | null
  streams: number | null
  cover_url: string | null
  audio_url: string | null
  duration: number | null
  created_at: string
  release_date: string | null
  description: string | null
  genre: string | null
  is_explicit: boolean | null
}

/** Track is the client-side track object the cards and the player use (spec section 3). */
export interface Track {
  id: string
  title: string
  artist: string
  artistId: string
  artistAvatar: string | null
  artistUsername: string | null
  coverUrl: string | null
  audioUrl: string | null
  duration: number
  isSponsored: boolean
  sponsorId: string | null
  sponsorName: string | null
  sponsorUsername: string | null
  sponsorAvatar: string | null
  isPreview?: boolean
  isExplicit: boolean
  genre: string | null
  releaseYear: number | null
  streams: number
}

/** hasValidKyc: KYC approved and the expiry absent or in the future. */
export function hasValidKyc(a: Pick<ArtistProfile, 'kyc_status' | 'kyc_expiry_date'>, now = Date.now()): boolean {
  return a.kyc_status === 'approved' && (!a.kyc_expiry_date || new Date(a.kyc_expiry_date).getTime() > now)
}
