import { imageUrl } from './media'

// The data saver's rules (prepaid data is dear): no autoplay of previews
// (lib/queue's skipPreviews), covers at a low resolution, and downloads on
// Wi-Fi only where the browser tells what the connection is. Plus the space
// downloads may take, which the fan sets.

/** SETTINGS_STORAGE_KEY is where the settings store keeps the data saver and the rest (zustand's persist: {state, version}). */
export const SETTINGS_STORAGE_KEY = 'backline-settings'

/** LOW_RES_COVER_PX is the largest cover (in image pixels) asked of storage's image transform with the data saver on. */
export const LOW_RES_COVER_PX = 48

/**
 * coverAt is where a cover shown at size CSS pixels is loaded from: storage's
 * rendition at that size, or no bigger than the small one with the data saver on.
 */
export function coverAt(url: string | null | undefined, size: number, dataSaver: boolean): string | undefined {
  return imageUrl(url, dataSaver ? Math.min(size, LOW_RES_COVER_PX / 2) : size)
}

/** ConnectionInfo is the part of navigator.connection the rules read (absent in most browsers but Chromium's). */
export interface ConnectionInfo {
  type?: string
  saveData?: boolean
}

/** WIFI_ONLY is the refusal of a download on a metered connection with the data saver on. */
export const WIFI_ONLY = 'Data saver is on: downloads wait for Wi-Fi'

// Connections that do not spend mobile data.
const UNMETERED = new Set(['wifi', 'ethernet'])

/**
 * downloadRefusal says why a download may not start now, or null. With the
 * data saver on, only a connection the browser names as Wi-Fi (or wired)
 * may download; a browser that does not tell does not stop it.
 */
export function downloadRefusal(dataSaver: boolean, connection: ConnectionInfo | undefined): string | null {
  if (!dataSaver || !connection?.type) return null
  return UNMETERED.has(connection.type) ? null : WIFI_ONLY
}

export const MB = 1024 * 1024

/** spaceRefusal says why bytes more do not fit under the fan's limit, or null. */
export function spaceRefusal(usedBytes: number, moreBytes: number, limitMb: number): string | null {
  if (usedBytes + moreBytes <= limitMb * MB) return null
  return `Not enough space: downloads are limited to ${limitMb} MB (${formatBytes(usedBytes)} used). Remove some or raise the limit.`
}

/** formatBytes is a size as people read it: 840 KB, 12.4 MB. */
export function formatBytes(n: number): string {
  if (n < MB) return `${Math.max(0, Math.round(n / 1024))} KB`
  if (n < 1024 * MB) return `${(n / MB).toFixed(1)} MB`
  return `${(n / (1024 * MB)).toFixed(2)} GB`
}
