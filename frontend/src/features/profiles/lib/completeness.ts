// Profile completeness scoring of spec section 5 and the nudge rules of section 4.

/** Role is one of the account kinds that have a profile to complete. */
export type ProfileRole = 'fan' | 'artist' | 'sponsor' | 'admin'

/** CompletenessInput gathers the profile fields the score looks at. */
export interface CompletenessInput {
  role: ProfileRole
  displayName?: string | null
  username?: string | null
  avatarUrl?: string | null
  bio?: string | null
  location?: string | null
  phone?: string | null
  isVerified?: boolean | null
  trackCount?: number | null
}

/** Section names of the completeness result. */
export type Section = 'basicInfo' | 'avatar' | 'bio' | 'contact' | 'verification' | 'tracks'

/** Completeness is the spec's "profile completeness result". */
export interface Completeness {
  overall: number
  sections: Record<Section, number>
  missingFields: string[]
  suggestions: string[]
}

const WEIGHTS: Record<'artist' | 'sponsor' | 'fan', Partial<Record<Section, number>>> = {
  artist: { basicInfo: 0.3, avatar: 0.1, bio: 0.15, contact: 0.15, verification: 0.2, tracks: 0.1 },
  sponsor: { basicInfo: 0.35, avatar: 0.15, bio: 0.2, contact: 0.1, verification: 0.2 },
  fan: { basicInfo: 0.4, avatar: 0.2, bio: 0.25, contact: 0.15 },
}

/** SUGGESTIONS maps each missing field to the spec's suggestion text. */
export const SUGGESTIONS: Record<string, string> = {
  displayName: 'Add your display name to help others recognize you',
  username: 'Choose a unique username for your profile URL',
  avatar: 'Upload a profile picture to personalize your account',
  bio: 'Write a bio to tell others about yourself',
  location: 'Add your location to connect with local users',
  phone: 'Add your phone number for account security',
  verification: 'Complete verification to unlock all platform features',
  tracks: 'Upload your first track to start building your audience',
}

const present = (s?: string | null) => !!s && s.trim().length > 0

/** computeCompleteness scores a profile 0–100 with the role's weights. Admins score as fans. */
export function computeCompleteness(p: CompletenessInput): Completeness {
  const missing: string[] = []
  const need = (ok: boolean, field: string, points: number) => {
    if (!ok) missing.push(field)
    return ok ? points : 0
  }
  const isArtist = p.role === 'artist'
  const verifiable = p.role === 'artist' || p.role === 'sponsor'
  const sections: Record<Section, number> = {
    basicInfo: need(present(p.displayName), 'displayName', 50) + need(present(p.username), 'username', 50),
    avatar: need(present(p.avatarUrl), 'avatar', 100),
    bio: need(present(p.bio), 'bio', 100),
    contact: need(present(p.location), 'location', 50) + need(present(p.phone), 'phone', 50),
    verification: verifiable ? need(!!p.isVerified, 'verification', 100) : 100,
    tracks: isArtist ? need((p.trackCount ?? 0) > 0, 'tracks', 100) : 100,
  }
  const weights = WEIGHTS[p.role === 'admin' ? 'fan' : p.role]
  let overall = 0
  for (const [section, w] of Object.entries(weights) as [Section, number][]) overall += sections[section] * w
  return {
    overall: Math.round(overall),
    sections,
    missingFields: missing,
    suggestions: missing.map((f) => SUGGESTIONS[f]),
  }
}

/** NUDGE_HIDE_AT: the nudge is hidden at this score or above. */
export const NUDGE_HIDE_AT = 90
/** NUDGE_DISMISS_MS: a dismissal lasts 24 hours. */
export const NUDGE_DISMISS_MS = 24 * 3600 * 1000

/** nudgeDotColor: red below 60, orange 60–79, yellow 80–89, none at 90 and above. */
export function nudgeDotColor(score: number): 'red' | 'orange' | 'yellow' | null {
  if (score < 60) return 'red'
  if (score < 80) return 'orange'
  if (score < NUDGE_HIDE_AT) return 'yellow'
  return null
}

/** shouldShowNudge: score under 90 and no dismissal in the last 24 hours. */
export function shouldShowNudge(score: number, dismissedAt: number | null, now = Date.now()): boolean {
  if (score >= NUDGE_HIDE_AT) return false
  return dismissedAt === null || now - dismissedAt >= NUDGE_DISMISS_MS
}
