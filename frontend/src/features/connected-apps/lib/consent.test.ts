import { describe, expect, it } from 'vitest'
import { appHost, consentErrorMessage, consentPath, readDetails, safeNext, scopeList } from './consent'

describe('consent page rules', () => {
  it('words every scope for people, in order and once', () => {
    expect(scopeList('openid email profile email')).toEqual([
      { scope: 'openid', label: 'Confirm who you are on Backline' },
      { scope: 'email', label: 'See your email address' },
      { scope: 'profile', label: 'See your name and profile picture' },
    ])
    expect(scopeList(['phone', 'offline_access', 'x-custom'])).toEqual([
      { scope: 'phone', label: 'See your phone number' },
      { scope: 'offline_access', label: 'Stay connected when you are not using it' },
      { scope: 'x-custom', label: 'x-custom' },
    ])
    expect(scopeList('')).toEqual([])
    expect(scopeList(undefined)).toEqual([])
  })

  it('shows whom the fan is sent back to', () => {
    expect(appHost('https://gigs.example:8443/cb?x=1')).toBe('gigs.example:8443')
    expect(appHost('myapp://callback')).toBe('myapp://callback')
    expect(appHost('not a url')).toBe('')
  })

  it('returns after sign-in only to a page of this site', () => {
    expect(safeNext(consentPath('abc 1'))).toBe('/oauth/consent?authorization_id=abc%201')
    expect(safeNext('/profile')).toBe('/profile')
    for (const bad of ['//evil.example/x', 'https://evil.example', '/\\evil.example', 'javascript:alert(1)', '', null, undefined]) {
      expect(safeNext(bad)).toBeNull()
    }
  })

  it('asks the fan, or goes straight back when the app was already allowed', () => {
    const ask = readDetails({
      authorization_id: 'a1',
      redirect_uri: 'https://gigs.example/cb',
      client: { name: ' Gig Finder ', uri: 'https://gigs.example', logo_uri: 'http://gigs.example/logo.png' },
      user: { email: 'fan@backline.test' },
      scope: 'openid email',
    })
    expect(ask).toEqual({
      kind: 'ask',
      authorizationId: 'a1',
      clientName: 'Gig Finder',
      clientUri: 'https://gigs.example',
      logoUri: '', // only https images are shown
      redirectHost: 'gigs.example',
      email: 'fan@backline.test',
      scopes: scopeList('openid email'),
    })
    expect(readDetails({ authorization_id: 'a2', client: { uri: 'javascript:alert(1)' } })).toMatchObject({ clientName: 'An app', clientUri: '' })
    expect(readDetails({ redirect_url: 'https://gigs.example/cb?code=c&state=s' })).toEqual({ kind: 'redirect', url: 'https://gigs.example/cb?code=c&state=s' })
    expect(readDetails({ redirect_url: 'javascript:alert(1)' })).toBeNull()
    expect(readDetails({})).toBeNull()
  })

  it('explains a request that can no longer be answered', () => {
    expect(consentErrorMessage({ code: 'oauth_authorization_not_found', status: 404, message: 'authorization not found' })).toBe(
      'This request has expired or was already answered. Go back to the app and try again.',
    )
    expect(consentErrorMessage({ code: 'validation_failed', status: 400, message: 'authorization request is no longer pending' })).toBe(
      'This request can no longer be answered. Go back to the app and try again.',
    )
    expect(consentErrorMessage({ message: 'Network down' })).toBe('Network down')
  })
})
