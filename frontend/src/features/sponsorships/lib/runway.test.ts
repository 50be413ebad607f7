import { describe, expect, it } from 'vitest'
import { isLowBalance, runway, runwayText } from './runway'

describe('runway', () => {
  it('matches the database: ₦750 at ₦50 a stream, ₦200 spent in 7 days', () => {
    expect(runway(750, 50, 200)).toEqual({ streamsLeft: 15, daysLeft: 26.3 })
  })
  it('has no days figure without recent spending', () => {
    expect(runway(1000, 50, 0)).toEqual({ streamsLeft: 20, daysLeft: null })
  })
  it('rounds streams down and treats a negative balance as empty', () => {
    expect(runway(99, 50, 0).streamsLeft).toBe(1)
    expect(runway(-5, 50, 100)).toEqual({ streamsLeft: 0, daysLeft: 0 })
  })
  it('words it', () => {
    expect(runwayText({ streamsLeft: 1, daysLeft: null })).toBe('1 stream left · no spending in the last 7 days')
    expect(runwayText({ streamsLeft: 15, daysLeft: 26.3 })).toBe('15 streams left · about 26.3 days at the current pace')
    expect(runwayText({ streamsLeft: 0, daysLeft: 0 })).toBe('0 streams left · about less than a day at the current pace')
  })
})

describe('isLowBalance', () => {
  it('warns under ₦100 only', () => {
    expect(isLowBalance(99.99)).toBe(true)
    expect(isLowBalance(100)).toBe(false)
  })
})
