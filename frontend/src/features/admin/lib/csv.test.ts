import { describe, expect, it } from 'vitest'
import { csvField, toCsv } from './csv'

describe('csvField', () => {
  it('quotes commas, quotes and line breaks', () => {
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('two\nlines')).toBe('"two\nlines"')
  })
  it('leaves plain values and numbers alone, empty for null', () => {
    expect(csvField('plain')).toBe('plain')
    expect(csvField(-50)).toBe('-50')
    expect(csvField(null)).toBe('')
    expect(csvField(undefined)).toBe('')
  })
  it('defuses text a spreadsheet would run as a formula', () => {
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`)
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)")
    expect(csvField('-1+2')).toBe("'-1+2")
  })
})

describe('toCsv', () => {
  it('writes a header and one CRLF line per row', () => {
    const csv = toCsv(
      [
        { header: 'Reference', value: (r: { ref: string; amount: number }) => r.ref },
        { header: 'Amount', value: (r) => r.amount },
      ],
      [
        { ref: 'stream-1', amount: 50 },
        { ref: 'a,b', amount: 1000.5 },
      ],
    )
    expect(csv).toBe('Reference,Amount\r\nstream-1,50\r\n"a,b",1000.5\r\n')
  })
})
