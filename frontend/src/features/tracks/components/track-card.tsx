import { lazy, Suspense, useEffect } from 'react'
import { Link } from 'react-router'
import { Pause, Play } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Avatar, AvatarFallback, AvatarImage } from '@/components/ui/avatar'
import { SafeImage } from '@/components/safe-image'
import { useAuthStore } from '@/lib/auth'
import { abbreviateNumber } from '@/lib/format'
import { usePlayer, withPlayer } from '@/stores/deferred'
import type { Track } from '@/types/api'

// Only signed-in users are offered a playlist; sharing and the track's menu
// are not part of the first paint either (code loaded right after it).
const AddToPlaylist = lazy(() => import('@/components/add-to-playlist').then((m) => ({ default: m.AddToPlaylist })))
const ShareButton = lazy(() => import('@/components/share-button').then((m) => ({ default: m.ShareButton })))
const TrackActions = lazy(() => import('@/components/track-actions').then((m) => ({ default: m.TrackActions })))
// Only an artist looking at their own sponsored track sees this note (a tooltip).
const SponsoredNote = lazy(() => import('./sponsored-note'))

/** COVER_SIZE is a card's cover side in CSS pixels at its widest (two columns at 430 px, six on a desktop). */
const COVER_SIZE = 200

/**
 * TrackCard shows a track with everything spec section 2 lists, tags
 * depending on the viewer. Played from a list (a row of cards), the rest of
 * the list becomes the queue. Its cover loads lazily unless the card is above
 * the fold.
 */
export function TrackCard({ track, list, aboveFold = false }: { track: Track; list?: Track[]; aboveFold?: boolean }) {
  const viewer = useAuthStore((s) => s.user)
  const role = useAuthStore((s) => s.role)
  const isCurrent = usePlayer((s) => s.currentTrack?.id === track.id, false)
  const isPlaying = usePlayer((s) => s.isPlaying, false)
  const play = () =>
    withPlayer((s) => {
      const at = list?.findIndex((t) => t.id === track.id) ?? -1
      if (list && at >= 0) s.playFrom(list, at)
      else s.playTrack(track)
    })
  const playingThis = isCurrent && isPlaying
  // The audio is signed with the rest of the screen's tracks after the first
  // paint, so a tap on Play does not wait for storage (lib/audio-source).
  useEffect(() => {
    if (track.audioUrl) void import('@/lib/audio-source').then((m) => m.presignAudio(track.audioUrl))
  }, [track.audioUrl])
  const ownTrack = viewer?.id === track.artistId
  const artistHref = track.artistUsername ? `/profiles/${track.artistUsername}` : `/profile/${track.artistId}`
  const sponsorHref = track.sponsorUsername ? `/profiles/${track.sponsorUsername}` : `/profile/${track.sponsorId}`

  return (
    <div className="group flex flex-col overflow-hidden rounded-xl border border-border bg-card" data-testid="track-card">
      <div className="relative aspect-square">
        <SafeImage src={track.coverUrl} alt={`${track.title} cover`} className="size-full object-cover" size={COVER_SIZE} loading={aboveFold ? 'eager' : 'lazy'} />
        {track.isSponsored && (
          <Link to={sponsorHref} className="absolute left-2 top-2">
            <Badge variant="sponsored">SPONSORED</Badge>
          </Link>
        )}
        {track.isExplicit && (
          <span className="absolute right-2 top-2 rounded bg-black/70 px-1.5 text-[10px] font-bold" title="Explicit">
            E
          </span>
        )}
        <button
          type="button"
          onClick={play}
          aria-label={playingThis ? `Pause ${track.title}` : `Play ${track.title}`}
          className="absolute bottom-2 right-2 flex size-11 items-center justify-center rounded-full bg-primary text-white shadow-lg transition hover:scale-105"
        >
          {playingThis ? <Pause className="size-5" /> : <Play className="size-5 translate-x-px" />}
        </button>
      </div>
      <div className="flex flex-1 flex-col gap-1.5 p-3">
        <p className="truncate font-semibold" title={track.title}>
          {track.title}
        </p>
        <div className="flex items-center gap-2">
          <Link to={artistHref} className="flex min-w-0 items-center gap-1.5 text-sm text-muted-foreground hover:text-foreground">
            <Avatar className="size-5">
              <AvatarImage src={track.artistAvatar ?? undefined} alt="" size={20} />
              <AvatarFallback name={track.artist} className="text-[8px]" />
            </Avatar>
            <span className="truncate">{track.artist}</span>
          </Link>
          {track.isSponsored && (
            <Link to={sponsorHref} title={`Sponsored by ${track.sponsorName ?? 'a sponsor'}`} className="ml-auto">
              <Avatar className="size-5 ring-1 ring-amber-500">
                <AvatarImage src={track.sponsorAvatar ?? undefined} alt="" size={20} />
                <AvatarFallback name={track.sponsorName ?? 'Sponsor'} className="text-[8px]" />
              </Avatar>
            </Link>
          )}
        </div>
        <div className="mt-auto flex flex-wrap items-center gap-1.5 text-xs text-muted-foreground">
          {track.genre && <Badge variant="outline">{track.genre}</Badge>}
          {track.releaseYear && <span>{track.releaseYear}</span>}
          <span className="ml-auto">{abbreviateNumber(track.streams)} streams</span>
          <Suspense fallback={null}>
            <ShareButton target={{ title: track.title, text: `${track.title} by ${track.artist} on Backline`, path: `/track/${track.id}` }} className="-my-1 size-7" />
            <AddToPlaylist track={track} className="-my-1 size-7" />
            <TrackActions track={track} className="-my-1 size-7" />
          </Suspense>
        </div>
        {role === 'sponsor' && track.isSponsored && track.sponsorId === viewer?.id && (
          <Badge variant="sponsored" className="self-start">
            You're sponsoring
          </Badge>
        )}
        {role === 'artist' && ownTrack && track.isSponsored && (
          <Suspense fallback={null}>
            <SponsoredNote />
          </Suspense>
        )}
      </div>
    </div>
  )
}
