import { describe, expect, it } from 'vitest'
import { dayEnd, dayStart, isUuid, orUndefined, readParams, triState, withParams } from './filters'

describe('query string filters', () => {
  it('reads keys with empty defaults', () => {
    expect(readParams(new URLSearchParams('q=ada&role=fan'), ['q', 'role', 'suspended'])).toEqual({ q: 'ada', role: 'fan', suspended: '' })
  })
  it('patches a copy and removes emptied keys', () => {
    const p = new URLSearchParams('q=ada&role=fan')
    const next = withParams(p, { role: '', suspended: 'yes', user: null })
    expect(next.toString()).toBe('q=ada&suspended=yes')
    expect(p.toString()).toBe('q=ada&role=fan')
  })
  it('maps tri-state selects and empty strings', () => {
    expect([triState('yes'), triState('no'), triState('')]).toEqual([true, false, undefined])
    expect([orUndefined(''), orUndefined('x')]).toEqual([undefined, 'x'])
  })
})

describe('Lagos days', () => {
  it('starts a day at midnight Lagos time and ends it 24 h later', () => {
    expect(dayStart('2025-03-01')).toBe('2025-02-28T23:00:00.000Z')
    expect(dayEnd('2025-03-01')).toBe('2025-03-01T23:00:00.000Z')
    expect(dayStart('')).toBeUndefined()
    expect(dayEnd('01/03/2025')).toBeUndefined()
  })
})

describe('isUuid', () => {
  it('tells an id from a search text', () => {
    expect(isUuid('5eed0000-0000-4000-8000-000000000001')).toBe(true)
    expect(isUuid('ada@backline.test')).toBe(false)
  })
})
