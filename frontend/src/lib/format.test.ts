import { describe, expect, it } from 'vitest'
import { abbreviateNumber, formatAmount, formatDuration, formatNaira, initials } from './format'

describe('abbreviateNumber', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1000, '1K'],
    [1500, '1.5K'],
    [12_345, '12.3K'],
    [999_999, '999.9K'],
    [1_000_000, '1M'],
    [2_450_000, '2.4M'],
    [1_000_000_000, '1B'],
    [3_750_000_000, '3.7B'],
    [-1500, '-1.5K'],
    [Number.NaN, '0'],
  ])('%d → %s', (n, want) => {
    expect(abbreviateNumber(n)).toBe(want)
  })
})

describe('naira formatting (en-NG, 0–2 decimals)', () => {
  it.each([
    [50, '₦50'],
    [1000, '₦1,000'],
    [1234.5, '₦1,234.5'],
    [60000, '₦60,000'],
    [0.125, '₦0.13'],
    [1_234_567.891, '₦1,234,567.89'],
    [-250, '-₦250'],
  ])('%d → %s', (n, want) => {
    expect(formatNaira(n)).toBe(want)
  })
  it('formats bare amounts without the symbol', () => {
    expect(formatAmount(64500)).toBe('64,500')
    expect(formatAmount(Number.POSITIVE_INFINITY)).toBe('0')
  })
})

describe('formatDuration', () => {
  it.each([
    [0, '0:00'],
    [9.9, '0:09'],
    [65, '1:05'],
    [3600, '60:00'],
    [-1, '0:00'],
  ])('%d → %s', (n, want) => expect(formatDuration(n)).toBe(want))
})

describe('initials', () => {
  it.each([
    ['Kola Ade', 'KA'],
    ['Ada Lovelace', 'AL'],
    ['Backline Admin Team', 'BT'],
    ['  Zenith   Sounds Limited ', 'ZL'],
    ['zara', 'Z'],
    ['  DJ   Lekan ', 'DL'],
    ['Ọlá Adé', 'ỌA'],
    ['@tunde_b', 'TB'],
    ['', '?'],
    [null, '?'],
  ])('%s → %s', (name, want) => expect(initials(name)).toBe(want))
})
