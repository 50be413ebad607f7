// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest'
import { forgetSearches, MAX_RECENT, recentSearches, rememberSearch } from './recent-searches'

beforeEach(() => localStorage.clear())

describe('recent searches', () => {
  it('keeps the newest first, each once whatever its case, up to the limit', () => {
    rememberSearch('burna')
    rememberSearch('tems')
    expect(rememberSearch('  Burna ')).toEqual(['Burna', 'tems'])
    for (let i = 0; i < MAX_RECENT + 3; i++) rememberSearch(`q${i}`)
    expect(recentSearches()).toHaveLength(MAX_RECENT)
    expect(recentSearches()[0]).toBe(`q${MAX_RECENT + 2}`)
  })

  it('ignores one letter and survives junk in storage', () => {
    expect(rememberSearch('a')).toEqual([])
    localStorage.setItem('backline:recent-searches', '{not json')
    expect(recentSearches()).toEqual([])
    localStorage.setItem('backline:recent-searches', '[1, "asa"]')
    expect(recentSearches()).toEqual(['asa'])
    forgetSearches()
    expect(recentSearches()).toEqual([])
  })
})
