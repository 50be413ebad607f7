import { useEffect } from 'react'
import { imageUrl, mediaUrl } from '@/lib/media'
import { usePlayerStore } from '@/stores/player-store'

// Lock-screen and notification-shade controls (the Media Session API): what
// plays, with its cover, and the player's own actions behind the system's
// buttons. Browsers without the API get nothing.

/** ARTWORK_SIZES are the cover sizes offered to the system, in pixels. */
export const ARTWORK_SIZES = [96, 256, 512]

const SEEK_STEP_SECONDS = 10

/** artworkFor is the track's cover at the sizes the system picks from (storage's image transform). */
export function artworkFor(coverUrl: string | null | undefined): MediaImage[] {
  if (!coverUrl || !mediaUrl(coverUrl)) return []
  return ARTWORK_SIZES.map((px) => ({ src: imageUrl(coverUrl, px / 2)!, sizes: `${px}x${px}` }))
}

/** useMediaSession keeps navigator.mediaSession in step with the player. */
export function useMediaSession(audio: React.RefObject<HTMLAudioElement | null>) {
  const track = usePlayerStore((s) => s.currentTrack)
  const isPlaying = usePlayerStore((s) => s.isPlaying)
  const currentTime = usePlayerStore((s) => s.currentTime)
  const duration = usePlayerStore((s) => s.duration)
  const supported = typeof navigator !== 'undefined' && 'mediaSession' in navigator

  useEffect(() => {
    if (!supported || !track) return
    navigator.mediaSession.metadata = new MediaMetadata({ title: track.title, artist: track.artist, album: 'Backline', artwork: artworkFor(track.coverUrl) })
  }, [supported, track])

  useEffect(() => {
    if (!supported) return
    navigator.mediaSession.playbackState = track ? (isPlaying ? 'playing' : 'paused') : 'none'
  }, [supported, track, isPlaying])

  useEffect(() => {
    if (!supported || !track || !(duration > 0) || !Number.isFinite(duration)) return
    try {
      navigator.mediaSession.setPositionState({ duration, playbackRate: audio.current?.playbackRate || 1, position: Math.min(Math.max(currentTime, 0), duration) })
    } catch {
      // A position the browser refuses (a duration still changing) is left out.
    }
  }, [supported, track, currentTime, duration, audio])

  useEffect(() => {
    if (!supported) return
    const p = usePlayerStore.getState
    const handlers: [MediaSessionAction, MediaSessionActionHandler][] = [
      ['play', () => p().setPlaying(true)],
      ['pause', () => p().setPlaying(false)],
      ['stop', () => p().setPlaying(false)],
      ['previoustrack', () => p().previous()],
      ['nexttrack', () => p().next()],
      ['seekto', (d) => d.seekTime !== undefined && p().seek(d.seekTime)],
      ['seekbackward', (d) => p().seek(Math.max(p().currentTime - (d.seekOffset ?? SEEK_STEP_SECONDS), 0))],
      ['seekforward', (d) => p().seek(Math.min(p().currentTime + (d.seekOffset ?? SEEK_STEP_SECONDS), p().duration || Infinity))],
    ]
    for (const [action, handler] of handlers) {
      try {
        navigator.mediaSession.setActionHandler(action, handler)
      } catch {
        // An action this browser does not know.
      }
    }
    return () => {
      for (const [action] of handlers) {
        try {
          navigator.mediaSession.setActionHandler(action, null)
        } catch {
          // as above
        }
      }
      navigator.mediaSession.metadata = null
    }
  }, [supported])
}
