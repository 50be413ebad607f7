// The storage API as Studio calls it: Studio's server forwards these paths
// to the API in process with the service-role key.
import * as tus from 'tus-js-client'
import { ApiError, api as call, headers } from '@/lib/api'

/** storageError shows the storage API's sentence ({statusCode, error, message}), not its label. */
function storageError(status: number, body: Record<string, unknown>): ApiError {
  return new ApiError(status, { ...body, error: body.message ?? body.error ?? `HTTP ${status}` })
}

/** api calls the storage API through Studio, with its errors' sentences. */
async function api<T>(path: string, init: Parameters<typeof call>[1] = {}): Promise<T> {
  try {
    return await call<T>(path, init)
  } catch (e) {
    throw e instanceof ApiError ? storageError(e.status, e.body) : e
  }
}

export type Bucket = {
  id: string
  name: string
  public: boolean
  file_size_limit: number | null
  allowed_mime_types: string[] | null
  created_at?: string
}
export type Entry = {
  name: string
  id: string | null // null for a folder
  updated_at?: string | null
  metadata?: { size?: number; mimetype?: string } | null
}

/** objectPath escapes each segment of an object's name. */
export const objectPath = (bucket: string, name: string) => [bucket, ...name.split('/')].map(encodeURIComponent).join('/')

export const listBuckets = () => api<Bucket[]>('/storage/v1/bucket')
export const createBucket = (b: { name: string; public: boolean; file_size_limit: number | null; allowed_mime_types: string[] | null }) =>
  api('/storage/v1/bucket', { method: 'POST', json: { id: b.name, ...b } })
export const updateBucket = (id: string, b: { public: boolean; file_size_limit: number | null; allowed_mime_types: string[] | null }) =>
  api(`/storage/v1/bucket/${encodeURIComponent(id)}`, { method: 'PUT', json: b })
export const emptyBucket = (id: string) => api(`/storage/v1/bucket/${encodeURIComponent(id)}/empty`, { method: 'POST' })
export const deleteBucket = (id: string) => api(`/storage/v1/bucket/${encodeURIComponent(id)}`, { method: 'DELETE' })
export const listObjects = (bucket: string, prefix: string, search: string) =>
  api<Entry[]>(`/storage/v1/object/list/${encodeURIComponent(bucket)}`, {
    method: 'POST',
    json: { prefix, limit: 1000, offset: 0, search, sortBy: { column: 'name', order: 'asc' } },
  })
export const deleteObjects = (bucket: string, names: string[]) =>
  api(`/storage/v1/object/${encodeURIComponent(bucket)}`, { method: 'DELETE', json: { prefixes: names } })
export const signURL = (bucket: string, name: string, expiresIn: number) =>
  api<{ signedURL: string }>(`/storage/v1/object/sign/${objectPath(bucket, name)}`, { method: 'POST', json: { expiresIn } })

/**
 * upload sends a file resumably, as supabase-js's guide does (TUS, 6 MB
 * chunks, x-upsert): a dropped connection resumes from the last chunk the
 * server stored. onProgress gets the fraction sent.
 */
export function upload(bucket: string, name: string, file: File, onProgress: (f: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const up = new tus.Upload(file, {
      endpoint: `${window.location.origin}/storage/v1/upload/resumable`,
      retryDelays: [0, 1000, 3000, 5000],
      chunkSize: 6 * 1024 * 1024,
      uploadDataDuringCreation: true,
      removeFingerprintOnSuccess: true,
      headers: { ...Object.fromEntries(headers().entries()), 'x-upsert': 'true' },
      metadata: { bucketName: bucket, objectName: name, contentType: file.type || 'application/octet-stream', cacheControl: '3600' },
      onProgress: (sent, total) => onProgress(total ? sent / total : 1),
      onError: (e) => {
        const res = (e as tus.DetailedError).originalResponse
        if (!res) return reject(e)
        let body: Record<string, unknown> = {}
        try {
          body = JSON.parse(res.getBody() || '{}')
        } catch {
          body = { error: res.getBody() }
        }
        reject(storageError(res.getStatus(), body))
      },
      onSuccess: () => resolve(),
    })
    up.findPreviousUploads().then((previous) => {
      if (previous.length) up.resumeFromPreviousUpload(previous[0])
      up.start()
    }, reject)
  })
}

/** download fetches an object as a blob (the page holds no key to link to it). */
export async function download(bucket: string, name: string): Promise<Blob> {
  const res = await fetch(`/storage/v1/object/${objectPath(bucket, name)}`, { headers: headers(), credentials: 'same-origin' })
  if (!res.ok) throw storageError(res.status, await res.json().catch(() => ({ error: res.statusText })))
  return res.blob()
}

/** parseSize reads "5 MB", "200KB", "1024" (bytes); "" is no limit. */
export function parseSize(s: string): number | null {
  const m = s.trim().match(/^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i)
  if (!s.trim()) return null
  if (!m) throw new Error(`"${s}" is not a size: write 5 MB, 200 KB or a number of bytes`)
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b']
  return Math.round(Number(m[1]) * unit)
}
