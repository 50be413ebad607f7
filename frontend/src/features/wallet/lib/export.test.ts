import { describe, expect, it } from 'vitest'
import type { LedgerRow } from '../api/wallet'
import { balanceAfter, ledgerCsv, signedAmount, statementCsv } from './export'

const me = 'me'
const row = (over: Partial<LedgerRow>): LedgerRow => ({
  id: '1',
  reference: 'ref',
  kind: 'sponsored_stream',
  amount: 50,
  from_wallet: 'sponsor',
  to_wallet: me,
  from_balance_after: 950,
  to_balance_after: 50,
  created_at: '2026-03-01T10:00:00Z',
  track_id: null,
  ...over,
})

describe('ledger export', () => {
  it('signs money out as negative and shows the owner balance', () => {
    expect(signedAmount(row({}), me)).toBe(50)
    expect(balanceAfter(row({}), me)).toBe(50)
    const out = row({ kind: 'cashout_hold', from_wallet: me, to_wallet: 'held', amount: 1000, from_balance_after: 200 })
    expect(signedAmount(out, me)).toBe(-1000)
    expect(balanceAfter(out, me)).toBe(200)
  })
  it('writes CSV rows', () => {
    const csv = ledgerCsv([row({ reference: 'stream-1' }), row({ kind: 'cashout_hold', from_wallet: me, amount: 1000, from_balance_after: 200, reference: 'cashout-hold:x' })], me)
    expect(csv.split('\r\n')).toEqual([
      'Date,Type,Reference,Amount (NGN),Balance after (NGN)',
      '2026-03-01T10:00:00.000Z,Sponsored stream,stream-1,50.00,50.00',
      '2026-03-01T10:00:00.000Z,Cash-out (held),cashout-hold:x,-1000.00,200.00',
      '',
    ])
  })
})

describe('statement export', () => {
  it('adds a total line equal to the sum of the periods', () => {
    const csv = statementCsv('month', [
      { period_start: '2026-01-01', streams: 2, amount: 100 },
      { period_start: '2026-02-01', streams: 3, amount: 150.5 },
    ])
    expect(csv.split('\r\n')).toEqual([
      'Period,Start,Paid streams,Earnings (NGN)',
      'January 2026,2026-01-01,2,100.00',
      'February 2026,2026-02-01,3,150.50',
      'Total,,5,250.50',
      '',
    ])
  })
})
