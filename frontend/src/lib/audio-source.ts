import { useOfflineStore } from '@/stores/offline-store'
import { mediaUrl, publicPath } from './media'
import { supabase } from './supabase'

// Track audio lives in a private bucket: storage serves it only through a
// signed URL, and signs one only when the database's policy lets the caller
// play the track (sql/app backline.may_play_audio). A row keeps the public
// path of its audio, which names the object; this turns it into what the
// player and downloads load. A download is played from its public path,
// which the service worker answers from the device with no network.

/** AUDIO_URL_SECONDS is how long a signed audio URL lasts: a long pause, seeking included. */
export const AUDIO_URL_SECONDS = 4 * 3600

const TRACKS_PREFIX = publicPath('tracks', '')

/** audioObject is the object a track's audio names in the tracks bucket, or null for any other URL. */
export function audioObject(audioUrl: string | null | undefined): string | null {
  if (!audioUrl) return null
  const path = audioUrl.startsWith('/storage/') ? audioUrl : audioUrl.replace(/^https?:\/\/[^/]+/, '')
  return path.startsWith(TRACKS_PREFIX) && path.length > TRACKS_PREFIX.length ? path.slice(TRACKS_PREFIX.length) : null
}

// Signed URLs are reused until shortly before they end; a sign-out forgets them.
const signed = new Map<string, { url: string; until: number }>()

/** signedAudioUrl asks storage for a signed URL of a track's audio; it throws when the caller may not play it. */
export async function signedAudioUrl(audioUrl: string | null | undefined): Promise<string | undefined> {
  const name = audioObject(audioUrl)
  if (!name) return mediaUrl(audioUrl)
  const kept = signed.get(name)
  if (kept && kept.until > Date.now()) return kept.url
  const { data, error } = await supabase().storage.from('tracks').createSignedUrl(name, AUDIO_URL_SECONDS)
  if (error || !data?.signedUrl) throw new Error(error?.message ?? 'Could not sign the audio')
  signed.set(name, { url: data.signedUrl, until: Date.now() + (AUDIO_URL_SECONDS - 300) * 1000 })
  return data.signedUrl
}

/** audioSource is what the player loads for a track: its download when kept, else a signed URL. */
export async function audioSource(audioUrl: string | null | undefined): Promise<string | undefined> {
  const stored = mediaUrl(audioUrl)
  if (stored && useOfflineStore.getState().downloads.some((d) => d.urls.includes(stored))) return stored
  return signedAudioUrl(audioUrl)
}

/** forgetSignedAudio drops the signed URLs of this session. */
export function forgetSignedAudio(): void {
  signed.clear()
}
