import { describe, expect, it } from 'vitest'
import { adminVerb, describeActivity } from './describe'

describe('describeActivity', () => {
  it('says what a user did', () => {
    expect(describeActivity({ kind: 'signup', action: 'user.signup', details: { role: 'artist' } })).toBe('Signed up as artist')
    expect(describeActivity({ kind: 'upload', action: 'track.created', details: { title: 'Lagos Nights' } })).toBe('Uploaded "Lagos Nights"')
    expect(describeActivity({ kind: 'cashout', action: 'cashout.requested', details: { amount: 2500 } })).toBe('Requested a cash-out of ₦2,500')
    expect(describeActivity({ kind: 'invite', action: 'invite.accepted', details: {} })).toBe('Sponsorship invite accepted')
  })
  it('gives a rejected stream its reason', () => {
    const row = { kind: 'stream', action: 'stream.rejected', details: { title: 'Song', invalid_reason: 'Daily stream limit reached!' } }
    expect(describeActivity(row)).toBe('Stream of "Song" rejected: Daily stream limit reached!')
    expect(describeActivity({ kind: 'stream', action: 'stream.valid', details: { title: 'Song', paid: true } })).toBe('Streamed "Song" (paid)')
  })
  it('names the admin, the action and the reason', () => {
    const row = { kind: 'admin', action: 'user.suspend', actor_name: 'Backline Admin', details: { reason: 'spam' } }
    expect(describeActivity(row)).toBe('Backline Admin suspended a user: spam')
  })
})

describe('adminVerb', () => {
  it('reads direct table writes', () => {
    expect(adminVerb('public_profiles.update')).toBe('updated public_profiles')
    expect(adminVerb('user_roles.insert')).toBe('added to user_roles')
    expect(adminVerb('tracks.delete')).toBe('deleted tracks')
  })
})
