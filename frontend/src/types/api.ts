// Row shapes of the Backline tables the frontend reads (spec section 3),
// derived from the generated database types: a column the migrations rename
// or retype breaks the build here instead of at run time.

import type { Tables } from '@/lib/database.types'

/** PublicProfile is the public_profiles columns the app reads. */
export type PublicProfile = Pick<
  Tables<'public_profiles'>,
  'id' | 'display_name' | 'username' | 'avatar_url' | 'bio' | 'location' | 'is_verified' | 'website' | 'role'
>

/** ProfileBits is the display data of a person named on a card (artist, sponsor, fan). */
export type ProfileBits = Pick<PublicProfile, 'id' | 'display_name' | 'username' | 'avatar_url'>

/** ArtistProfile is a row of artist_profiles. */
export type ArtistProfile = Tables<'artist_profiles'>

/** SponsorProfile is a row of sponsor_profiles. */
export type SponsorProfile = Tables<'sponsor_profiles'>

/** TrackRow is the tracks columns the app reads (TRACK_COLUMNS). */
export type TrackRow = Pick<
  Tables<'tracks'>,
  | 'id'
  | 'title'
  | 'artist_id'
  | 'sponsor_id'
  | 'is_sponsored'
  | 'streams'
  | 'cover_url'
  | 'audio_url'
  | 'duration'
  | 'created_at'
  | 'release_date'
  | 'description'
  | 'genre'
  | 'is_explicit'
>

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
