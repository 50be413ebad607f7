// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from 'vitest'
import { aTrack } from '@/test/track'
import { DEFAULT_VOLUME, usePlayerStore } from './player-store'
import { useSettingsStore } from './settings-store'

const track = (id: string, over = {}) => aTrack({ id, title: `Song ${id}`, ...over })
const s = usePlayerStore.getState
const ids = () => s().queue.map((t) => t.id)

describe('player store', () => {
  beforeEach(() => {
    s().clear()
    usePlayerStore.setState({ shuffle: false, repeat: 'off' })
    useSettingsStore.setState({ dataSaver: false })
  })

  it('starts a selected track, toggles it on a second press, and switches on another track', () => {
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
    expect(s().volume).toBe(DEFAULT_VOLUME)
    s().playTrack(track('3'))
    s().setExpanded(true)
    s().clear()
    expect(s()).toMatchObject({ currentTrack: null, isPlaying: false, isExpanded: false, queue: [] })
  })

  it('playing from a list queues the rest of it; Next and autoplay move on, each a new play', () => {
    const list = ['a', 'b', 'c'].map((id) => track(id))
    s().playFrom(list, 0)
    expect(ids()).toEqual(['a', 'b', 'c'])
    const p = s().playId
    s().next()
    expect(s().currentTrack?.id).toBe('b')
    s().advance()
    expect(s().currentTrack?.id).toBe('c')
    expect(s().playId).toBe(p + 2)
    s().advance()
    expect(s().currentTrack?.id).toBe('c')
    expect(s().isPlaying).toBe(false)
    // The same list's current track toggles instead of restarting.
    s().playFrom(list, 2)
    expect(s().isPlaying).toBe(true)
  })

  it('Previous past 3 s restarts the track as a new play; within them plays the one before', () => {
    s().playFrom([track('a'), track('b')], 1)
    const p = s().playId
    s().setProgress(42, 100)
    s().previous()
    expect(s().currentTrack?.id).toBe('b')
    expect(s().seekRequest).toBe(0)
    expect(s().playId).toBe(p + 1)
    s().setProgress(1, 100)
    s().previous()
    expect(s().currentTrack?.id).toBe('a')
  })

  it('repeat one replays the track at its end; repeat cycles off, all, one', () => {
    s().playFrom([track('a'), track('b')], 0)
    s().cycleRepeat()
    expect(s().repeat).toBe('all')
    s().cycleRepeat()
    expect(s().repeat).toBe('one')
    const p = s().playId
    s().advance()
    expect(s().currentTrack?.id).toBe('a')
    expect(s().playId).toBe(p + 1)
    expect(s().seekRequest).toBe(0)
    s().cycleRepeat()
    expect(s().repeat).toBe('off')
  })

  it('shuffle keeps the current track and its list', () => {
    const list = 'abcdefgh'.split('').map((id) => track(id))
    s().playFrom(list, 2)
    s().toggleShuffle()
    expect(s().currentTrack?.id).toBe('c')
    expect([...ids()].sort()).toEqual('abcdefgh'.split(''))
    s().toggleShuffle()
    expect(ids()).toEqual('abcdefgh'.split(''))
  })

  it('Play next and Add to queue; with nothing playing they play the track', () => {
    s().addToQueue(track('x'))
    expect(s().currentTrack?.id).toBe('x')
    s().addToQueue(track('z'))
    s().playNext(track('y'))
    expect(ids()).toEqual(['x', 'y', 'z'])
    expect(s().currentTrack?.id).toBe('x')
  })

  it('a track outside the queue plays alone', () => {
    s().playFrom([track('a'), track('b')], 0)
    s().playTrack(track('c'))
    expect(ids()).toEqual(['c'])
    s().next()
    expect(s().currentTrack?.id).toBe('c')
  })

  it('autoplay skips previews with the data saver on', () => {
    useSettingsStore.setState({ dataSaver: true })
    s().playFrom([track('a'), track('p', { isPreview: true }), track('c')], 0)
    s().advance()
    expect(s().currentTrack?.id).toBe('c')
  })

  it('the queue, modes and volume survive a reload, paused', async () => {
    s().playFrom([track('a'), track('b'), track('c')], 1)
    s().cycleRepeat()
    s().setVolume(30)
    const kept = localStorage.getItem('backline-player')
    // A new page: the state is gone, then read back from the device.
    usePlayerStore.setState({ queue: [], index: -1, currentTrack: null, repeat: 'off', volume: DEFAULT_VOLUME, isPlaying: false })
    localStorage.setItem('backline-player', kept!)
    await usePlayerStore.persist.rehydrate()
    expect(ids()).toEqual(['a', 'b', 'c'])
    expect(s().currentTrack?.id).toBe('b')
    expect(s()).toMatchObject({ index: 1, repeat: 'all', volume: 30, isPlaying: false })
    s().next()
    expect(s().currentTrack?.id).toBe('c')
  })
})
