import { describe, expect, it } from 'vitest'
import { presentIds } from './use-online-presence'

describe('presentIds', () => {
  it('lists the keys that have at least one presence', () => {
    expect(presentIds({ a: [{ online_at: 'x' }], b: [], c: [{}, {}] })).toEqual(new Set(['a', 'c']))
  })
  it('is empty for an empty channel', () => {
    expect(presentIds({})).toEqual(new Set())
  })
})
