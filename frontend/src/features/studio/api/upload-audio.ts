import { Upload, type PreviousUpload } from 'tus-js-client'
import { env } from '@/config/env'
import { supabase } from '@/lib/supabase'

// Resumable audio upload: TUS against /storage/v1/upload/resumable, as
// Supabase documents it for tus-js-client (supabase-js storage has no TUS).
// An interrupted upload resumes from where the server has it, also after
// a reload: tus-js-client remembers the upload URL per file fingerprint.

/** AudioUpload controls one running upload. */
export interface AudioUpload {
  /** done resolves when the last byte is stored. */
  done: Promise<void>
  pause: () => void
  resume: () => void
}

/** uploadAudio uploads file as tracks/<objectName>, reporting progress from 0 to 1. */
export async function uploadAudio(file: File, objectName: string, onProgress: (fraction: number) => void): Promise<AudioUpload> {
  const { data } = await supabase().auth.getSession()
  const token = data.session?.access_token
  if (!token) throw new Error('Please sign in again')
  let upload!: Upload
  const done = new Promise<void>((resolve, reject) => {
    upload = new Upload(file, {
      endpoint: `${env().SUPABASE_URL.replace(/\/$/, '')}/storage/v1/upload/resumable`,
      retryDelays: [0, 1000, 3000, 5000],
      headers: { authorization: `Bearer ${token}`, apikey: env().SUPABASE_ANON_KEY, 'x-upsert': 'true' },
      uploadDataDuringCreation: true,
      removeFingerprintOnSuccess: true,
      metadata: { bucketName: 'tracks', objectName, contentType: file.type, cacheControl: '3600' },
      // Supabase requires 6 MB chunks.
      chunkSize: 6 * 1024 * 1024,
      onProgress: (sent, total) => onProgress(total > 0 ? sent / total : 0),
      onSuccess: () => resolve(),
      onError: (e) => reject(new Error(tusMessage(e))),
    })
  })
  const previous: PreviousUpload[] = await upload.findPreviousUploads()
  if (previous.length > 0) upload.resumeFromPreviousUpload(previous[0])
  upload.start()
  return {
    done,
    pause: () => void upload.abort(),
    resume: () => upload.start(),
  }
}

/** tusMessage turns a TUS failure into the storage API's message when it sent one. */
function tusMessage(e: Error): string {
  const body = (e as Error & { originalResponse?: { getBody(): string } }).originalResponse?.getBody()
  try {
    const msg = body ? (JSON.parse(body) as { message?: string }).message : undefined
    if (msg) return msg
  } catch {
    // Not JSON.
  }
  return 'The upload failed. Check your connection and try again.'
}
