// The play queue's rules, apart from the store that holds it: a queue is the
// tracks in play order and where the player stands in it. Every function is
// pure and returns a new queue; the random source is passed in so shuffles
// can be replayed in tests.

/** QueueItem is the least a queued entry needs: an id, and whether it is a preview. */
export interface QueueItem {
  id: string
  isPreview?: boolean
}

/** Repeat is the repeat mode: stop at the end, start over, or replay the track. */
export type Repeat = 'off' | 'all' | 'one'

/** Queue is the play order, the current position and, while shuffled, the order before shuffling. */
export interface Queue<T extends QueueItem> {
  items: T[]
  index: number
  /** unshuffled is the order to return to when shuffle is switched off (null: not shuffled). */
  unshuffled: T[] | null
}

/** RESTART_AFTER_SECONDS: past this, Previous restarts the track instead of going back. */
export const RESTART_AFTER_SECONDS = 3

export const emptyQueue = <T extends QueueItem>(): Queue<T> => ({ items: [], index: -1, unshuffled: null })

/** current is the queue's current entry, if any. */
export const current = <T extends QueueItem>(q: Queue<T>): T | undefined => q.items[q.index]

// Fisher-Yates over a copy.
function shuffled<T>(list: T[], random: () => number): T[] {
  const out = list.slice()
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[out[i], out[j]] = [out[j], out[i]]
  }
  return out
}

// A list may name a track twice (a playlist can); the queue keeps the first.
function unique<T extends QueueItem>(list: T[]): T[] {
  const seen = new Set<string>()
  return list.filter((t) => (seen.has(t.id) ? false : (seen.add(t.id), true)))
}

/**
 * fromList is the queue made by playing list[index]: the whole list, standing
 * at that track. Shuffled, the chosen track plays first and the rest follow
 * in a random order.
 */
export function fromList<T extends QueueItem>(list: T[], index: number, shuffle: boolean, random: () => number = Math.random): Queue<T> {
  const chosen = list[index]
  if (!chosen) return emptyQueue()
  const items = unique(list)
  const at = items.findIndex((t) => t.id === chosen.id)
  if (!shuffle) return { items, index: at, unshuffled: null }
  const rest = items.filter((t) => t.id !== chosen.id)
  return { items: [chosen, ...shuffled(rest, random)], index: 0, unshuffled: items }
}

/** setShuffle shuffles what comes after the current track, or puts the queue back in its order, standing on the same track. */
export function setShuffle<T extends QueueItem>(q: Queue<T>, on: boolean, random: () => number = Math.random): Queue<T> {
  const cur = current(q)
  if (on === (q.unshuffled !== null)) return q
  if (!on) {
    const items = q.unshuffled ?? q.items
    // Tracks queued while shuffled are kept, after the original order.
    const extra = q.items.filter((t) => !items.some((o) => o.id === t.id))
    const all = [...items, ...extra]
    return { items: all, index: cur ? all.findIndex((t) => t.id === cur.id) : -1, unshuffled: null }
  }
  if (!cur) return { ...q, unshuffled: q.items }
  const before = q.items.slice(0, q.index + 1)
  const after = shuffled(q.items.slice(q.index + 1), random)
  return { items: [...before, ...after], index: q.index, unshuffled: q.items }
}

/** Step is where a move leads: another position, the same track from its start, or nowhere (the end). */
export type Step = { index: number } | { restart: true } | { stop: true }

/**
 * nextStep is where Next (auto: false) or the end of a track (auto: true)
 * leads. Repeat one replays the track only when it ends by itself; a pressed
 * Next moves on. At the end of the queue repeat all starts over, otherwise
 * the player stops. With skipPreviews (the data saver), autoplay passes over
 * preview tracks: it never starts one by itself.
 */
