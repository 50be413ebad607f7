// CSV exports of the wallet: the ledger as its owner sees it, and the
// earnings statement with its total line.
import { toCsv } from '@/lib/csv'
import type { LedgerRow } from '../api/wallet'
import { LEDGER_KINDS } from '../api/wallet'
import { periodLabel, statementTotals, type StatementPeriod, type StatementRow } from './statement'

/** signedAmount is a movement as the wallet owner sees it: money out is negative. */
export const signedAmount = (r: LedgerRow, userId: string) => (r.from_wallet === userId ? -Number(r.amount) : Number(r.amount))
/** balanceAfter is the owner's balance after the movement. */
export const balanceAfter = (r: LedgerRow, userId: string) => Number(r.from_wallet === userId ? r.from_balance_after : r.to_balance_after)

/** ledgerCsv is the CSV export of movements. */
export function ledgerCsv(rows: LedgerRow[], userId: string) {
  return toCsv(rows, [
    { header: 'Date', value: (r) => new Date(r.created_at).toISOString() },
    { header: 'Type', value: (r) => LEDGER_KINDS[r.kind] ?? r.kind },
    { header: 'Reference', value: (r) => r.reference },
    { header: 'Amount (NGN)', value: (r) => signedAmount(r, userId).toFixed(2) },
    { header: 'Balance after (NGN)', value: (r) => balanceAfter(r, userId).toFixed(2) },
  ])
}

/** statementCsv is the statement as CSV, with a total line. */
export function statementCsv(period: StatementPeriod, rows: StatementRow[]) {
  const t = statementTotals(rows)
  return toCsv([...rows, { period_start: 'Total', streams: t.streams, amount: t.amount }], [
    { header: 'Period', value: (r) => (r.period_start === 'Total' ? 'Total' : periodLabel(period, r.period_start)) },
    { header: 'Start', value: (r) => (r.period_start === 'Total' ? '' : r.period_start) },
    { header: 'Paid streams', value: (r) => r.streams },
    { header: 'Earnings (NGN)', value: (r) => Number(r.amount).toFixed(2) },
  ])
}

