import { useEffect, useRef, useState } from 'react'
import { Link } from 'react-router'
import { Heart, Maximize2, Minimize2, Pause, Play, Repeat, Repeat1, Shuffle, SkipBack, SkipForward, Volume2, VolumeX } from 'lucide-react'
import { toast } from 'sonner'
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Slider } from '@/components/ui/slider'
import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip'
import { AddToPlaylist, KEEPS_PLAYER } from '@/components/add-to-playlist'
import { SafeImage } from '@/components/safe-image'
import { useAuthStore } from '@/lib/auth'
import { formatDuration } from '@/lib/format'
import { audioSource } from '@/lib/audio-source'
import { cn } from '@/lib/utils'
import { DEFAULT_VOLUME, usePlayerStore } from '@/stores/player-store'
import { useIsLiked, useToggleLike } from '../api/favorites'
import { useListenRules } from '../hooks/use-listen-rules'
import { useMediaSession } from '../hooks/use-media-session'
import { UpNext } from './up-next'

/** AUTO_COLLAPSE_MS: the expanded player collapses after 5 s without interaction. */
export const AUTO_COLLAPSE_MS = 5000

const PRODUCT = 'Backline'

function LikeButton({ withLabel = false }: { withLabel?: boolean }) {
  const track = usePlayerStore((s) => s.currentTrack)
  const user = useAuthStore((s) => s.user)
  const { data: liked = false } = useIsLiked(track?.id, user?.id)
  const toggle = useToggleLike(track?.id, user?.id)
  const onClick = () => {
    if (!user) {
      toast.info('Sign in to like tracks')
      return
    }
    toggle.mutate(liked)
  }
  return (
    <Button variant={withLabel ? 'outline' : 'ghost'} size={withLabel ? 'default' : 'icon'} onClick={onClick} aria-pressed={liked} aria-label={liked ? 'Liked' : 'Like'}>
      <Heart className={cn(liked && 'fill-pink-500 text-pink-500')} />
      {withLabel && (liked ? 'Liked' : 'Like')}
    </Button>
  )
}

const REPEAT_LABEL = { off: 'Repeat: off', all: 'Repeat: all', one: 'Repeat: one' } as const

function Transport({ large = false }: { large?: boolean }) {
  const isPlaying = usePlayerStore((s) => s.isPlaying)
  const shuffle = usePlayerStore((s) => s.shuffle)
  const repeat = usePlayerStore((s) => s.repeat)
  const { togglePlay, previous, next, toggleShuffle, cycleRepeat } = usePlayerStore.getState()
  return (
    <div className="flex items-center gap-1 md:gap-2">
      <Button variant="ghost" size="icon" aria-label="Shuffle" aria-pressed={shuffle} onClick={toggleShuffle} className={cn(shuffle && 'text-primary')}>
        <Shuffle />
      </Button>
      {/* Previous and next move within the queue (the list the track was played from). */}
      <Button variant="ghost" size="icon" aria-label="Previous" onClick={previous}>
        <SkipBack />
      </Button>
      <Button size="icon" className={cn('rounded-full', large ? 'size-14 [&_svg]:size-6' : 'size-10')} aria-label={isPlaying ? 'Pause' : 'Play'} onClick={togglePlay}>
        {isPlaying ? <Pause /> : <Play className="translate-x-px" />}
      </Button>
      <Button variant="ghost" size="icon" aria-label="Next" onClick={next}>
        <SkipForward />
      </Button>
      <Button variant="ghost" size="icon" aria-label={REPEAT_LABEL[repeat]} data-repeat={repeat} onClick={cycleRepeat} className={cn(repeat !== 'off' && 'text-primary')}>
        {repeat === 'one' ? <Repeat1 /> : <Repeat />}
      </Button>
    </div>
  )
}

