import { describe, expect, it } from 'vitest'
import { remaining } from './countdown'

describe('remaining', () => {
  const now = Date.parse('2026-01-01T00:00:00Z')
  it('splits into days, hours, minutes and seconds', () => {
    expect(remaining('2026-01-02T03:04:05Z', now)).toEqual({ days: 1, hours: 3, minutes: 4, seconds: 5, done: false })
  })
  it('is done at zero, in the past, or for a bad date', () => {
    expect(remaining('2026-01-01T00:00:00Z', now).done).toBe(true)
    expect(remaining('2025-12-31T00:00:00Z', now).done).toBe(true)
    expect(remaining('', now).done).toBe(true)
  })
})
