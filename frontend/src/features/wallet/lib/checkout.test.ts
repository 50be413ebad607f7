import { describe, expect, it } from 'vitest'
import { checkoutBreakdown, VERIFICATION_FEE } from './checkout'

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
