import { describe, expect, it } from 'vitest'
import { AUDIO_TYPES, audioObjectName, extension, fileProblem, MAX_AUDIO_BYTES, publicPath } from './media'

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
