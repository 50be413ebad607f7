import { describe, expect, it } from 'vitest'
import { checkLedger, recountProblems, type LedgerSummary } from './ledger'

const base: LedgerSummary = {
  wallets: { total: 0, users: 3000, negative: 0, accounts: { 'provider:seed': -4000, 'cashout:held': 1000 } },
  ledger: { count: 6, users_net: 3000 },
  balanced: true,
  checked_at: '2025-01-01T00:00:00Z',
}

describe('checkLedger', () => {
  it('passes a balanced ledger', () => {
    expect(checkLedger(base)).toEqual({ ok: true, problems: [], usersHold: 3000, ledgerNet: 3000 })
  })
  it('names each broken rule', () => {
    const c = checkLedger({ ...base, wallets: { ...base.wallets, total: 1, users: 3001, negative: 1 }, balanced: false })
    expect(c.ok).toBe(false)
    expect(c.problems).toEqual([
      'Wallets sum to 1, not 0',
      '1 internal wallet(s) are negative',
      "Users hold 3001 but the ledger's net into user wallets is 3000",
    ])
  })
  it('compares to the kobo, not with float noise', () => {
    expect(checkLedger({ ...base, wallets: { ...base.wallets, users: 0.1 + 0.2 }, ledger: { count: 1, users_net: 0.3 } }).ok).toBe(true)
  })
  it('trusts an unbalanced flag from the database', () => {
    expect(checkLedger({ ...base, balanced: false }).problems).toEqual(['The database reports the ledger as unbalanced'])
  })
})

describe('recountProblems', () => {
  const summary = { wallets: { total: 0, users: 500, negative: 0, accounts: {} }, ledger: { count: 9, users_net: 500 }, balanced: true, checked_at: '2026-01-01T00:00:00Z' }
  it('is empty for a ledger whose full count agrees', () => {
    expect(recountProblems({ ...summary, totals_match: true, mismatched_wallets: { count: 0 } })).toEqual([])
  })
  it('names drifted totals and wallets that disagree with their own movements', () => {
    expect(recountProblems({ ...summary, balanced: false, totals_match: false, mismatched_wallets: { count: 2 } })).toEqual([
      'The running totals differ from a full count of the ledger',
      '2 wallet(s) differ from their own ledger movements',
    ])
  })
})
