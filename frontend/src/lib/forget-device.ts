import { useOfflineStore } from '@/stores/offline-store'
import { usePlayerStore } from '@/stores/player-store'
import { forgetSignedAudio } from './audio-source'
import { AUDIO_CACHE, OFFLINE_CACHE } from './offline-cache'
import { forgetSearches } from './recent-searches'

// A phone may be shared: what one listener kept on it goes when they sign
// out, so the next person finds no library, queue or player of theirs.

/**
 * forgetDevice removes the signed-out listener's things from this device:
 * their downloads (the Cache Storage entries and the list of them), the audio
 * cached as it played, the saved queue and the player's kept modes, their
 * recent searches, and the signed audio URLs of the session.
 */
export async function forgetDevice(): Promise<void> {
  if (typeof caches !== 'undefined') await Promise.all([OFFLINE_CACHE, AUDIO_CACHE].map((name) => caches.delete(name)))
  useOfflineStore.setState({ downloads: [], pending: [] })
  usePlayerStore.getState().clear()
  usePlayerStore.setState({ shuffle: false, repeat: 'off' })
  forgetSearches()
  forgetSignedAudio()
}
