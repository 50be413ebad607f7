import { describe, expect, it } from 'vitest'
import { untilReset } from './reset'

describe('untilReset', () => {
  const midnight = '2026-03-02T00:00:00+01:00'
  it('counts down to the reset', () => {
    expect(untilReset(midnight, new Date('2026-03-01T21:30:15+01:00').getTime())).toBe('2:29:45')
    expect(untilReset(midnight, new Date('2026-03-01T23:59:59+01:00').getTime())).toBe('0:00:01')
  })
  it('stops at zero', () => expect(untilReset(midnight, new Date('2026-03-02T00:00:05+01:00').getTime())).toBe('0:00:00'))
})
