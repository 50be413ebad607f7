import { describe, expect, it } from 'vitest'
import { adminVerb, describeActivity, factsWanted, type ActivityFacts } from './describe'

const KOLA = '00000000-0000-4000-8000-0000000000a1'
const LAGOON = '00000000-0000-4000-8000-0000000000b1'
const ADA = '00000000-0000-4000-8000-0000000000f1'
const TRACK = '00000000-0000-4000-8000-0000000000c1'
const facts: ActivityFacts = {
  people: { [KOLA]: 'Kola Ade', [LAGOON]: 'Lagoon Telecom', [ADA]: 'Ada Nwosu' },
  tracks: { [TRACK]: 'Lagos Nights' },
}

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

  it('names the admin, the action, who it was done to and the reason', () => {
    const row = { kind: 'admin', action: 'user.suspend', actor_name: 'Backline Admin', subject_type: 'user', subject_id: ADA, details: { reason: 'spam' } }
    expect(describeActivity(row)).toBe('Backline Admin suspended a user: spam')
    expect(describeActivity({ ...row, facts })).toBe('Backline Admin suspended Ada Nwosu: spam')
  })

  it('writes account changes as sentences, not as "user suspend"', () => {
    const suspend = { kind: 'account', action: 'user.suspend', subject_type: 'user', subject_id: ADA, details: { reason: 'Repeated stream manipulation' }, facts }
    expect(describeActivity(suspend)).toBe('Suspended Ada Nwosu: Repeated stream manipulation')
    expect(describeActivity({ ...suspend, action: 'user.unsuspend' })).toBe('Restored Ada Nwosu')
    expect(describeActivity({ ...suspend, action: 'user.role_changed', details: { role: 'sponsor' } })).toBe("Changed Ada Nwosu's role to sponsor")
    expect(describeActivity({ ...suspend, action: 'user.promote_admin', details: {} })).toBe('Made Ada Nwosu an admin')
    expect(describeActivity({ kind: 'account', action: 'user.choose_role', details: { role: 'fan' } })).toBe('Chose the fan role')
    expect(describeActivity({ kind: 'account', action: 'user.some_new_thing' })).toBe('User some new thing')
  })

  it('shows what a payment really charged, VAT and fee included, as the feed gives it', () => {
    const figures = { amount: 60000, vat: 4500, fee: 1000, total: 65500 }
    const done = { kind: 'payment', action: 'payment.completed', subject_type: 'payment', subject_id: 'verification-1', details: { purpose: 'verification', provider: 'flutterwave', ...figures } }
    expect(describeActivity(done)).toBe('Paid ₦65,500 for verification (₦60,000 + ₦4,500 VAT + ₦1,000 fee)')
    expect(describeActivity({ ...done, details: { ...done.details, credited_to_wallet: true } })).toBe('Paid ₦65,500 for verification while already verified: all of it was refunded to their wallet')
    const topup = { ...done, subject_id: 'topup-1', details: { purpose: 'topup', amount: 5000, vat: 375, fee: 1000, total: 6375 } }
    expect(describeActivity(topup)).toBe('Topped up their wallet with ₦5,000, paying ₦6,375 (₦5,000 + ₦375 VAT + ₦1,000 fee)')
    expect(describeActivity({ ...done, action: 'payment.created' })).toBe('Started a payment of ₦65,500 for verification (₦60,000 + ₦4,500 VAT + ₦1,000 fee)')
  })

  it('never shows the base amount as what was paid when the figures are unknown', () => {
    const row = { kind: 'payment', action: 'payment.completed', subject_type: 'payment', subject_id: 'unknown-ref', details: { purpose: 'verification', amount: 60000 } }
    expect(describeActivity(row)).toBe('Paid for verification: ₦60,000 before VAT and fee')
  })

  it('names both sides of sponsorships and sponsored streams', () => {
    const base = { kind: 'invite', details: { artist_id: KOLA, sponsor_id: LAGOON, track_id: TRACK }, facts }
    expect(describeActivity({ ...base, action: 'invite.created', actor_id: LAGOON })).toBe('Invited Kola Ade to be sponsored for "Lagos Nights"')
    expect(describeActivity({ ...base, action: 'invite.created', actor_id: KOLA })).toBe('Asked Lagoon Telecom to sponsor "Lagos Nights"')
    expect(describeActivity({ ...base, action: 'invite.accepted', actor_id: KOLA })).toBe('Accepted Lagoon Telecom\'s sponsorship invite for "Lagos Nights"')
    expect(describeActivity({ ...base, action: 'invite.rejected', actor_id: LAGOON })).toBe('Declined Kola Ade\'s sponsorship invite for "Lagos Nights"')
    expect(describeActivity({ ...base, action: 'invite.ended', actor_id: ADA })).toBe('Sponsorship of Kola Ade by Lagoon Telecom for "Lagos Nights" ended')
    const paid = { kind: 'payment', action: 'payment.sponsored_stream', subject_type: 'stream', details: { amount: 50, artist_id: KOLA, sponsor_id: LAGOON }, facts }
    expect(describeActivity(paid)).toBe('Sponsored stream: ₦50 from Lagoon Telecom to Kola Ade')
  })

  it('explains refused payments and fraud flags', () => {
    expect(describeActivity({ kind: 'payment', action: 'payment.amount_mismatch', details: { expected: 65500, paid: 100 } })).toBe('Paid ₦100 where ₦65,500 was due: the payment was refused')
    expect(describeActivity({ kind: 'payment', action: 'payment.session_mismatch', details: { owner: KOLA }, facts })).toBe('Tried to confirm a payment started by Kola Ade')
    expect(describeActivity({ kind: 'fraud', action: 'fraud.detected', details: { risk_level: 'high', fraud_reasons: ['Headless browser', 'New device'] } })).toBe(
      'Fraud check flagged high risk: Headless browser, New device',
    )
    expect(describeActivity({ kind: 'verification', action: 'kyc.submitted', details: { document_type: 'drivers_license' } })).toBe('Submitted KYC documents (drivers license)')
  })
})

describe('factsWanted', () => {
  it('asks for the people and tracks a page names, once each', () => {
    const rows = [
      { kind: 'account', action: 'user.suspend', subject_type: 'user', subject_id: ADA },
      { kind: 'invite', action: 'invite.created', details: { artist_id: KOLA, sponsor_id: LAGOON, track_id: TRACK } },
      { kind: 'payment', action: 'payment.completed', subject_type: 'payment', subject_id: 'verification-1', details: { amount: 60000 } },
      { kind: 'payment', action: 'payment.completed', subject_type: 'payment', subject_id: 'has-figures', details: { amount: 1, total: 2 } },
      { kind: 'payment', action: 'payment.sponsored_stream', subject_type: 'stream', subject_id: 's1', details: { artist_id: KOLA, sponsor_id: LAGOON } },
    ]
    expect(factsWanted(rows)).toEqual({ people: [ADA, KOLA, LAGOON], tracks: [TRACK] })
  })
})

describe('adminVerb', () => {
  it('reads direct table writes', () => {
    expect(adminVerb('public_profiles.update')).toBe('updated public_profiles')
    expect(adminVerb('user_roles.insert')).toBe('added to user_roles')
    expect(adminVerb('tracks.delete')).toBe('deleted tracks')
  })
})
