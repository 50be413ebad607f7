import { describe, expect, it } from 'vitest'
import { checkoutReference, successView, type VerificationPayment } from './verification'

const now = new Date('2026-06-01T12:00:00Z')
const inDays = (d: number) => new Date(now.getTime() + d * 86_400_000).toISOString()

describe('successView', () => {
  const paid = (over: Partial<VerificationPayment> = {}): VerificationPayment => ({ status: 'successful', purpose: 'verification', completed_at: inDays(-0.01), granted: true, ...over })
  it('thanks someone whose verification payment succeeded and granted the badge', () => {
    expect(successView(paid(), true, now)).toBe('thanks')
    expect(successView(paid(), false, now)).toBe('thanks')
  })
  it('does not thank someone who paid nothing', () => {
    expect(successView(null, false, now)).toBe('not-paid')
    expect(successView(null, true, now)).toBe('not-paid')
  })
  it('does not thank for a failed payment, a top-up, or a payment credited to the wallet instead', () => {
    expect(successView(paid({ status: 'failed' }), true, now)).toBe('not-paid')
    expect(successView(paid({ purpose: 'topup' }), true, now)).toBe('not-paid')
    expect(successView(paid({ granted: false }), true, now)).toBe('not-paid')
  })
  it('waits for the payment the checkout returned with while it is confirmed', () => {
    expect(successView(paid({ status: 'pending', completed_at: null, granted: false }), true, now)).toBe('confirming')
    expect(successView(paid({ status: 'pending', completed_at: null, granted: false }), false, now)).toBe('not-paid')
  })
  it('thanks without a reference only for a payment of the last day', () => {
    expect(successView(paid({ completed_at: inDays(-2) }), false, now)).toBe('not-paid')
    expect(successView(paid({ completed_at: inDays(-2) }), true, now)).toBe('thanks')
  })
})

describe('checkoutReference', () => {
  it('reads the reference a checkout returns with', () => {
    expect(checkoutReference('?gateway=flutterwave&verification=true&status=successful&tx_ref=verification-abc')).toBe('verification-abc')
    expect(checkoutReference('?ref=flw-1')).toBe('flw-1')
    expect(checkoutReference('')).toBeNull()
  })
})
