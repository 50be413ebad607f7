import { describe, expect, it } from 'vitest'
import { cashoutDisplayAmount } from './cashout-amount'

describe('cashoutDisplayAmount', () => {
  it.each([
    [5, null, 500],
    [9.99, null, 999],
    [10, null, 10],
    [2500, 'ignored ₦1', 2500],
    ['7', null, 700],
    ['1500', null, 1500],
    [undefined, 'Your cash-out of ₦2,500.50 has been completed', 2500.5],
    [null, 'Cash-out of ₦ 12,000 submitted', 12000],
    [undefined, 'No amount here', null],
    [undefined, undefined, null],
  ])('amount %s, message %s → %s', (amount, message, want) => {
    expect(cashoutDisplayAmount(amount, message)).toBe(want)
  })
})
