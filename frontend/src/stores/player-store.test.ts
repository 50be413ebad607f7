import { beforeEach, describe, expect, it } from 'vitest'
import { aTrack } from '@/test/track'
import { DEFAULT_VOLUME, usePlayerStore } from './player-store'

const track = (id: string) => aTrack({ id, title: `Song ${id}` })

describe('player store', () => {
  beforeEach(() => usePlayerStore.getState().clear())

  it('starts a selected track, toggles it on a second press, and switches on another track', () => {
    const s = usePlayerStore.getState
    s().playTrack(track('1'))
    expect(s().currentTrack?.id).toBe('1')
    expect(s().isPlaying).toBe(true)
    const firstPlay = s().playId
    s().playTrack(track('1'))
    expect(s().isPlaying).toBe(false)
    expect(s().playId).toBe(firstPlay)
    s().playTrack(track('2'))
    expect(s().currentTrack?.id).toBe('2')
    expect(s().isPlaying).toBe(true)
    expect(s().playId).toBe(firstPlay + 1)
  })

  it('defaults the volume to 80 and clears everything', () => {
    expect(usePlayerStore.getState().volume).toBe(DEFAULT_VOLUME)
    usePlayerStore.getState().playTrack(track('3'))
    usePlayerStore.getState().setExpanded(true)
    usePlayerStore.getState().clear()
    expect(usePlayerStore.getState()).toMatchObject({ currentTrack: null, isPlaying: false, isExpanded: false })
  })
})

describe('player queue', () => {
  const mk = (id: string) => ({ id, title: id, duration: 100 }) as unknown as import('@/types/api').Track
  const [a, b, c] = [mk('a'), mk('b'), mk('c')]
  it('moves within a playlist and stops at its ends', () => {
    usePlayerStore.getState().clear()
    usePlayerStore.getState().playQueue([a, b, c], 1)
    expect(usePlayerStore.getState().currentTrack?.id).toBe('b')
    usePlayerStore.getState().next()
    expect(usePlayerStore.getState().currentTrack?.id).toBe('c')
    usePlayerStore.getState().next()
    expect(usePlayerStore.getState().currentTrack?.id).toBe('c')
    usePlayerStore.getState().previous()
    expect(usePlayerStore.getState().currentTrack?.id).toBe('b')
  })
  it('restarts the track when previous is pressed past 3 s', () => {
    usePlayerStore.getState().playQueue([a, b], 1)
    usePlayerStore.getState().setProgress(42, 100)
    usePlayerStore.getState().previous()
    expect(usePlayerStore.getState().currentTrack?.id).toBe('b')
    expect(usePlayerStore.getState().seekRequest).toBe(0)
  })
  it('leaves the queue when a track outside it is played; alone, next does nothing', () => {
    usePlayerStore.getState().playQueue([a, b], 0)
    usePlayerStore.getState().playTrack(c)
    expect(usePlayerStore.getState().queue).toEqual([])
    usePlayerStore.getState().next()
    expect(usePlayerStore.getState().currentTrack?.id).toBe('c')
  })
})
