// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { installFakeApi } from '@/test/app'
import { aTrack } from '@/test/track'
import { useOfflineStore } from '@/stores/offline-store'
import { usePlayerStore } from '@/stores/player-store'
import { signOut } from './sign-out'
import { AUDIO_CACHE, OFFLINE_CACHE } from './offline-cache'
import { recentSearches, rememberSearch } from './recent-searches'

// caches is the browser's Cache Storage, kept here as names of open caches.
function fakeCaches() {
  const open = new Set<string>()
  const storage = {
    open: async (name: string) => {
      open.add(name)
      return {}
    },
    delete: async (name: string) => open.delete(name),
  }
  vi.stubGlobal('caches', storage)
  return open
}

afterEach(() => {
  vi.unstubAllGlobals()
  useOfflineStore.setState({ downloads: [], pending: [] })
  usePlayerStore.getState().clear()
})

describe('sign-out', () => {
  it("takes the listener's downloads, queue, player and recent searches off the device", async () => {
    installFakeApi({ rpc: { remove_user_session: () => null }, auth: { logout: () => null } })
    const open = fakeCaches()
    await caches.open(OFFLINE_CACHE)
    await caches.open(AUDIO_CACHE)
    await caches.open('covers')
    const a = aTrack({ id: 'a' })
    const b = aTrack({ id: 'b' })
    useOfflineStore.setState({ downloads: [{ track: a, bytes: 10, urls: ['http://backend.test/a'], savedAt: '' }] })
    usePlayerStore.getState().playQueue([a, b], 0)
    usePlayerStore.getState().toggleShuffle()
    usePlayerStore.getState().cycleRepeat()
    expect(JSON.parse(localStorage.getItem('backline-player')!).state.queue).toHaveLength(2)
    rememberSearch('burna boy')
    expect(recentSearches()).toEqual(['burna boy'])

    await expect(signOut()).resolves.toEqual({ ok: true })

    expect([...open]).toEqual(['covers'])
    expect(useOfflineStore.getState().downloads).toEqual([])
    expect(JSON.parse(localStorage.getItem('backline-offline')!).state.downloads).toEqual([])
    const player = usePlayerStore.getState()
    expect([player.currentTrack, player.queue, player.shuffle, player.repeat]).toEqual([null, [], false, 'off'])
    const kept = JSON.parse(localStorage.getItem('backline-player')!).state
    expect([kept.currentTrack, kept.queue, kept.shuffle, kept.repeat]).toEqual([null, [], false, 'off'])
    expect(recentSearches()).toEqual([])
  })
})
