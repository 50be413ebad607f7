import { create } from 'zustand'
import { createJSONStorage, persist } from 'zustand/middleware'
import { addToQueue, current, fromList, moveInQueue, nextStep, playNext, previousStep, removeFromQueue, setShuffle, type Queue, type Repeat, type Step } from '@/lib/queue'
import type { Track } from '@/types/api'
import { useSettingsStore } from './settings-store'

// Client state of the player (spec section 4, "Player") and its queue. Shared
// because every track card starts playback; the player feature renders the
// bar. The queue's rules live in lib/queue; this store applies them. The
// queue, the modes and the volume are kept on the device, so they survive a
// reload (paused: a page never starts sound by itself).

/** DEFAULT_VOLUME is the player's starting and unmute volume. */
export const DEFAULT_VOLUME = 80

const REPEATS: Repeat[] = ['off', 'all', 'one']

interface PlayerState {
  currentTrack: Track | null
  isPlaying: boolean
  isExpanded: boolean
  volume: number
  currentTime: number
  duration: number
  /** playId increments on every new play of a track (a replay too), so per-play state resets. */
  playId: number
  /** seekRequest is a time the audio element should jump to; consumed by the bar. */
  seekRequest: number | null
  /** queue is the play order; index is the current track's place in it. */
  queue: Track[]
  index: number
  unshuffled: Track[] | null
  shuffle: boolean
  repeat: Repeat
  /** playTrack plays one track, or toggles the current one; a track outside the queue plays alone. */
  playTrack: (t: Track) => void
  /** playFrom plays list[index] and queues the rest of the list (toggles if it is the current track). */
  playFrom: (list: Track[], index: number) => void
  /** playQueue plays tracks in order from index. */
  playQueue: (tracks: Track[], index?: number) => void
  next: () => void
  previous: () => void
  /** advance is the end of a track: autoplay of the next one, as repeat and the data saver allow. */
  advance: () => void
  playNext: (t: Track) => void
  addToQueue: (t: Track) => void
  /** moveInQueue moves the queue's entry at `from` to `to` (the queue editor). */
  moveInQueue: (from: number, to: number) => void
  /** removeFromQueue takes a track out of the queue (not the one playing). */
  removeFromQueue: (id: string) => void
  toggleShuffle: () => void
  cycleRepeat: () => void
  togglePlay: () => void
  setPlaying: (p: boolean) => void
  setExpanded: (e: boolean) => void
  setVolume: (v: number) => void
  setProgress: (currentTime: number, duration: number) => void
  seek: (t: number) => void
  consumeSeek: () => void
  clear: () => void
}

type Get = () => PlayerState
type Set = (s: Partial<PlayerState>) => void

const queueOf = (s: PlayerState): Queue<Track> => ({ items: s.queue, index: s.index, unshuffled: s.unshuffled })

// start makes q's current track a new play from its beginning.
function start(set: Set, get: Get, q: Queue<Track>) {
  const t = current(q)
  if (!t) return
  set({
    queue: q.items,
    index: q.index,
    unshuffled: q.unshuffled,
    currentTrack: t,
    isPlaying: true,
    currentTime: 0,
    duration: t.duration || 0,
    seekRequest: get().currentTrack?.id === t.id ? 0 : null,
    playId: get().playId + 1,
  })
}

// go follows a step: another track, the same one again (a new play), or a stop.
function go(set: Set, get: Get, step: Step) {
  const q = queueOf(get())
  if ('index' in step) start(set, get, { ...q, index: step.index })
  else if ('restart' in step) start(set, get, q)
  else set({ isPlaying: false })
}

// The store changes several times a second while a track plays (its
// progress); what is kept changes far less often, so an unchanged value is not
// written again.
const skippingUnchanged = (store: Storage): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> => ({
  getItem: (k) => store.getItem(k),
  setItem: (k, v) => {
    if (store.getItem(k) !== v) store.setItem(k, v)
  },
  removeItem: (k) => store.removeItem(k),
})

const fresh = { currentTrack: null, queue: [], index: -1, unshuffled: null, isPlaying: false, isExpanded: false, currentTime: 0, duration: 0 }

/** usePlayerStore is the player's state. */
export const usePlayerStore = create<PlayerState>()(
  persist(
    (set, get) => ({
      ...fresh,
      volume: DEFAULT_VOLUME,
      playId: 0,
      seekRequest: null,
      shuffle: false,
      repeat: 'off',
      // Pressing play on the current track toggles; another track becomes current and plays.
      playTrack: (t) => {
        const s = get()
        if (s.currentTrack?.id === t.id) return set({ isPlaying: !s.isPlaying })
        const at = s.queue.findIndex((q) => q.id === t.id)
        if (at >= 0) start(set, get, { ...queueOf(s), index: at })
        else start(set, get, fromList([t], 0, false))
      },
      playFrom: (list, index) => {
        const s = get()
        if (list[index] && s.currentTrack?.id === list[index].id) return set({ isPlaying: !s.isPlaying })
        get().playQueue(list, index)
      },
      playQueue: (tracks, index = 0) => start(set, get, fromList(tracks, index, get().shuffle)),
      next: () => go(set, get, nextStep(queueOf(get()), { auto: false, repeat: get().repeat })),
      advance: () => go(set, get, nextStep(queueOf(get()), { auto: true, repeat: get().repeat, skipPreviews: useSettingsStore.getState().dataSaver })),
      previous: () => go(set, get, previousStep(queueOf(get()), { currentTime: get().currentTime, repeat: get().repeat })),
      playNext: (t) => {
        if (!get().currentTrack) return get().playTrack(t)
        const q = playNext(queueOf(get()), t)
        set({ queue: q.items, index: q.index, unshuffled: q.unshuffled })
      },
      addToQueue: (t) => {
        if (!get().currentTrack) return get().playTrack(t)
        const q = addToQueue(queueOf(get()), t)
        set({ queue: q.items, index: q.index, unshuffled: q.unshuffled })
      },
      moveInQueue: (from, to) => {
        const q = moveInQueue(queueOf(get()), from, to)
        set({ queue: q.items, index: q.index, unshuffled: q.unshuffled })
      },
      removeFromQueue: (id) => {
        const q = removeFromQueue(queueOf(get()), id)
        set({ queue: q.items, index: q.index, unshuffled: q.unshuffled })
      },
      toggleShuffle: () => {
        const on = !get().shuffle
        const q = setShuffle(queueOf(get()), on)
        set({ shuffle: on, queue: q.items, index: q.index, unshuffled: q.unshuffled })
      },
      cycleRepeat: () => set({ repeat: REPEATS[(REPEATS.indexOf(get().repeat) + 1) % REPEATS.length] }),
      togglePlay: () => set({ isPlaying: !get().isPlaying }),
      setPlaying: (isPlaying) => set({ isPlaying }),
      setExpanded: (isExpanded) => set({ isExpanded }),
      setVolume: (volume) => set({ volume }),
      setProgress: (currentTime, duration) => set({ currentTime, duration }),
      seek: (t) => set({ seekRequest: t, currentTime: t }),
      consumeSeek: () => set({ seekRequest: null }),
      clear: () => set(fresh),
    }),
    {
      name: 'backline-player',
      storage: createJSONStorage(() => skippingUnchanged(localStorage)),
      partialize: (s) => ({ queue: s.queue, index: s.index, unshuffled: s.unshuffled, shuffle: s.shuffle, repeat: s.repeat, volume: s.volume, currentTrack: s.currentTrack }),
    },
  ),
)
