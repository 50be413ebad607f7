import { describe, expect, it } from 'vitest'
import { checkoutBreakdown, lagosDate, VERIFICATION_FEE, verificationOffer } from './checkout'

describe('checkoutBreakdown', () => {
  it('prices the verification badge', () => {
    expect(checkoutBreakdown(VERIFICATION_FEE)).toEqual({ base: 60000, vat: 4500, fee: 1000, total: 65500 })
  })
  it('rounds VAT to whole naira', () => {
    // 7.5% of 1,010 is 75.75 → 76
    expect(checkoutBreakdown(1010)).toEqual({ base: 1010, vat: 76, fee: 1000, total: 2086 })
    // 7.5% of 1,002 is 75.15 → 75
    expect(checkoutBreakdown(1002).vat).toBe(75)
  })
  it('charges the flat fee on a zero base and clamps negatives', () => {
    expect(checkoutBreakdown(0).total).toBe(1000)
    expect(checkoutBreakdown(-500)).toEqual({ base: 0, vat: 0, fee: 1000, total: 1000 })
  })
})

describe('verificationOffer', () => {
  const now = new Date('2026-05-01T12:00:00Z')
  const inDays = (d: number) => new Date(now.getTime() + d * 86_400_000).toISOString()
  it.each([
    ['never verified', { is_verified: false, verification_expires_at: null }, { canBuy: true, note: null }],
    ['verified by an admin, without an expiry', { is_verified: true, verification_expires_at: null }, { canBuy: false, note: 'Your profile is already verified.' }],
    [
      'verified for 200 more days',
      { is_verified: true, verification_expires_at: '2026-11-17T12:00:00Z' },
      { canBuy: false, note: 'Your verification is active until 17 Nov 2026. You can renew it in its last 30 days.' },
    ],
    [
      'one day before the renewal opens',
      { is_verified: true, verification_expires_at: inDays(31) },
      { canBuy: false, note: 'Your verification is active until 1 Jun 2026. You can renew it in its last 30 days.' },
    ],
    ['in its last 30 days', { is_verified: true, verification_expires_at: inDays(20) }, { canBuy: true, note: 'Your verification ends on 21 May 2026. Renew it now for another year.' }],
    ['lapsed', { is_verified: true, verification_expires_at: inDays(-3) }, { canBuy: true, note: 'Your verification expired on 28 Apr 2026.' }],
  ])('%s', (_case, state, want) => {
    expect(verificationOffer(state, now)).toEqual(want)
  })

  it('follows the renewal window the server is configured with', () => {
    const in45 = { is_verified: true, verification_expires_at: inDays(45) }
    expect(verificationOffer({ ...in45, renewal_days: 60 }, now).canBuy).toBe(true)
    expect(verificationOffer({ ...in45, renewal_days: 30 }, now)).toEqual({ canBuy: false, note: 'Your verification is active until 15 Jun 2026. You can renew it in its last 30 days.' })
    expect(verificationOffer({ is_verified: true, verification_expires_at: inDays(200), renewal_days: 14 }, now).note).toMatch(/in its last 14 days\.$/)
  })

  it("writes dates on Lagos's calendar, as the server does", () => {
    // 23:30 UTC on 31 Dec is already 1 Jan in Lagos (UTC+1).
    expect(lagosDate('2026-12-31T23:30:00Z')).toBe('1 Jan 2027')
    expect(lagosDate('2026-09-05T10:00:00Z')).toBe('5 Sep 2026')
  })
})
