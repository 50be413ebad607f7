import { create } from 'zustand'
import { createJSONStorage, persist } from 'zustand/middleware'
import type { Track } from '@/types/api'

// What this device keeps for offline listening: the tracks, what each takes
// and which cached URLs hold it (lib/offline writes and removes them in the
// Cache Storage the service worker reads).

/** Download is one track kept on the device. */
export interface Download {
  track: Track
  bytes: number
  urls: string[]
  savedAt: string
}

interface OfflineState {
  downloads: Download[]
  /** pending are the ids of tracks being downloaded. */
  pending: string[]
  add: (d: Download) => void
  remove: (trackId: string) => void
  setPending: (trackId: string, on: boolean) => void
}

/** useOfflineStore lists the downloads kept on this device. */
export const useOfflineStore = create<OfflineState>()(
  persist(
    (set, get) => ({
      downloads: [],
      pending: [],
      add: (d) => set({ downloads: [...get().downloads.filter((x) => x.track.id !== d.track.id), d] }),
      remove: (id) => set({ downloads: get().downloads.filter((x) => x.track.id !== id) }),
      setPending: (id, on) => set({ pending: on ? [...get().pending, id] : get().pending.filter((x) => x !== id) }),
    }),
    { name: 'backline-offline', storage: createJSONStorage(() => localStorage), partialize: (s) => ({ downloads: s.downloads }) },
  ),
)

/** usedBytes is the space the downloads take. */
export const usedBytes = (downloads: Download[]) => downloads.reduce((n, d) => n + d.bytes, 0)
