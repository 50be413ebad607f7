import { useSyncExternalStore } from 'react'
import { SETTINGS_STORAGE_KEY } from '@/lib/data-saver'
import type { usePlayerStore } from './player-store'
import type { useSettingsStore } from './settings-store'

// The device stores (the player with its queue rules, the listener's
// settings, both kept on the device) are not needed to draw the first
// screen, so they load right after it (loadDeviceStores, from the app root).
// The parts of the first paint read them through here: a hook with a stand-in
// value until the store is in, and actions that run once it is. Every other
// part imports the stores themselves.

/** Readable is the part of a zustand store read here. */
interface Readable<S> {
  getState: () => S
  subscribe: (listener: () => void) => () => void
}

/** deferred wraps a store loaded on demand: get loads it once, use reads it (fallback until it is in). */
function deferred<S>(load: () => Promise<Readable<S>>) {
  let store: Readable<S> | null = null
  let loading: Promise<Readable<S>> | null = null
  const waiting = new Set<() => void>()
  const get = () =>
    (loading ??= load().then((s) => {
      store = s
      for (const f of [...waiting]) f()
      return s
    }))
  const subscribe = (onChange: () => void) => {
    if (store) return store.subscribe(onChange)
    const onLoad = () => {
      waiting.delete(onLoad)
      unsubscribe = store!.subscribe(onChange)
      onChange()
    }
    let unsubscribe = () => {
      waiting.delete(onLoad)
    }
    waiting.add(onLoad)
    return () => unsubscribe()
  }
  /** use reads select(state) once the store is in, fallback() before; select must return a stored value or a primitive. */
  const use = <T>(select: (s: S) => T, fallback: () => T): T => {
    const snapshot = () => (store ? select(store.getState()) : fallback())
    return useSyncExternalStore(subscribe, snapshot, snapshot)
  }
  return { get, use, now: () => store }
}

type PlayerState = ReturnType<typeof usePlayerStore.getState>
type SettingsState = ReturnType<typeof useSettingsStore.getState>

const player = deferred<PlayerState>(() => import('./player-store').then((m) => m.usePlayerStore))
const settings = deferred<SettingsState>(() => import('./settings-store').then((m) => m.useSettingsStore))

/** loadDeviceStores loads the player and settings stores (once). */
export const loadDeviceStores = () => Promise.all([player.get(), settings.get()])

/** usePlayer reads the player store: fallback until it has loaded. */
export const usePlayer = <T>(select: (s: PlayerState) => T, fallback: T): T => player.use(select, () => fallback)

/** withPlayer runs act on the player's state once the store is in (at once when it is). */
export function withPlayer(act: (s: PlayerState) => void) {
  const loaded = player.now()
  if (loaded) act(loaded.getState())
  else void player.get().then((s) => act(s.getState()))
}

let kept: { raw: string | null; on: boolean } = { raw: null, on: false }
/** storedDataSaver is the data saver as the settings store last kept it on the device. */
function storedDataSaver(): boolean {
  let raw: string | null = null
  try {
    raw = localStorage.getItem(SETTINGS_STORAGE_KEY)
  } catch {
    // Storage may be unavailable in private modes: the data saver is off.
  }
  if (raw !== kept.raw) {
    let on = false
    try {
      on = JSON.parse(raw ?? 'null')?.state?.dataSaver === true
    } catch {
      // Not ours: off.
    }
    kept = { raw, on }
  }
  return kept.on
}

/** useDataSaver is whether the data saver is on: the kept setting until the settings store has loaded. */
export const useDataSaver = () => settings.use((s) => s.dataSaver, storedDataSaver)
