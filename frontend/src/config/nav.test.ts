import { describe, expect, it } from 'vitest'
import { bottomBarHidden, dashboardPath, isNavItemActive } from './nav'

describe('isNavItemActive', () => {
  it.each([
    ['/dashboard/fan', '/dashboard/fan', true],
    ['/dashboard/admin', '/dashboard/fan', true],
    ['/dashboard', '/dashboard', true],
    ['/artist/dashboard', '/dashboard/artist', true],
    ['/charts', '/dashboard/fan', false],
    ['/profiles', '/profiles', true],
    ['/profiles/ada', '/profiles', false],
    ['/profile', '/profile', true],
    ['/profile/123', '/profile', false],
    ['/charts', '/charts', true],
    ['/charts/weekly', '/charts', false],
    ['/', '/', true],
    ['/artists', '/', false],
    ['/login', '/login', true],
    ['/login/extra', '/login', true],
    ['/loginx', '/login', false],
  ])('path %s, item %s → %s', (path, href, want) => {
    expect(isNavItemActive(path, href)).toBe(want)
  })
})

describe('bottom bar helpers', () => {
  it('hides on auth flows only', () => {
    expect(bottomBarHidden('/login')).toBe(true)
    expect(bottomBarHidden('/register/fan')).toBe(true)
    expect(bottomBarHidden('/forgot-password')).toBe(true)
    expect(bottomBarHidden('/reset-password')).toBe(true)
    expect(bottomBarHidden('/charts')).toBe(false)
  })
  it('builds the dashboard link from the role', () => {
    expect(dashboardPath('artist')).toBe('/dashboard/artist')
    expect(dashboardPath(null)).toBe('/dashboard')
  })
})
