import { Link } from 'react-router'
import { ListMusic, Pause, Play } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { SafeImage } from '@/components/safe-image'
import { TrackActions } from '@/components/track-actions'
import { useAuthStore } from '@/lib/auth'
import { formatDuration } from '@/lib/format'
import { usePlayerStore } from '@/stores/player-store'
import { useFavoriteTracks } from '@/features/tracks/api/get-favorites'
import { PlaylistsPanel } from '@/features/listening/components/playlists-panel'

/** PlaylistPage shows the user's named playlists (made, filled from any track card or the player, reordered) and their liked tracks. */
export default function PlaylistPage() {
  const userId = useAuthStore((s) => s.user?.id)
  const { data = [], isLoading } = useFavoriteTracks(userId)
  const current = usePlayerStore((s) => s.currentTrack?.id)
  const isPlaying = usePlayerStore((s) => s.isPlaying)
  const playFrom = usePlayerStore((s) => s.playFrom)
  const total = data.reduce((s, t) => s + t.duration, 0)
  return (
    <div>
      <h1 className="flex items-center gap-2 text-3xl font-bold">
        <ListMusic /> My Playlists
      </h1>
      {userId && (
        <section className="mt-4" aria-label="Playlists">
          <PlaylistsPanel userId={userId} liked={data} />
        </section>
      )}
      <h2 className="mt-8 text-xl font-bold">
        <Link to="/playlists/liked" className="hover:underline">
          Liked tracks
        </Link>
      </h2>
      <p className="text-muted-foreground">
        {data.length} tracks · {formatDuration(total)}
      </p>
      <ol className="mt-6 grid grid-cols-1 gap-2">
        {isLoading && Array.from({ length: 5 }, (_, i) => <Skeleton key={i} className="h-16" />)}
        {data.map((t, i) => {
          const playing = current === t.id && isPlaying
          return (
            <li key={t.id} className="flex min-w-0 items-center gap-3 rounded-xl border border-border bg-card p-2 pr-4">
              <span className="w-6 text-center text-muted-foreground">{i + 1}</span>
              <SafeImage src={t.coverUrl} alt="" size={48} className="size-12 rounded-md object-cover" />
              <div className="min-w-0 flex-1">
                <p className="truncate font-semibold">{t.title}</p>
                <p className="truncate text-sm text-muted-foreground">{t.artist}</p>
              </div>
              <span className="text-sm text-muted-foreground">{formatDuration(t.duration)}</span>
              <TrackActions track={t} />
              <button type="button" onClick={() => playFrom(data, i)} className="rounded-full bg-primary p-2 text-white" aria-label={playing ? `Pause ${t.title}` : `Play ${t.title}`}>
                {playing ? <Pause className="size-4" /> : <Play className="size-4" />}
              </button>
            </li>
          )
        })}
      </ol>
      {!isLoading && data.length === 0 && (
        <div className="grid grid-cols-1 justify-items-center gap-3 py-16 text-center text-muted-foreground">
          <p>Tracks you like show here. Add any track to a playlist from its card or the player.</p>
          <Button asChild>
            <Link to="/">Discover tracks</Link>
          </Button>
        </div>
      )}
    </div>
  )
}
