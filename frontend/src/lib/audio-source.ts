import { useOfflineStore } from '@/stores/offline-store'
import { useSettingsStore } from '@/stores/settings-store'
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

function keep(name: string, url: string) {
  signed.set(name, { url, until: Date.now() + (AUDIO_URL_SECONDS - 300) * 1000 })
}

function kept(name: string): string | undefined {
  const k = signed.get(name)
  return k && k.until > Date.now() ? k.url : undefined
}

/** signedAudioUrl asks storage for a signed URL of a track's audio; it throws when the caller may not play it. */
export async function signedAudioUrl(audioUrl: string | null | undefined): Promise<string | undefined> {
  const name = audioObject(audioUrl)
  if (!name) return mediaUrl(audioUrl)
  // A tap during the screen's batch waits for it rather than asking twice.
  await presigning.get(name)
  const url = kept(name)
  if (url) return url
  waiting.delete(name)
  const { data, error } = await supabase().storage.from('tracks').createSignedUrl(name, AUDIO_URL_SECONDS)
  if (error || !data?.signedUrl) throw new Error(error?.message ?? 'Could not sign the audio')
  keep(name, data.signedUrl)
  return data.signedUrl
}

/** PRESIGN_DELAY_MS gathers the tracks a screen shows into one request, after its first paint. */
export const PRESIGN_DELAY_MS = 300
/** PRESIGN_BATCH is the most objects one request signs (storage takes up to 1,000). */
export const PRESIGN_BATCH = 100

// Signing the audio of the tracks on screen ahead of a tap takes storage's
// round trip (half a second on a slow prepaid network) off the way from
// Play to sound. Objects the caller may not play come back with an error
// and are left for the tap to report.
const waiting = new Set<string>()
const presigning = new Map<string, Promise<void>>()
let timer: ReturnType<typeof setTimeout> | undefined

/** presignAudio queues a track's audio to be signed with the others on screen, in one request; data saver turns it off. */
export function presignAudio(audioUrl: string | null | undefined): void {
  const name = audioObject(audioUrl)
  if (!name || kept(name) || presigning.has(name) || useSettingsStore.getState().dataSaver) return
  waiting.add(name)
  timer ??= setTimeout(flushPresign, PRESIGN_DELAY_MS)
}

function flushPresign() {
  timer = undefined
  const names = [...waiting].slice(0, PRESIGN_BATCH)
  for (const n of names) waiting.delete(n)
  if (waiting.size > 0) timer = setTimeout(flushPresign, PRESIGN_DELAY_MS)
  if (names.length === 0) return
  const done = supabase()
    .storage.from('tracks')
    .createSignedUrls(names, AUDIO_URL_SECONDS)
    .then(({ data }) => {
      for (const item of data ?? []) if (!item.error && item.path && item.signedUrl) keep(item.path, item.signedUrl)
    })
    .catch(() => undefined)
    .finally(() => {
      for (const n of names) presigning.delete(n)
    })
  for (const n of names) presigning.set(n, done)
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
  waiting.clear()
}
