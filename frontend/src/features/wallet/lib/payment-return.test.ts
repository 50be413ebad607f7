import { describe, expect, it } from 'vitest'
import { classifyPaymentReturn, isSuccessfulStatus, markReferenceVerified } from './payment-return'

describe('classifyPaymentReturn', () => {
  it.each([
    ['/dashboard/sponsor?tx_ref=abc123&status=successful', { kind: 'flutterwave', reference: 'abc123', status: 'successful', verification: false }],
    ['/dashboard/artist?ref=flw-99', { kind: 'flutterwave', reference: 'flw-99', status: null, verification: false }],
    ['/dashboard/artist?ref=xyz&gateway=flutterwave', { kind: 'flutterwave', reference: 'xyz', status: null, verification: false }],
    ['/verification/success?tx_ref=t1&status=completed', { kind: 'flutterwave', reference: 't1', status: 'completed', verification: true }],
    ['/dashboard?tx_ref=verification-77', { kind: 'flutterwave', reference: 'verification-77', status: null, verification: true }],
    ['/dashboard?tx_ref=t2&verification=true', { kind: 'flutterwave', reference: 't2', status: null, verification: true }],
    ['/dashboard/sponsor?ref=T123456', { kind: 'paystack', reference: 'T123456', verification: false }],
    ['/dashboard?ref=verification-5', { kind: 'none' }],
    ['/dashboard', { kind: 'none' }],
  ])('%s', (href, want) => {
    expect(classifyPaymentReturn(href)).toEqual(want)
  })
})

describe('isSuccessfulStatus', () => {
  it('accepts successful and completed only', () => {
    expect(isSuccessfulStatus('successful')).toBe(true)
    expect(isSuccessfulStatus('completed')).toBe(true)
    expect(isSuccessfulStatus('cancelled')).toBe(false)
    expect(isSuccessfulStatus('failed')).toBe(false)
  })
})

describe('markReferenceVerified', () => {
  it('reports a reference as new only once per session', () => {
    const m = new Map<string, string>()
    const store = {
      getItem: (k: string) => m.get(k) ?? null,
      setItem: (k: string, v: string) => void m.set(k, v),
    } as unknown as Storage
    expect(markReferenceVerified('r1', store)).toBe(true)
    expect(markReferenceVerified('r1', store)).toBe(false)
    expect(markReferenceVerified('r2', store)).toBe(true)
  })
})
