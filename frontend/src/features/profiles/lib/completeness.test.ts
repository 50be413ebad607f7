import { describe, expect, it } from 'vitest'
import { computeCompleteness, nudgeDotColor, shouldShowNudge, SUGGESTIONS } from './completeness'

const full = {
  displayName: 'Ada',
  username: 'ada',
  avatarUrl: 'https://x/a.png',
  bio: 'Afrobeats singer from Lagos',
  location: 'Lagos',
  phone: '+2348012345678',
  isVerified: true,
  trackCount: 3,
}

describe('computeCompleteness', () => {
  it('scores a complete artist 100 with no suggestions', () => {
    const r = computeCompleteness({ role: 'artist', ...full })
    expect(r.overall).toBe(100)
    expect(r.missingFields).toEqual([])
    expect(r.suggestions).toEqual([])
  })

  it('scores an empty artist 0 and lists every suggestion in order', () => {
    const r = computeCompleteness({ role: 'artist' })
    expect(r.overall).toBe(0)
    expect(r.missingFields).toEqual(['displayName', 'username', 'avatar', 'bio', 'location', 'phone', 'verification', 'tracks'])
    expect(r.suggestions).toEqual([
      'Add your display name to help others recognize you',
      'Choose a unique username for your profile URL',
      'Upload a profile picture to personalize your account',
      'Write a bio to tell others about yourself',
      'Add your location to connect with local users',
      'Add your phone number for account security',
      'Complete verification to unlock all platform features',
      'Upload your first track to start building your audience',
    ])
  })

  it('applies artist weights', () => {
    // basic 100*.3=30, avatar 0, bio 100*.15=15, contact 50*.15=7.5, verification 0, tracks 100*.1=10 → 62.5 → 63
    const r = computeCompleteness({ role: 'artist', ...full, avatarUrl: null, phone: '', isVerified: false })
    expect(r.sections).toEqual({ basicInfo: 100, avatar: 0, bio: 100, contact: 50, verification: 0, tracks: 100 })
    expect(r.overall).toBe(63)
  })

  it('applies sponsor weights and ignores tracks', () => {
    // basic 50*.35=17.5, avatar 15, bio 0, contact 100*.1=10, verification 20 → 62.5 → 63
    const r = computeCompleteness({ role: 'sponsor', ...full, username: ' ', bio: null, trackCount: 0 })
    expect(r.sections.tracks).toBe(100)
    expect(r.overall).toBe(63)
    expect(r.suggestions).toEqual([SUGGESTIONS.username, SUGGESTIONS.bio])
  })

  it('gives fans verification automatically', () => {
    // basic 100*.4=40, avatar 0, bio 25, contact 0 → 65
    const r = computeCompleteness({ role: 'fan', displayName: 'Tobi', username: 'tobi', bio: 'Loves highlife', isVerified: false })
    expect(r.sections.verification).toBe(100)
    expect(r.overall).toBe(65)
    expect(r.missingFields).toEqual(['avatar', 'location', 'phone'])
  })
})

describe('nudge rules', () => {
  it.each([
    [0, 'red'],
    [59, 'red'],
    [60, 'orange'],
    [79, 'orange'],
    [80, 'yellow'],
    [89, 'yellow'],
    [90, null],
  ])('score %d → %s dot', (s, want) => expect(nudgeDotColor(s)).toBe(want))

  it('hides at 90 and for 24 hours after a dismissal', () => {
    const now = 1_000_000_000_000
    expect(shouldShowNudge(90, null, now)).toBe(false)
    expect(shouldShowNudge(89, null, now)).toBe(true)
    expect(shouldShowNudge(50, now - 23 * 3600_000, now)).toBe(false)
    expect(shouldShowNudge(50, now - 24 * 3600_000, now)).toBe(true)
  })
})
