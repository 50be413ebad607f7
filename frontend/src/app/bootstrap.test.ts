import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import { seedShell, type Bootstrap } from './bootstrap'

const settings = { coming_soon: true, countdown_target: '2027-01-01T00:00:00Z' }
const profile = { id: 'u1', display_name: 'Ada', avatar_url: null, username: 'ada', bio: null, is_verified: false, website: null, location: null, role: 'artist' as const }

describe('seedShell', () => {
  it("fills the shell's caches under the keys their hooks read", () => {
    const qc = new QueryClient()
    const b: Bootstrap = {
      settings,
      user: { id: 'u1', role: 'artist', profile, role_profile: { phone: null, track_count: 2 }, suspended: false, suspended_reason: 'old', unread_notifications: 3, session_recorded: true },
    }
    seedShell(qc, b)
    expect(qc.getQueryData(['appSettings'])).toEqual({ comingSoon: true, countdownTarget: '2027-01-01T00:00:00Z' })
    expect(qc.getQueryData(['ownProfile', 'u1'])).toEqual(profile)
    // A reason without a suspension is not shown.
    expect(qc.getQueryData(['suspension', 'u1'])).toEqual({ suspended: false, reason: null })
    expect(qc.getQueryData(['notifications', 'u1', 'unread'])).toBe(3)
    expect(qc.getQueryData(['roleProfile', 'u1', 'artist'])).toEqual({ phone: null, track_count: 2 })
    // The notifications list itself is left for the panel to read.
    expect(qc.getQueryData(['notifications', 'u1'])).toBeUndefined()
  })

  it('gives a suspended user the reason, and an admin no role profile', () => {
    const qc = new QueryClient()
    seedShell(qc, {
      settings,
      user: { id: 'a1', role: 'admin', profile: null, role_profile: null, suspended: true, suspended_reason: 'Spam', unread_notifications: 0, session_recorded: false },
    })
    expect(qc.getQueryData(['suspension', 'a1'])).toEqual({ suspended: true, reason: 'Spam' })
    expect(qc.getQueryData(['ownProfile', 'a1'])).toBeNull()
    expect(qc.getQueryCache().findAll({ queryKey: ['roleProfile'] })).toHaveLength(0)
  })

  it('gives a visitor the settings only', () => {
    const qc = new QueryClient()
    seedShell(qc, { settings: { coming_soon: false, countdown_target: null }, user: null })
    expect(qc.getQueryData(['appSettings'])).toEqual({ comingSoon: false, countdownTarget: '' })
    expect(qc.getQueryCache().getAll()).toHaveLength(1)
  })

  it('leaves a badge count written after the bootstrap was asked for, and reads it again', () => {
    const qc = new QueryClient()
    const askedAt = Date.now() - 1000
    // A live notification raised the badge while the bootstrap was in flight.
    qc.setQueryData(['notifications', 'u1', 'unread'], 4)
    seedShell(qc, { settings, user: { id: 'u1', role: 'fan', profile, role_profile: null, suspended: false, suspended_reason: null, unread_notifications: 3, session_recorded: true } }, askedAt)
    expect(qc.getQueryData(['notifications', 'u1', 'unread'])).toBe(4)
    expect(qc.getQueryState(['notifications', 'u1', 'unread'])?.isInvalidated).toBe(true)
    // An older count is replaced.
    seedShell(qc, { settings, user: { id: 'u1', role: 'fan', profile, role_profile: null, suspended: false, suspended_reason: null, unread_notifications: 5, session_recorded: true } }, Date.now() + 1000)
    expect(qc.getQueryData(['notifications', 'u1', 'unread'])).toBe(5)
  })
})
