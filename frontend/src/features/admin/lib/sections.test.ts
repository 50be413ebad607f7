import { describe, expect, it } from 'vitest'
import { adminPath, ADMIN_SECTIONS, sectionFrom } from './sections'

describe('admin sections', () => {
  it('has the eight sections of the spec', () => {
    expect(ADMIN_SECTIONS.map((s) => s.id)).toEqual(['users', 'activities', 'tracks', 'cashouts', 'verifications', 'sponsorships', 'transactions', 'system'])
  })
  it('falls back to users for an unknown or missing section', () => {
    expect(sectionFrom('tracks')).toBe('tracks')
    expect(sectionFrom('nope')).toBe('users')
    expect(sectionFrom(undefined)).toBe('users')
  })
  it('builds deep links', () => {
    expect(adminPath('users', { user: 'abc' })).toBe('/dashboard/admin/users?user=abc')
    expect(adminPath('system')).toBe('/dashboard/admin/system')
  })
})
