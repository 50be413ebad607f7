// Earnings statements: rows as get_earnings_statement returns them, their
// totals, and the date ranges the dashboard offers.

/** StatementPeriod is the statement's grouping. */
export type StatementPeriod = 'day' | 'week' | 'month'

/** DEFAULT_STATEMENT_PERIOD is the period the dashboard's statement opens on. */
export const DEFAULT_STATEMENT_PERIOD: StatementPeriod = 'day'

/** StatementRow is one period of a statement. */
export interface StatementRow {
  period_start: string
  streams: number
  amount: number
}

/** statementTotals sums a statement, in kobo so naira fractions add exactly. */
export function statementTotals(rows: StatementRow[]): { streams: number; amount: number } {
  let streams = 0
  let kobo = 0
  for (const r of rows) {
    streams += Number(r.streams)
    kobo += Math.round(Number(r.amount) * 100)
  }
  return { streams, amount: kobo / 100 }
}

/** statementRange is the default range for a period: 30 days, 12 weeks or 12 months up to today. */
export function statementRange(period: StatementPeriod, today: Date): { from: string; to: string } {
  const to = new Date(Date.UTC(today.getFullYear(), today.getMonth(), today.getDate()))
  const from = new Date(to)
  if (period === 'day') from.setUTCDate(from.getUTCDate() - 29)
  else if (period === 'week') from.setUTCDate(from.getUTCDate() - 7 * 11)
  else from.setUTCMonth(from.getUTCMonth() - 11, 1)
  const iso = (d: Date) => d.toISOString().slice(0, 10)
  return { from: iso(from), to: iso(to) }
}

/** periodLabel names a period's start for the statement table. */
export function periodLabel(period: StatementPeriod, start: string): string {
  const d = new Date(`${start}T00:00:00Z`)
  if (period === 'month') return d.toLocaleDateString('en-NG', { month: 'long', year: 'numeric', timeZone: 'UTC' })
  const day = d.toLocaleDateString('en-NG', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' })
  return period === 'week' ? `Week of ${day}` : day
}
