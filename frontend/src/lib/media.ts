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
