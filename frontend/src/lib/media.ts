import { env } from '@/config/env'

/**
 * mediaUrl resolves a stored media reference. The database keeps storage
 * paths such as /storage/v1/object/public/tracks/a.mp3, which live on the API
 * host, not on the app's origin; full URLs pass through.
 */
export function mediaUrl(url: string | null | undefined): string | undefined {
  if (!url) return undefined
  if (url.startsWith('/storage/')) return `${env().SUPABASE_URL.replace(/\/$/, '')}${url}`
  return url
}

/** publicPath is how a row points at a public object: /storage/v1/object/public/<bucket>/<name>. */
export const publicPath = (bucket: string, name: string) => `/storage/v1/object/public/${bucket}/${name}`

const PUBLIC_OBJECT = /^(.*)\/storage\/v1\/object\/public\/([^?#]+)$/

/**
 * imageUrl asks storage's image transform for a stored public image at the
 * size it is shown (width and height in CSS pixels, twice that for sharp
 * screens), cropped to fill: /storage/v1/render/image/public/<bucket>/<name>
 * ?width=&height=&resize=cover. Other URLs (a provider's picture) pass as
 * mediaUrl gives them.
 */
export function imageUrl(url: string | null | undefined, size: number): string | undefined {
  const full = mediaUrl(url)
  const m = full ? PUBLIC_OBJECT.exec(full) : null
  if (!m) return full
  const px = String(Math.round(size * 2))
  return `${m[1]}/storage/v1/render/image/public/${m[2]}?${new URLSearchParams({ width: px, height: px, resize: 'cover' })}`
}
