import { describe, expect, it } from 'vitest'
import { badgeText, pageButtons } from './paging'

describe('notification badge', () => {
  it.each([
    [0, null],
    [1, '1'],
    [99, '99'],
    [100, '99+'],
  ])('%d unread → %s', (n, want) => expect(badgeText(n)).toBe(want))
})

describe('pageButtons', () => {
  it('shows at most 5 buttons around the current page', () => {
    expect(pageButtons(1, 3)).toEqual([1])
    expect(pageButtons(1, 12)).toEqual([1, 2, 3])
    expect(pageButtons(1, 60)).toEqual([1, 2, 3, 4, 5])
    expect(pageButtons(6, 60)).toEqual([4, 5, 6, 7, 8])
    expect(pageButtons(12, 60)).toEqual([8, 9, 10, 11, 12])
  })
})
