import { describe, expect, it } from 'vitest'
import { addToQueue, current, fromList, moveInQueue, nextStep, playNext, previousStep, removeFromQueue, setShuffle, upcoming, type Queue, type QueueItem } from './queue'

const list = (...ids: string[]): QueueItem[] => ids.map((id) => ({ id }))
const ids = (q: Queue<QueueItem>) => q.items.map((t) => t.id)
// A replayable random source: the same sequence every run.
const seeded = (seed: number) => () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646

describe('queue order', () => {
  it('plays from a list: the whole list, standing at the chosen track', () => {
    const q = fromList(list('a', 'b', 'c', 'd'), 1, false)
    expect(ids(q)).toEqual(['a', 'b', 'c', 'd'])
    expect(current(q)?.id).toBe('b')
    expect(upcoming(q).map((t) => t.id)).toEqual(['c', 'd'])
  })

  it('keeps a track named twice in a list once', () => {
    expect(ids(fromList(list('a', 'b', 'a', 'c'), 2, false))).toEqual(['a', 'b', 'c'])
  })

  it('Next moves on and stops at the end with repeat off', () => {
    const q = fromList(list('a', 'b'), 0, false)
    expect(nextStep(q, { auto: false, repeat: 'off' })).toEqual({ index: 1 })
    expect(nextStep({ ...q, index: 1 }, { auto: false, repeat: 'off' })).toEqual({ stop: true })
    expect(nextStep({ ...q, index: 1 }, { auto: true, repeat: 'off' })).toEqual({ stop: true })
  })

  it('Play next goes right after the current track; Add to queue at the end; both move a queued track', () => {
    let q = fromList(list('a', 'b', 'c'), 0, false)
    q = playNext(q, { id: 'x' })
    expect(ids(q)).toEqual(['a', 'x', 'b', 'c'])
    q = addToQueue(q, { id: 'y' })
    expect(ids(q)).toEqual(['a', 'x', 'b', 'c', 'y'])
    q = playNext(q, { id: 'c' })
    expect(ids(q)).toEqual(['a', 'c', 'x', 'b', 'y'])
    q = addToQueue(q, { id: 'a' })
    expect(ids(q)).toEqual(['a', 'c', 'x', 'b', 'y'])
    expect(current(q)?.id).toBe('a')
  })

  it('a track queued before the current one keeps the current one current when moved', () => {
    const q = addToQueue(fromList(list('a', 'b', 'c'), 2, false), { id: 'a' })
    expect(ids(q)).toEqual(['b', 'c', 'a'])
    expect(current(q)?.id).toBe('c')
  })

  it('Play next on an empty queue makes a queue of that track', () => {
    const q = playNext(fromList(list(), 0, false), { id: 'z' })
    expect(ids(q)).toEqual(['z'])
    expect(q.index).toBe(0)
  })
})

describe('shuffle', () => {
  const ten = list(...'abcdefghij'.split(''))

  it('plays the chosen track first and every other track once, in a different order', () => {
    const q = fromList(ten, 3, true, seeded(7))
    expect(current(q)?.id).toBe('d')
    expect(q.index).toBe(0)
    expect([...ids(q)].sort()).toEqual(ten.map((t) => t.id))
    expect(ids(q).slice(1)).not.toEqual(['a', 'b', 'c', 'e', 'f', 'g', 'h', 'i', 'j'])
  })

  it('switching it on shuffles only what comes next; off restores the order at the same track', () => {
    const q = fromList(ten, 4, false)
    const on = setShuffle(q, true, seeded(3))
    expect(ids(on).slice(0, 5)).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(ids(on).slice(5)).not.toEqual(['f', 'g', 'h', 'i', 'j'])
    expect([...ids(on).slice(5)].sort()).toEqual(['f', 'g', 'h', 'i', 'j'])
    const moved = { ...on, index: 7 }
    const off = setShuffle(moved, false)
    expect(ids(off)).toEqual(ten.map((t) => t.id))
    expect(current(off)?.id).toBe(current(moved)?.id)
  })

  it('keeps tracks added while shuffled when switched off', () => {
    const on = addToQueue(setShuffle(fromList(list('a', 'b', 'c'), 0, false), true, seeded(1)), { id: 'n' })
    expect(ids(setShuffle(on, false))).toEqual(['a', 'b', 'c', 'n'])
  })
})

