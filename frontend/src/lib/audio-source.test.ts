// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { installFakeApi } from '@/test/app'
import { Answer } from '@/test/fake-backend'
import { useOfflineStore } from '@/stores/offline-store'
import { useSettingsStore } from '@/stores/settings-store'
import { aTrack } from '@/test/track'
import { audioObject, audioSource, forgetSignedAudio, presignAudio, PRESIGN_BATCH, PRESIGN_DELAY_MS } from './audio-source'

afterEach(() => {
  forgetSignedAudio()
  useOfflineStore.setState({ downloads: [] })
  useSettingsStore.setState({ dataSaver: false })
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

const path = (n: string) => `/storage/v1/object/public/tracks/u1/${n}.mp3`

describe('audio source', () => {
  it('names the object a track row points at, and nothing else', () => {
    expect(audioObject('/storage/v1/object/public/tracks/u1/a.mp3')).toBe('u1/a.mp3')
    expect(audioObject('https://api.example/storage/v1/object/public/tracks/a.mp3')).toBe('a.mp3')
    expect(audioObject('/storage/v1/object/public/covers/a.jpg')).toBeNull()
    expect(audioObject('https://cdn.example/a.mp3')).toBeNull()
    expect(audioObject(null)).toBeNull()
  })

  it('plays a signed URL, asking storage once per object', async () => {
    const { backend } = installFakeApi({})
    const want = 'http://backend.test/storage/v1/object/sign/tracks/u1/a.mp3?token=signed-u1/a.mp3'
    await expect(audioSource('/storage/v1/object/public/tracks/u1/a.mp3')).resolves.toBe(want)
    await expect(audioSource('/storage/v1/object/public/tracks/u1/a.mp3')).resolves.toBe(want)
    expect(backend.calls('storage/sign/tracks')).toHaveLength(1)
  })

  it('fails when storage refuses to sign (the track is not playable for the caller)', async () => {
    installFakeApi({ onSign: () => new Answer(400, { statusCode: '404', error: 'not_found', message: 'Object not found' }) })
    await expect(audioSource('/storage/v1/object/public/tracks/u1/hidden.mp3')).rejects.toThrow()
  })

  it('plays a download from the public path the device keeps it under, with no signing', async () => {
    const { backend } = installFakeApi({})
    const track = aTrack({ audioUrl: '/storage/v1/object/public/tracks/u1/kept.mp3' })
    const kept = 'http://backend.test/storage/v1/object/public/tracks/u1/kept.mp3'
    useOfflineStore.setState({ downloads: [{ track, bytes: 10, urls: [kept], savedAt: '' }] })
    await expect(audioSource(track.audioUrl)).resolves.toBe(kept)
    expect(backend.calls('storage/sign/tracks')).toHaveLength(0)
  })

  it('signs the tracks on screen in one request, so a tap plays with no round trip of its own', async () => {
    vi.useFakeTimers()
    const { backend } = installFakeApi({ onSign: (_b, name) => (name === 'u1/hidden.mp3' ? new Answer(400, {}) : undefined) })
    for (const n of ['a', 'b', 'hidden', 'a']) presignAudio(path(n))
    presignAudio('https://cdn.example/elsewhere.mp3') // not in the tracks bucket: nothing to sign
    expect(backend.calls('storage/sign-many/tracks')).toHaveLength(0) // not before the screen is drawn
    await vi.advanceTimersByTimeAsync(PRESIGN_DELAY_MS)
    const batches = backend.calls('storage/sign-many/tracks')
    expect(batches.map((c) => c.body)).toEqual([{ paths: ['u1/a.mp3', 'u1/b.mp3', 'u1/hidden.mp3'] }])
    await expect(audioSource(path('b'))).resolves.toBe('http://backend.test/storage/v1/object/sign/tracks/u1/b.mp3?token=signed-u1/b.mp3')
    expect(backend.calls('storage/sign/tracks')).toHaveLength(0)
    // One the caller may not play is left to the tap, which reports it.
    await expect(audioSource(path('hidden'))).rejects.toThrow()
    expect(backend.calls('storage/sign/tracks')).toHaveLength(1)
    presignAudio(path('a')) // signed already
    await vi.advanceTimersByTimeAsync(PRESIGN_DELAY_MS)
    expect(backend.calls('storage/sign-many/tracks')).toHaveLength(1)
  })

  it('a tap while the batch is out waits for it instead of asking again', async () => {
    vi.useFakeTimers()
    const { backend } = installFakeApi({})
    presignAudio(path('c'))
    vi.advanceTimersByTime(PRESIGN_DELAY_MS) // the batch goes; its answer has not come
    await expect(audioSource(path('c'))).resolves.toContain('u1/c.mp3?token=signed-u1/c.mp3')
    expect(backend.calls('storage/sign/tracks')).toHaveLength(0)
    // A tap before the batch goes asks alone, and the batch leaves that one out.
    presignAudio(path('d'))
    presignAudio(path('e'))
    await expect(audioSource(path('d'))).resolves.toContain('u1/d.mp3?token=')
    await vi.advanceTimersByTimeAsync(PRESIGN_DELAY_MS)
    expect(backend.calls('storage/sign/tracks').map((c) => c.body)).toEqual([{ name: 'u1/d.mp3' }])
    expect(backend.calls('storage/sign-many/tracks').map((c) => c.body)).toEqual([{ paths: ['u1/c.mp3'] }, { paths: ['u1/e.mp3'] }])
  })

  it('sends at most PRESIGN_BATCH objects a request, and nothing with data saver on', async () => {
    vi.useFakeTimers()
    const { backend } = installFakeApi({})
    useSettingsStore.setState({ dataSaver: true })
    presignAudio(path('saver'))
    await vi.advanceTimersByTimeAsync(PRESIGN_DELAY_MS)
    expect(backend.calls('storage/sign-many/tracks')).toHaveLength(0)
    useSettingsStore.setState({ dataSaver: false })
    for (let i = 0; i < PRESIGN_BATCH + 5; i++) presignAudio(path(`t${i}`))
    await vi.advanceTimersByTimeAsync(2 * PRESIGN_DELAY_MS)
    expect(backend.calls('storage/sign-many/tracks').map((c) => (c.body as { paths: string[] }).paths.length)).toEqual([PRESIGN_BATCH, 5])
  })
})
