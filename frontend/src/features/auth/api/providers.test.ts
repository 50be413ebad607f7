import { describe, expect, it } from 'vitest'
import { enabledProviders, oauthErrorFromURL, pendingRole, providerLabel, providerReturnURL, unlinkMessage } from './providers'

describe('provider sign-in', () => {
  it('offers only the providers the auth server has switched on', () => {
    expect(enabledProviders({ external: { google: true, apple: false, github: true, email: true } })).toEqual(['google'])
    expect(enabledProviders({ external: { google: true, apple: true } })).toEqual(['google', 'apple'])
    expect(enabledProviders(null)).toEqual([])
    expect(enabledProviders({})).toEqual([])
  })

  it('comes back to the role chooser, with a role picked beforehand', () => {
    expect(providerReturnURL('https://backline.ng')).toBe('https://backline.ng/register')
    expect(providerReturnURL('https://backline.ng', 'artist')).toBe('https://backline.ng/register?role=artist')
    expect(pendingRole('?role=sponsor')).toBe('sponsor')
    expect(pendingRole('?role=admin')).toBeNull()
    expect(pendingRole('')).toBeNull()
  })

  it('reads the error a provider sign-in came back with', () => {
    expect(oauthErrorFromURL('', '#error=access_denied&error_code=user_banned&error_description=User+is+banned&sb=')).toBe('User is banned')
    expect(oauthErrorFromURL('?error=access_denied', '')).toBe('access_denied')
    expect(oauthErrorFromURL('?role=fan', '#access_token=x')).toBeNull()
  })

  it('names providers and unlink refusals for people', () => {
    expect(providerLabel('google')).toBe('Google')
    expect(providerLabel('custom:corp')).toBe('corp')
    expect(unlinkMessage({ code: 'single_identity_not_deletable', message: 'x' })).toBe('Keep at least one way to sign in.')
    expect(unlinkMessage({ code: undefined, message: 'Network down' })).toBe('Network down')
  })
})
