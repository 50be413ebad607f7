import { describe, expect, it } from 'vitest'
import { flattenPages, nextPageParam } from './keyset'

describe('nextPageParam', () => {
  it('is the last row of a full page', () => {
    expect(nextPageParam([{ id: 'a' }, { id: 'b' }], 2)).toEqual({ id: 'b' })
  })
  it('ends the list on a short or empty page', () => {
    expect(nextPageParam([{ id: 'a' }], 2)).toBeUndefined()
    expect(nextPageParam([], 2)).toBeUndefined()
  })
})

describe('flattenPages', () => {
  it('joins pages in order and drops a row seen twice', () => {
    const rows = flattenPages([[{ id: 'a' }, { id: 'b' }], [{ id: 'b' }, { id: 'c' }]], (r) => r.id)
    expect(rows.map((r) => r.id)).toEqual(['a', 'b', 'c'])
  })
  it('is empty before the first page', () => {
    expect(flattenPages(undefined, (r: { id: string }) => r.id)).toEqual([])
  })
})