function SeekBar() {
  const currentTime = usePlayerStore((s) => s.currentTime)
  const duration = usePlayerStore((s) => s.duration)
  const seek = usePlayerStore((s) => s.seek)
  return (
    <div className="flex w-full items-center gap-2 text-xs tabular-nums text-muted-foreground">
      <span className="w-10 text-right">{formatDuration(currentTime)}</span>
      <Slider aria-label="Seek" value={currentTime} max={Math.max(duration, 0.1)} step={0.1} onValueChange={seek} />
      <span className="w-10">{formatDuration(duration)}</span>
    </div>
  )
}

function VolumeControl({ showPercent = false }: { showPercent?: boolean }) {
  const volume = usePlayerStore((s) => s.volume)
  const setVolume = usePlayerStore((s) => s.setVolume)
  return (
    <div className="flex w-full items-center gap-2">
      <Button variant="ghost" size="icon" aria-label={volume === 0 ? 'Unmute' : 'Mute'} onClick={() => setVolume(volume === 0 ? DEFAULT_VOLUME : 0)}>
        {volume === 0 ? <VolumeX /> : <Volume2 />}
      </Button>
      <Slider aria-label="Volume" value={volume} onValueChange={setVolume} />
      {showPercent && <span className="w-10 text-xs tabular-nums text-muted-foreground">{volume}%</span>}
    </div>
  )
}

function ExpandedPlayer() {
  const track = usePlayerStore((s) => s.currentTrack)!
  const setExpanded = usePlayerStore((s) => s.setExpanded)
  const panel = useRef<HTMLDivElement>(null)
  const timer = useRef<number | undefined>(undefined)
  // While the add-to-playlist dialog is open the player stays expanded.
  const [holding, setHolding] = useState(false)

  // Auto-collapse after 5 s without interaction, or on a click outside (a
  // popup the player opened is not outside).
  useEffect(() => {
    if (holding) return
    const reset = () => {
      window.clearTimeout(timer.current)
      timer.current = window.setTimeout(() => setExpanded(false), AUTO_COLLAPSE_MS)
    }
    const outside = (e: MouseEvent) => {
      const target = e.target as Element
      if (target.closest?.(`[${KEEPS_PLAYER}]`)) return
      if (panel.current && !panel.current.contains(target)) setExpanded(false)
    }
    reset()
    const el = panel.current
    el?.addEventListener('click', reset)
    el?.addEventListener('mousemove', reset)
    // A touch drag in the queue editor moves no mouse.
    el?.addEventListener('pointermove', reset)
    window.addEventListener('keydown', reset)
    document.addEventListener('mousedown', outside)
    return () => {
      window.clearTimeout(timer.current)
      el?.removeEventListener('click', reset)
      el?.removeEventListener('mousemove', reset)
      el?.removeEventListener('pointermove', reset)
      window.removeEventListener('keydown', reset)
      document.removeEventListener('mousedown', outside)
    }
  }, [setExpanded, holding])

  const sponsorHref = track.sponsorUsername ? `/profiles/${track.sponsorUsername}` : `/profile/${track.sponsorId}`
  return (
    <div
      ref={panel}
      data-testid="player-expanded"
      className="fixed inset-x-0 bottom-0 z-50 flex h-[calc(100dvh-3.5rem)] flex-col overflow-y-auto border-t border-border bg-card p-4 shadow-2xl md:h-[500px] md:p-6"
    >
      <div className="mb-4 flex items-center justify-between">
        <h2 className="text-sm font-semibold uppercase tracking-wide text-muted-foreground">Now Playing</h2>
        <Button variant="ghost" size="sm" onClick={() => setExpanded(false)} aria-label="Minimize">
          <Minimize2 /> Minimize
        </Button>
      </div>
      <div className="mx-auto grid w-full max-w-5xl flex-1 grid-cols-1 items-center gap-6 lg:grid-cols-2">
        <SafeImage src={track.coverUrl} alt={`${track.title} cover`} size={320} loading="eager" className="mx-auto aspect-square h-auto w-full max-w-72 rounded-xl object-cover shadow-lg lg:max-w-80" />
        <div className="flex flex-col items-center gap-4 lg:items-start">
          <div className="text-center lg:text-left">
            <p className="text-2xl font-bold">{track.title}</p>
            <p className="text-muted-foreground">by {track.artist}</p>
          </div>
          <SeekBar />
          <Transport large />
          <div className="w-full max-w-sm">
            <VolumeControl showPercent />
          </div>
          <div className="flex flex-wrap justify-center gap-2">
            <LikeButton withLabel />
            <AddToPlaylist track={track} withLabel onOpenChange={setHolding} />
          </div>
          <UpNext />
          {track.isSponsored && track.sponsorName && (
            <div className="flex w-full items-center gap-3 rounded-lg border border-amber-500/40 bg-amber-500/10 p-3">
              <Link to={sponsorHref}>
                <Avatar>
                  <AvatarImage src={track.sponsorAvatar ?? undefined} alt={track.sponsorName} />
                  <AvatarFallback>{track.sponsorName.charAt(0)}</AvatarFallback>
                </Avatar>
              </Link>
              <div className="text-sm">
                <p className="font-medium">This track is sponsored by {track.sponsorName}</p>
                <p className="text-muted-foreground">Supporting independent artists through {PRODUCT}</p>
              </div>
            </div>
          )}
        </div>
      </div>
    </div>
  )
}

