import { describe, expect, it } from 'vitest'
import { moveItem } from './playlists'

describe('moveItem', () => {
  it('moves an item up and down', () => {
    expect(moveItem(['a', 'b', 'c', 'd'], 0, 2)).toEqual(['b', 'c', 'a', 'd'])
    expect(moveItem(['a', 'b', 'c', 'd'], 3, 1)).toEqual(['a', 'd', 'b', 'c'])
  })
  it('leaves the list alone for out-of-range or equal positions', () => {
    const l = ['a', 'b']
    expect(moveItem(l, 1, 1)).toBe(l)
    expect(moveItem(l, -1, 0)).toBe(l)
    expect(moveItem(l, 0, 2)).toBe(l)
  })
})
