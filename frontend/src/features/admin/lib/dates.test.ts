import { describe, expect, it } from 'vitest'
import { defaultKycExpiry, formatDate, formatDateTime } from './dates'

describe('admin dates', () => {
  it('shows instants in Lagos time', () => {
    // 23:30 UTC on 31 Dec is already 1 Jan in Lagos.
    expect(formatDate('2024-12-31T23:30:00Z')).toBe(formatDate('2025-01-01'))
    expect(formatDateTime('2025-01-01T11:00:00Z')).toContain('12:00')
  })
  it('shows a dash for nothing or garbage', () => {
    expect(formatDateTime(null)).toBe('—')
    expect(formatDate('not a date')).toBe('—')
  })
  it('proposes a KYC expiry one year out', () => {
    expect(defaultKycExpiry(new Date('2025-06-15T10:00:00Z'))).toBe('2026-06-15')
  })
})