/**
 * useAudioSource resolves what the audio element loads for the current track
 * (a download, else a URL storage signs if the caller may play it); undefined
 * until then. A refusal says the track cannot play and stops.
 */
function useAudioSource(trackId: string | undefined, audioUrl: string | null | undefined): string | undefined {
  const [resolved, setResolved] = useState<{ id: string; url?: string }>()
  useEffect(() => {
    if (!trackId) return
    let live = true
    audioSource(audioUrl).then(
      (url) => live && setResolved({ id: trackId, url }),
      () => {
        if (!live) return
        setResolved({ id: trackId })
        toast.error('Playback error - Could not play this track')
        usePlayerStore.getState().setPlaying(false)
      },
    )
    return () => {
      live = false
    }
  }, [trackId, audioUrl])
  return resolved?.id === trackId ? resolved?.url : undefined
}

/** PlayerBar is the fixed player; it renders nothing until a track is selected. */
export function PlayerBar() {
  const track = usePlayerStore((s) => s.currentTrack)
  const isPlaying = usePlayerStore((s) => s.isPlaying)
  const isExpanded = usePlayerStore((s) => s.isExpanded)
  const volume = usePlayerStore((s) => s.volume)
  const seekRequest = usePlayerStore((s) => s.seekRequest)
  const currentTime = usePlayerStore((s) => s.currentTime)
  const duration = usePlayerStore((s) => s.duration)
  const playId = usePlayerStore((s) => s.playId)
  const audio = useRef<HTMLAudioElement>(null)
  const src = useAudioSource(track?.id, track?.audioUrl)
  useListenRules(audio)
  useMediaSession(audio)

  useEffect(() => {
    const el = audio.current
    if (!el || !track || !src) return
    if (isPlaying) {
      el.play().catch((e: unknown) => {
        if (e instanceof DOMException && e.name === 'AbortError') return
        toast.error('Playback error - Could not play this track')
        usePlayerStore.getState().setPlaying(false)
      })
    } else {
      el.pause()
    }
    // playId: a replay of the same track (repeat one, Previous) starts it again.
  }, [isPlaying, track, playId, src])

  useEffect(() => {
    if (audio.current) audio.current.volume = volume / 100
  }, [volume, track])

  useEffect(() => {
    if (seekRequest !== null && audio.current) {
      audio.current.currentTime = seekRequest
      usePlayerStore.getState().consumeSeek()
    }
  }, [seekRequest])

  if (!track) return null
  const s = usePlayerStore.getState
  const sponsorLabel = `Sponsored by ${track.sponsorName ?? 'a Backline sponsor'}`
  const progress = duration > 0 ? (currentTime / duration) * 100 : 0

  return (
    <>
      <audio
        ref={audio}
        src={src}
        preload="auto"
        className="hidden"
        data-testid="player-audio"
        onTimeUpdate={(e) => s().setProgress(e.currentTarget.currentTime, e.currentTarget.duration || track.duration)}
        onLoadedMetadata={(e) => s().setProgress(e.currentTarget.currentTime, e.currentTarget.duration || track.duration)}
        // The queue moves on (autoplay) as repeat allows; at its end the player stops.
        onEnded={() => s().advance()}
        onError={() => {
          if (!s().currentTrack) return
          toast.error('Playback error - Could not play this track')
          s().setPlaying(false)
        }}
      />
      {isExpanded ? (
        <ExpandedPlayer />
      ) : (
        <div data-testid="player-bar" className="fixed inset-x-0 bottom-16 z-40 border-t border-border bg-card/95 backdrop-blur md:bottom-0">
          {/* Mobile: compact bar with a clickable progress strip. */}
          <div className="md:hidden">
            <div
              className="h-1 w-full cursor-pointer bg-muted"
              role="presentation"
              onClick={(e) => {
                const rect = e.currentTarget.getBoundingClientRect()
                s().seek(((e.clientX - rect.left) / rect.width) * (duration || 0))
              }}
            >
              <div className="h-full bg-primary" style={{ width: `${progress}%` }} />
            </div>
            <div className="flex h-[68px] items-center gap-3 px-3" onClick={() => s().setExpanded(true)}>
              <SafeImage
                src={track.coverUrl}
                alt=""
                size={44}
                loading="eager"
                className={cn('size-11 rounded-md border-2 object-cover', isPlaying ? 'animate-pulse border-primary' : 'border-transparent')}
              />
              <div className="min-w-0 flex-1">
                <p className="truncate text-sm font-semibold">{track.title}</p>
                <p className="truncate text-xs text-muted-foreground">{track.artist}</p>
              </div>
              <div className="flex items-center" onClick={(e) => e.stopPropagation()}>
                <LikeButton />
                <Button size="icon" variant="ghost" aria-label={isPlaying ? 'Pause' : 'Play'} onClick={() => s().togglePlay()}>
                  {isPlaying ? <Pause /> : <Play />}
                </Button>
                <Button size="icon" variant="ghost" aria-label="Next" onClick={() => s().next()}>
                  <SkipForward />
                </Button>
                <Button size="icon" variant="ghost" aria-label="Expand player" onClick={() => s().setExpanded(true)}>
                  <Maximize2 />
                </Button>
              </div>
            </div>
          </div>
          {/* Desktop: full collapsed bar. */}
          <div className="hidden h-20 items-center gap-4 px-4 md:flex">
            <div className="flex w-1/4 min-w-0 items-center gap-3">
              <SafeImage src={track.coverUrl} alt="" size={48} loading="eager" className="size-12 rounded-md object-cover" />
              <div className="min-w-0">
                <p className="truncate text-sm font-semibold">{track.title}</p>
                <p className="truncate text-xs text-muted-foreground">{track.artist}</p>
              </div>
              {track.isSponsored && (
                <Tooltip>
                  <TooltipTrigger asChild>
                    <Link to={`/profile/${track.sponsorId}`}>
                      <Badge variant="sponsored">Sponsored</Badge>
                    </Link>
                  </TooltipTrigger>
                  <TooltipContent>{sponsorLabel}</TooltipContent>
                </Tooltip>
              )}
            </div>
            <div className="flex flex-1 flex-col items-center gap-1">
              <Transport />
              <SeekBar />
            </div>
            <div className="flex w-1/4 items-center gap-2">
              <LikeButton />
              <AddToPlaylist track={track} />
              <VolumeControl />
              <Button variant="ghost" size="icon" aria-label="Expand player" onClick={() => s().setExpanded(true)}>
                <Maximize2 />
              </Button>
            </div>
          </div>
        </div>
      )}
    </>
  )
}
