import { describe, expect, it } from 'vitest'
import { periodLabel, statementRange, statementTotals } from './statement'

describe('statementTotals', () => {
  it('adds streams and naira exactly', () => {
    const rows = [
      { period_start: '2026-01-01', streams: 3, amount: 150 },
      { period_start: '2026-01-02', streams: 0, amount: 0 },
      { period_start: '2026-01-03', streams: 1, amount: 0.1 },
      { period_start: '2026-01-04', streams: 1, amount: 0.2 },
    ]
    expect(statementTotals(rows)).toEqual({ streams: 5, amount: 150.3 })
  })
  it('reads numbers sent as strings', () => {
    expect(statementTotals([{ period_start: 'x', streams: '2' as unknown as number, amount: '100.50' as unknown as number }])).toEqual({ streams: 2, amount: 100.5 })
  })
  it('is zero for no rows', () => expect(statementTotals([])).toEqual({ streams: 0, amount: 0 }))
})

describe('statementRange', () => {
  const today = new Date(2026, 2, 15)
  it('offers 30 days, 12 weeks or 12 months', () => {
    expect(statementRange('day', today)).toEqual({ from: '2026-02-14', to: '2026-03-15' })
    expect(statementRange('week', today)).toEqual({ from: '2025-12-28', to: '2026-03-15' })
    expect(statementRange('month', today)).toEqual({ from: '2025-04-01', to: '2026-03-15' })
  })
})

describe('periodLabel', () => {
  it('names days, weeks and months', () => {
    expect(periodLabel('month', '2026-03-01')).toBe('March 2026')
    expect(periodLabel('week', '2026-03-02')).toMatch(/^Week of 2 Mar 2026$/)
    expect(periodLabel('day', '2026-03-15')).toBe('15 Mar 2026')
  })
})
