import { useOfflineStore, usedBytes } from '@/stores/offline-store'
import { useSettingsStore } from '@/stores/settings-store'
import type { Track } from '@/types/api'
import { coverAt, downloadRefusal, spaceRefusal, type ConnectionInfo } from './data-saver'
import { signedAudioUrl } from './audio-source'
import { mediaUrl } from './media'
import { OFFLINE_CACHE } from './offline-cache'

// Offline listening: a download puts a track's audio and cover into Cache
// Storage under the URLs the player and the pages load them from, where the
// service worker (src/sw.ts) answers them first, byte ranges included. The
// audio is fetched through a signed URL (the bucket is private; storage signs
// only what the caller may play) and kept under the public path its row
// names, which the player loads for a download. The list of downloads is
// kept by the offline store.

export { OFFLINE_CACHE }

/** offlineSupported is whether this browser can keep downloads. */
export const offlineSupported = () => typeof caches !== 'undefined'

/**
 * OFFLINE_COVER_SIZES are the sizes (CSS pixels) covers are shown at where a
 * download plays offline: the Offline library's rows, the player bar on a
 * phone and on a desktop, the full player. SafeImage asks storage for those
 * renditions, so a download keeps each, with the data saver on and off.
 */
export const OFFLINE_COVER_SIZES = [48, 44, 320] as const

/** offlineCovers are the URLs of a cover a download keeps. */
export function offlineCovers(coverUrl: string | null | undefined): string[] {
  const urls = OFFLINE_COVER_SIZES.flatMap((size) => [coverAt(coverUrl, size, false), coverAt(coverUrl, size, true)])
  return [...new Set(urls.filter((u): u is string => !!u))]
}

const connection = () => (navigator as Navigator & { connection?: ConnectionInfo }).connection

/**
 * downloadTrack keeps a track on the device: its audio (required) and its
 * cover at the sizes the pages show it offline. It throws with the message to show
 * when the data saver waits for Wi-Fi, the limit is reached or the audio
 * does not load; nothing is kept then.
 */
export async function downloadTrack(track: Track): Promise<void> {
  const settings = useSettingsStore.getState()
  const store = useOfflineStore.getState()
  const refused = downloadRefusal(settings.dataSaver, connection())
  if (refused) throw new Error(refused)
  const audio = mediaUrl(track.audioUrl)
  if (!audio) throw new Error('This track has no audio to download')
  store.setPending(track.id, true)
  try {
    const covers = offlineCovers(track.coverUrl)
    const bodies: [string, Blob][] = []
    const from = await signedAudioUrl(track.audioUrl).catch(() => {
      throw new Error('Download failed (this track is not available)')
    })
    const res = await fetch(from ?? audio)
    if (!res.ok) throw new Error(`Download failed (${res.status})`)
    bodies.push([audio, await res.blob()])
    // Covers are a nicety: a missing one leaves the default image offline.
    for (const url of covers) {
      const r = await fetch(url).catch(() => null)
      if (r?.ok) bodies.push([url, await r.blob()])
    }
    const bytes = bodies.reduce((n, [, b]) => n + b.size, 0)
    const others = useOfflineStore.getState().downloads.filter((d) => d.track.id !== track.id)
    const full = spaceRefusal(usedBytes(others), bytes, useSettingsStore.getState().offlineLimitMb)
    if (full) throw new Error(full)
    const cache = await caches.open(OFFLINE_CACHE)
    for (const [url, blob] of bodies) {
      await cache.put(url, new Response(blob, { headers: { 'Content-Type': blob.type || 'application/octet-stream', 'Content-Length': String(blob.size) } }))
    }
    store.add({ track, bytes, urls: bodies.map(([u]) => u), savedAt: new Date().toISOString() })
  } finally {
    useOfflineStore.getState().setPending(track.id, false)
  }
}

/** removeDownload frees what a download took. */
export async function removeDownload(trackId: string): Promise<void> {
  const d = useOfflineStore.getState().downloads.find((x) => x.track.id === trackId)
  if (!d) return
  const cache = await caches.open(OFFLINE_CACHE)
  // A URL another download shares (the same cover) stays.
  const shared = new Set(useOfflineStore.getState().downloads.filter((x) => x.track.id !== trackId).flatMap((x) => x.urls))
  await Promise.all(d.urls.filter((u) => !shared.has(u)).map((u) => cache.delete(u)))
  useOfflineStore.getState().remove(trackId)
}

/** downloadAll keeps every track of a list, one after the other; it stops at the first refusal. */
export async function downloadAll(tracks: Track[]): Promise<number> {
  let n = 0
  for (const t of tracks) {
    if (useOfflineStore.getState().downloads.some((d) => d.track.id === t.id)) continue
    await downloadTrack(t)
    n++
  }
  return n
}
