// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { installFakeApi } from '@/test/app'
import { Answer } from '@/test/fake-backend'
import { useOfflineStore } from '@/stores/offline-store'
import { aTrack } from '@/test/track'
import { audioObject, audioSource, forgetSignedAudio } from './audio-source'

afterEach(() => {
  forgetSignedAudio()
  useOfflineStore.setState({ downloads: [] })
  vi.unstubAllGlobals()
})

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
})