describe('repeat', () => {
  const q = fromList(list('a', 'b', 'c'), 2, false)

  it('repeat all starts over after the last track, by Next and by autoplay', () => {
    expect(nextStep(q, { auto: true, repeat: 'all' })).toEqual({ index: 0 })
    expect(nextStep(q, { auto: false, repeat: 'all' })).toEqual({ index: 0 })
  })

  it('repeat one replays the track when it ends, but a pressed Next moves on', () => {
    expect(nextStep({ ...q, index: 0 }, { auto: true, repeat: 'one' })).toEqual({ restart: true })
    expect(nextStep({ ...q, index: 0 }, { auto: false, repeat: 'one' })).toEqual({ index: 1 })
  })

  it('a single track on repeat all plays again', () => {
    expect(nextStep(fromList(list('a'), 0, false), { auto: true, repeat: 'all' })).toEqual({ restart: true })
  })
})

describe('previous', () => {
  const q = fromList(list('a', 'b', 'c'), 1, false)

  it('restarts the track past 3 s, goes back within them', () => {
    expect(previousStep(q, { currentTime: 3.5, repeat: 'off' })).toEqual({ restart: true })
    expect(previousStep(q, { currentTime: 3, repeat: 'off' })).toEqual({ index: 0 })
    expect(previousStep(q, { currentTime: 0.4, repeat: 'off' })).toEqual({ index: 0 })
  })

  it('restarts the first track, or goes to the last one when the queue repeats', () => {
    expect(previousStep({ ...q, index: 0 }, { currentTime: 1, repeat: 'off' })).toEqual({ restart: true })
    expect(previousStep({ ...q, index: 0 }, { currentTime: 1, repeat: 'all' })).toEqual({ index: 2 })
  })
})

describe('data saver: no autoplay of previews', () => {
  const q = fromList([{ id: 'a' }, { id: 'p', isPreview: true }, { id: 'c' }], 0, false)

  it('autoplay passes over a preview track with the data saver on', () => {
    expect(nextStep(q, { auto: true, repeat: 'off', skipPreviews: true })).toEqual({ index: 2 })
    expect(nextStep(q, { auto: true, repeat: 'off', skipPreviews: false })).toEqual({ index: 1 })
  })

  it('a pressed Next still plays the preview', () => {
    expect(nextStep(q, { auto: false, repeat: 'off', skipPreviews: true })).toEqual({ index: 1 })
  })

  it('stops when only previews remain', () => {
    const p = fromList([{ id: 'a' }, { id: 'p', isPreview: true }], 0, false)
    expect(nextStep(p, { auto: true, repeat: 'off', skipPreviews: true })).toEqual({ stop: true })
  })
})

describe('queue editor', () => {
  it('moves an upcoming track; the current track keeps playing', () => {
    const q = fromList(list('a', 'b', 'c', 'd'), 1, false)
    const down = moveInQueue(q, 2, 3)
    expect(ids(down)).toEqual(['a', 'b', 'd', 'c'])
    expect(current(down)?.id).toBe('b')
    const up = moveInQueue(q, 3, 2)
    expect(ids(up)).toEqual(['a', 'b', 'd', 'c'])
    // Moved before the current track: it has been played, the current one stays current.
    const before = moveInQueue(q, 3, 0)
    expect(ids(before)).toEqual(['d', 'a', 'b', 'c'])
    expect(current(before)?.id).toBe('b')
    expect(upcoming(before).map((t) => t.id)).toEqual(['c'])
  })

  it('moves the current track with its place, and ignores moves out of the queue', () => {
    const q = fromList(list('a', 'b', 'c'), 0, false)
    const moved = moveInQueue(q, 0, 2)
    expect(ids(moved)).toEqual(['b', 'c', 'a'])
    expect(current(moved)?.id).toBe('a')
    expect(moveInQueue(q, 5, 0)).toBe(q)
    expect(moveInQueue(q, 1, 1)).toBe(q)
    expect(ids(moveInQueue(q, 1, 99))).toEqual(['a', 'c', 'b'])
  })

  it('keeps the order to return to when a shuffled queue is reordered', () => {
    const q = fromList(list('a', 'b', 'c', 'd'), 0, true, seeded(7))
    const moved = moveInQueue(q, 3, 1)
    expect(moved.unshuffled?.map((t) => t.id)).toEqual(['a', 'b', 'c', 'd'])
    expect(ids(setShuffle(moved, false))).toEqual(['a', 'b', 'c', 'd'])
  })

  it('removes a queued track, before or after the current one, but not the one playing', () => {
    const q = fromList(list('a', 'b', 'c'), 1, false)
    const after = removeFromQueue(q, 'c')
    expect([ids(after), current(after)?.id]).toEqual([['a', 'b'], 'b'])
    const before = removeFromQueue(q, 'a')
    expect([ids(before), current(before)?.id]).toEqual([['b', 'c'], 'b'])
    expect(removeFromQueue(q, 'b')).toBe(q)
    const shuffled = removeFromQueue(fromList(list('a', 'b', 'c'), 0, true, seeded(3)), 'c')
    expect(shuffled.unshuffled?.map((t) => t.id)).toEqual(['a', 'b'])
  })
})
