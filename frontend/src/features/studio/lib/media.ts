// Where an artist's uploads go: their own folder of the public tracks and
// covers buckets (the storage policies and the track guard in sql/app
// refuse anything else), and the limits the buckets enforce.

/** AUDIO_TYPES are the audio types the tracks bucket accepts. */
export const AUDIO_TYPES = ['audio/mpeg', 'audio/mp4', 'audio/aac', 'audio/ogg', 'audio/wav', 'audio/x-wav', 'audio/webm', 'audio/flac']
/** COVER_TYPES are the image types the covers bucket accepts. */
export const COVER_TYPES = ['image/jpeg', 'image/png', 'image/webp']
/** MAX_AUDIO_BYTES and MAX_COVER_BYTES are the buckets' size limits. */
export const MAX_AUDIO_BYTES = 50 * 1024 * 1024
export const MAX_COVER_BYTES = 10 * 1024 * 1024

export { publicPath } from '@/lib/media'

/** extension picks a file's extension from its name, else from its type. */
export function extension(name: string, type: string): string {
  const m = /\.([a-z0-9]{1,5})$/i.exec(name)
  if (m) return m[1].toLowerCase()
  return type.split('/')[1]?.replace(/^x-/, '').replace('mpeg', 'mp3') || 'bin'
}

/**
 * audioObjectName is stable for one file (name, size, modification time),
 * so a resumed upload after a reload writes the same object.
 */
export function audioObjectName(userId: string, f: { name: string; size: number; lastModified: number; type: string }): string {
  const stem = f.name.replace(/\.[^.]*$/, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'track'
  return `${userId}/${stem}-${f.size}-${f.lastModified}.${extension(f.name, f.type)}`
}

/** fileProblem says why a file cannot be uploaded, or null. */
export function fileProblem(f: { size: number; type: string }, types: string[], max: number, what: string): string | null {
  if (!types.includes(f.type)) return `This ${what} type is not supported`
  if (f.size > max) return `The ${what} is larger than ${Math.round(max / 1024 / 1024)} MB`
  return null
}

/** MIN_STREAM_SECONDS is the listening a stream needs (spec section 9): a shorter track can never count. */
export const MIN_STREAM_SECONDS = 30

/**
 * readAudioDuration reads an audio file's length in the browser, from its
 * metadata, before anything is uploaded: seconds, or null when the browser
 * cannot tell (an unknown codec) or takes longer than timeoutMs. The server
 * measures the uploaded file itself; this is for the artist to see.
 */
export function readAudioDuration(file: Blob, timeoutMs = 10_000): Promise<number | null> {
  return new Promise((resolve) => {
    const url = URL.createObjectURL(file)
    const audio = document.createElement('audio')
    const done = (seconds: number | null) => {
      clearTimeout(timer)
      audio.onloadedmetadata = audio.onerror = null
      audio.removeAttribute('src')
      URL.revokeObjectURL(url)
      resolve(seconds)
    }
    const timer = setTimeout(() => done(null), timeoutMs)
    audio.preload = 'metadata'
    audio.onloadedmetadata = () => done(Number.isFinite(audio.duration) && audio.duration > 0 ? audio.duration : null)
    audio.onerror = () => done(null)
    audio.src = url
  })
}

/** lengthNote says what an audio file's length means for its streams, or null when nothing needs saying. */
export function lengthNote(seconds: number | null): string | null {
  if (seconds === null) return 'Its length is measured once it is uploaded.'
  if (seconds < MIN_STREAM_SECONDS) return `Shorter than ${MIN_STREAM_SECONDS} seconds: its plays can never count as streams.`
  return null
}
