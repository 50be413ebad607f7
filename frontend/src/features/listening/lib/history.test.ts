import { describe, expect, it } from 'vitest'
import { formatDuration } from '@/lib/format'
import { listenedSeconds } from './history'

describe('listenedSeconds', () => {
  it('is the whole listen when the server gives it: a 42-s listen reads 0:42, not the 0:30 it was counted at', () => {
    expect(formatDuration(listenedSeconds({ duration: 30, listened: 42 }))).toBe('0:42')
    expect(formatDuration(listenedSeconds({ duration: 30, listened: 185.6 }))).toBe('3:05')
  })
  it('is the recorded duration when the whole listen is not known', () => {
    expect(listenedSeconds({ duration: 30 })).toBe(30)
    expect(listenedSeconds({ duration: 30, listened: null })).toBe(30)
    expect(listenedSeconds({ duration: null })).toBe(0)
  })
  it('is never less than what the stream was recorded with, nor negative', () => {
    expect(listenedSeconds({ duration: 30, listened: 12 })).toBe(30)
    expect(listenedSeconds({ duration: -3, listened: null })).toBe(0)
    expect(listenedSeconds({ duration: 30, listened: Number.NaN })).toBe(30)
  })
})
