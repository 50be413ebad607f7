// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest'
import { fakeAudioFiles } from '@/test/media'
import { AUDIO_TYPES, audioObjectName, extension, fileProblem, lengthNote, MAX_AUDIO_BYTES, publicPath, readAudioDuration } from './media'

describe('media', () => {
  it('names audio objects inside the artist folder, stably per file', () => {
    const f = { name: 'My Song (Final).MP3', size: 1234, lastModified: 99, type: 'audio/mpeg' }
    expect(audioObjectName('u1', f)).toBe('u1/my-song-final-1234-99.mp3')
    expect(audioObjectName('u1', f)).toBe(audioObjectName('u1', { ...f }))
    expect(audioObjectName('u1', { ...f, name: '!!!', type: 'audio/x-wav' })).toBe('u1/track-1234-99.wav')
  })
  it('picks extensions', () => {
    expect(extension('a.flac', 'audio/flac')).toBe('flac')
    expect(extension('noext', 'audio/mpeg')).toBe('mp3')
  })
  it('checks type and size like the bucket', () => {
    expect(fileProblem({ size: 10, type: 'audio/mpeg' }, AUDIO_TYPES, MAX_AUDIO_BYTES, 'audio file')).toBeNull()
    expect(fileProblem({ size: 10, type: 'video/mp4' }, AUDIO_TYPES, MAX_AUDIO_BYTES, 'audio file')).toBe('This audio file type is not supported')
    expect(fileProblem({ size: MAX_AUDIO_BYTES + 1, type: 'audio/mpeg' }, AUDIO_TYPES, MAX_AUDIO_BYTES, 'audio file')).toBe('The audio file is larger than 50 MB')
  })
  it('builds public paths', () => expect(publicPath('tracks', 'u/a.mp3')).toBe('/storage/v1/object/public/tracks/u/a.mp3'))
})

describe('readAudioDuration', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
    vi.restoreAllMocks()
    vi.useRealTimers()
  })

  it("reads the file's length from its metadata and lets the file go", async () => {
    const m = fakeAudioFiles({ duration: 60.04 })
    expect(await readAudioDuration(new Blob(['x']))).toBe(60.04)
    expect(m.revoked).toEqual(m.urls)
  })
  it('is null when the browser cannot read the file', async () => {
    const m = fakeAudioFiles('error')
    expect(await readAudioDuration(new Blob(['x']))).toBeNull()
    expect(m.revoked).toEqual(m.urls)
  })
  it('is null when the metadata never comes', async () => {
    vi.useFakeTimers()
    fakeAudioFiles('silent')
    const read = readAudioDuration(new Blob(['x']), 5000)
    await vi.advanceTimersByTimeAsync(5000)
    expect(await read).toBeNull()
  })
  it('is null for a file without a length (a live stream)', async () => {
    fakeAudioFiles({ duration: Infinity })
    expect(await readAudioDuration(new Blob(['x']))).toBeNull()
  })
})

describe('lengthNote', () => {
  it('warns about a track too short to ever count', () => {
    expect(lengthNote(29.9)).toBe('Shorter than 30 seconds: its plays can never count as streams.')
    expect(lengthNote(30)).toBeNull()
    expect(lengthNote(null)).toBe('Its length is measured once it is uploaded.')
  })
})
