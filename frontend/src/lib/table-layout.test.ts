import { describe, expect, it } from 'vitest'
import { chooseTableLayout, type ColumnFit } from './table-layout'

// The artist's tracks table: title, streams, earnings, sponsor and the actions.
const tracks: ColumnFit[] = [
  { id: 'track', width: 180, priority: 1 },
  { id: 'streams', width: 110, priority: 3 },
  { id: 'earnings', width: 100, priority: 2 },
  { id: 'sponsor', width: 130, priority: 4 },
  { id: 'actions', width: 170, priority: 99, action: true },
]

describe('chooseTableLayout', () => {
  it('shows every column when they all fit', () => {
    expect(chooseTableLayout(tracks, 1200)).toEqual({ mode: 'table', shown: ['track', 'streams', 'earnings', 'sponsor', 'actions'], folded: [] })
    expect(chooseTableLayout(tracks, 690)).toEqual({ mode: 'table', shown: ['track', 'streams', 'earnings', 'sponsor', 'actions'], folded: [] })
  })

  it('folds the least important columns first, keeps the actions and the columns in their order', () => {
    // 689 px: the sponsor (priority 4) goes.
    expect(chooseTableLayout(tracks, 689)).toEqual({ mode: 'table', shown: ['track', 'streams', 'earnings', 'actions'], folded: ['sponsor'] })
    // 460 px: actions 170 + track 180 + earnings 100; streams (priority 3) no longer fits.
    expect(chooseTableLayout(tracks, 460)).toEqual({ mode: 'table', shown: ['track', 'earnings', 'actions'], folded: ['streams', 'sponsor'] })
  })

  it('never shows a less important column while a more important one is folded', () => {
    const cols: ColumnFit[] = [
      { id: 'a', width: 100, priority: 1 },
      { id: 'wide', width: 300, priority: 2 },
      { id: 'narrow', width: 50, priority: 3 },
    ]
    expect(chooseTableLayout(cols, 200)).toEqual({ mode: 'cards' })
    expect(chooseTableLayout(cols, 420)).toEqual({ mode: 'table', shown: ['a', 'wide'], folded: ['narrow'] })
  })

  it('turns into cards when fewer than two data columns would be left (a phone)', () => {
    expect(chooseTableLayout(tracks, 326)).toEqual({ mode: 'cards' })
    expect(chooseTableLayout(tracks, 449)).toEqual({ mode: 'cards' })
  })

  it('orders equal priorities from the left', () => {
    const cols: ColumnFit[] = [
      { id: 'a', width: 100, priority: 1 },
      { id: 'b', width: 100, priority: 1 },
      { id: 'c', width: 100, priority: 1 },
    ]
    expect(chooseTableLayout(cols, 250)).toEqual({ mode: 'table', shown: ['a', 'b'], folded: ['c'] })
  })

  it('makes a single column too wide for the width a card', () => {
    expect(chooseTableLayout([{ id: 'only', width: 400, priority: 1 }], 300)).toEqual({ mode: 'cards' })
    expect(chooseTableLayout([{ id: 'only', width: 200, priority: 1 }], 300)).toEqual({ mode: 'table', shown: ['only'], folded: [] })
  })
})
