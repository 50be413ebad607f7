import { describe, expect, it } from 'vitest'
import { canCashOut, isNuban, validateCashout } from './cashout'

const banks = ['Zenith Bank', 'Access Bank']
const ok = { amount: 1000, bank: 'Zenith Bank', accountNumber: '0123456789', accountName: 'Ada Artist' }

describe('isNuban', () => {
  it.each([
    ['0123456789', true],
    [' 0123456789 ', true],
    ['012345678', false],
    ['01234567890', false],
    ['01234x6789', false],
    ['', false],
  ])('%j is %s', (s, want) => expect(isNuban(s)).toBe(want))
})

describe('validateCashout', () => {
  it('accepts the minimum when it is available', () => {
    expect(validateCashout(ok, 1000, 1000, banks)).toEqual({})
  })
  it('refuses under the minimum, over the balance and kobo fractions', () => {
    expect(validateCashout({ ...ok, amount: 999.99 }, 5000, 1000, banks).amount).toBe('Minimum cash-out amount is ₦1,000')
    expect(validateCashout({ ...ok, amount: 1500 }, 1250.5, 1000, banks).amount).toBe('You can cash out at most ₦1,250.5')
    expect(validateCashout({ ...ok, amount: 1000.001 }, 5000, 1000, banks).amount).toBe('Enter a valid amount')
    expect(validateCashout({ ...ok, amount: Number.NaN }, 5000, 1000, banks).amount).toBe('Enter a valid amount')
  })
  it('checks the bank details', () => {
    const e = validateCashout({ ...ok, bank: 'Bank of Nowhere', accountNumber: '12345', accountName: ' a ' }, 5000, 1000, banks)
    expect(e).toEqual({ bank: 'Choose your bank from the list', accountNumber: 'Account number must be 10 digits', accountName: 'Enter the account name' })
  })
  it('enables the button only from the minimum', () => {
    expect(canCashOut(999, 1000)).toBe(false)
    expect(canCashOut(1000, 1000)).toBe(true)
  })
})
