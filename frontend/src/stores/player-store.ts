import { create } from 'zustand'
import type { Track } from '@/types/api'

// Client state of the player (spec section 4, "Player"). Shared because every
// track card starts playback; the player feature renders the bar.

/** DEFAULT_VOLUME is the player's starting and unmute volume. */
export const DEFAULT_VOLUME = 80

interface PlayerState {
  currentTrack: Track | null
  isPlaying: boolean
  isExpanded: boolean
  volume: number
  currentTime: number
  duration: number
  /** playId increments on every new play of a track, so per-play state resets. */
  playId: number
  /** seekRequest is a time the audio element should jump to; consumed by the bar. */
  seekRequest: number | null
  /** queue is the list being played (a playlist); previous and next move within it. */
  queue: Track[]
  /** playTrack plays one track; it leaves a queue that does not contain it. */
  playTrack: (t: Track) => void
  /** playQueue plays tracks in order from index. */
  playQueue: (tracks: Track[], index?: number) => void
  next: () => void
  previous: () => void
  togglePlay: () => void
  setPlaying: (p: boolean) => void
  setExpanded: (e: boolean) => void
  setVolume: (v: number) => void
  setProgress: (currentTime: number, duration: number) => void
  seek: (t: number) => void
  consumeSeek: () => void
  clear: () => void
}

/** usePlayerStore is the player's state. */
export const usePlayerStore = create<PlayerState>((set, get) => ({
  currentTrack: null,
  isPlaying: false,
  isExpanded: false,
  volume: DEFAULT_VOLUME,
  currentTime: 0,
  duration: 0,
  playId: 0,
  seekRequest: null,
  queue: [],
  // Pressing play on the current track toggles; another track becomes current and plays.
  playTrack: (t) => {
    const cur = get().currentTrack
    if (cur && cur.id === t.id) {
      set({ isPlaying: !get().isPlaying })
      return
    }
    const queue = get().queue.some((q) => q.id === t.id) ? get().queue : []
    set({ currentTrack: t, queue, isPlaying: true, currentTime: 0, duration: t.duration || 0, playId: get().playId + 1 })
  },
  playQueue: (tracks, index = 0) => {
    const t = tracks[index]
    if (!t) return
    set({ queue: tracks, currentTrack: t, isPlaying: true, currentTime: 0, duration: t.duration || 0, playId: get().playId + 1 })
  },
  // Outside a queue previous and next do nothing (spec section 2).
  next: () => {
    const { queue, currentTrack } = get()
    const i = queue.findIndex((q) => q.id === currentTrack?.id)
    if (i >= 0 && i + 1 < queue.length) get().playQueue(queue, i + 1)
  },
  previous: () => {
    const { queue, currentTrack, currentTime } = get()
    const i = queue.findIndex((q) => q.id === currentTrack?.id)
    // Past the first seconds, previous restarts the track, as players do.
    if (currentTime > 3 || i <= 0) get().seek(0)
    else get().playQueue(queue, i - 1)
  },
  togglePlay: () => set({ isPlaying: !get().isPlaying }),
  setPlaying: (isPlaying) => set({ isPlaying }),
  setExpanded: (isExpanded) => set({ isExpanded }),
  setVolume: (volume) => set({ volume }),
  setProgress: (currentTime, duration) => set({ currentTime, duration }),
  seek: (t) => set({ seekRequest: t, currentTime: t }),
  consumeSeek: () => set({ seekRequest: null }),
  clear: () => set({ currentTrack: null, queue: [], isPlaying: false, isExpanded: false, currentTime: 0, duration: 0 }),
}))
