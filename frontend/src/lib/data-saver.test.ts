import { describe, expect, it } from 'vitest'
import { setEnv } from '@/config/env'
import { coverAt, downloadRefusal, formatBytes, MB, spaceRefusal, WIFI_ONLY } from './data-saver'

setEnv({ SUPABASE_URL: 'http://api.test', SUPABASE_ANON_KEY: 'anon' })

describe('data saver', () => {
  const cover = '/storage/v1/object/public/covers/a.jpg'

  it('asks storage for a small cover with the data saver on, one at the size shown otherwise', () => {
    const render = (px: number) => `http://api.test/storage/v1/render/image/public/covers/a.jpg?width=${px}&height=${px}&resize=cover`
    expect(coverAt(cover, 320, true)).toBe(render(48))
    expect(coverAt(cover, 320, false)).toBe(render(640))
    // A cover shown smaller than the small rendition stays at its own size.
    expect(coverAt(cover, 20, true)).toBe(render(40))
    expect(coverAt(null, 48, true)).toBeUndefined()
  })

  it('downloads on Wi-Fi or wired only with the data saver on, where the browser tells', () => {
    expect(downloadRefusal(true, { type: 'cellular' })).toBe(WIFI_ONLY)
    expect(downloadRefusal(true, { type: 'wifi' })).toBeNull()
    expect(downloadRefusal(true, { type: 'ethernet' })).toBeNull()
    // Unknown connection (no navigator.connection, or no type): not stopped.
    expect(downloadRefusal(true, undefined)).toBeNull()
    expect(downloadRefusal(true, {})).toBeNull()
    expect(downloadRefusal(false, { type: 'cellular' })).toBeNull()
  })

  it('keeps downloads within the limit the fan set', () => {
    expect(spaceRefusal(90 * MB, 10 * MB, 100)).toBeNull()
    expect(spaceRefusal(90 * MB, 10 * MB + 1, 100)).toBe('Not enough space: downloads are limited to 100 MB (90.0 MB used). Remove some or raise the limit.')
  })

  it('writes sizes as people read them', () => {
    expect(formatBytes(512)).toBe('1 KB')
    expect(formatBytes(840 * 1024)).toBe('840 KB')
    expect(formatBytes(12.44 * MB)).toBe('12.4 MB')
  })
})
