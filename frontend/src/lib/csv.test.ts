import { describe, expect, it } from 'vitest'
import { csvCell, toCsv } from './csv'

describe('toCsv', () => {
  it('writes a header and CRLF rows', () => {
    const rows = [
      { day: '2026-01-01', streams: 2, amount: 100 },
      { day: '2026-01-02', streams: 0, amount: 0 },
    ]
    const csv = toCsv(rows, [
      { header: 'Day', value: (r) => r.day },
      { header: 'Streams', value: (r) => r.streams },
      { header: 'Amount (NGN)', value: (r) => r.amount.toFixed(2) },
    ])
    expect(csv).toBe('Day,Streams,Amount (NGN)\r\n2026-01-01,2,100.00\r\n2026-01-02,0,0.00\r\n')
  })
  it('quotes commas, quotes and line breaks', () => {
    expect(csvCell('Ada, the "Great"')).toBe('"Ada, the ""Great"""')
    expect(csvCell('two\nlines')).toBe('"two\nlines"')
    expect(csvCell(null)).toBe('')
  })
  it('disarms spreadsheet formulas but keeps negative numbers', () => {
    expect(csvCell('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"')
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvCell('-50.00')).toBe('-50.00')
    expect(csvCell(-50)).toBe('-50')
  })
})