export function nextStep<T extends QueueItem>(q: Queue<T>, opts: { auto: boolean; repeat: Repeat; skipPreviews?: boolean }): Step {
  if (q.items.length === 0 || q.index < 0) return { stop: true }
  if (opts.auto && opts.repeat === 'one') return { restart: true }
  const n = q.items.length
  for (let k = 1; k <= n; k++) {
    let i = q.index + k
    if (i >= n) {
      if (opts.repeat === 'off') return { stop: true }
      i -= n
    }
    if (opts.auto && opts.skipPreviews && q.items[i].isPreview) continue
    return i === q.index ? { restart: true } : { index: i }
  }
  return { stop: true }
}

/**
 * previousStep is where Previous leads: past the first 3 seconds the track
 * restarts; otherwise the track before it plays (the last one, at the start
 * of a queue that repeats), and the first track restarts.
 */
export function previousStep<T extends QueueItem>(q: Queue<T>, opts: { currentTime: number; repeat: Repeat }): Step {
  if (q.index < 0) return { stop: true }
  if (opts.currentTime > RESTART_AFTER_SECONDS) return { restart: true }
  if (q.index > 0) return { index: q.index - 1 }
  if (opts.repeat === 'all' && q.items.length > 1) return { index: q.items.length - 1 }
  return { restart: true }
}

// without removes a track from the queue unless it is the current one.
function without<T extends QueueItem>(q: Queue<T>, id: string): Queue<T> {
  const i = q.items.findIndex((t) => t.id === id)
  if (i < 0 || i === q.index) return q
  return {
    items: q.items.filter((_, k) => k !== i),
    index: i < q.index ? q.index - 1 : q.index,
    unshuffled: q.unshuffled?.filter((t) => t.id !== id) ?? null,
  }
}

/** playNext puts a track right after the current one (moving it if it was queued later or earlier). */
export function playNext<T extends QueueItem>(q: Queue<T>, track: T): Queue<T> {
  if (current(q)?.id === track.id) return q
  const r = without(q, track.id)
  if (r.index < 0) return { items: [track], index: 0, unshuffled: null }
  const items = [...r.items.slice(0, r.index + 1), track, ...r.items.slice(r.index + 1)]
  const unshuffled = r.unshuffled ? insertAfter(r.unshuffled, current(r)!.id, track) : null
  return { items, index: r.index, unshuffled }
}

function insertAfter<T extends QueueItem>(list: T[], id: string, track: T): T[] {
  const i = list.findIndex((t) => t.id === id)
  return [...list.slice(0, i + 1), track, ...list.slice(i + 1)]
}

/** addToQueue puts a track at the end of the queue (moving it there if it was queued). */
export function addToQueue<T extends QueueItem>(q: Queue<T>, track: T): Queue<T> {
  if (current(q)?.id === track.id) return q
  const r = without(q, track.id)
  if (r.index < 0) return { items: [track], index: 0, unshuffled: null }
  return { items: [...r.items, track], index: r.index, unshuffled: r.unshuffled ? [...r.unshuffled, track] : null }
}

/** removeFromQueue takes a track out of the queue; the current track stays (it is playing). */
export function removeFromQueue<T extends QueueItem>(q: Queue<T>, id: string): Queue<T> {
  return without(q, id)
}

/**
 * moveInQueue moves the entry at `from` to position `to` (both indexes into
 * items, clamped to the queue): a listener reordering what plays. The current
 * track stays current wherever it ends up; while shuffled, the order to
 * return to is unchanged.
 */
export function moveInQueue<T extends QueueItem>(q: Queue<T>, from: number, to: number): Queue<T> {
  const n = q.items.length
  if (from < 0 || from >= n) return q
  const dest = Math.min(Math.max(to, 0), n - 1)
  if (dest === from) return q
  const cur = current(q)
  const items = q.items.slice()
  const [moved] = items.splice(from, 1)
  items.splice(dest, 0, moved)
  return { items, index: cur ? items.findIndex((t) => t.id === cur.id) : q.index, unshuffled: q.unshuffled }
}

/** upcoming is what will play after the current track, in order (without wrapping around). */
export const upcoming = <T extends QueueItem>(q: Queue<T>): T[] => q.items.slice(q.index + 1)
