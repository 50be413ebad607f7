import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { Pause, Play } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Skeleton } from '@/components/ui/skeleton'
import { SafeImage } from '@/components/safe-image'
import { TrackActions } from '@/components/track-actions'
import { abbreviateNumber, formatDuration } from '@/lib/format'
import { usePlayerStore } from '@/stores/player-store'
import { getChartTracksQueryOptions } from '@/features/tracks/api/get-tracks'

const GENRES = ['All', 'Afrobeats', 'Amapiano', 'Afro-pop', 'Highlife', 'Gospel', 'Hip-hop', 'R&B', 'Fuji']

/** ChartsPage ranks tracks by streams, filterable by genre. */
export default function ChartsPage() {
  const [genre, setGenre] = useState('All')
  const { data = [], isLoading, isError } = useQuery(getChartTracksQueryOptions(genre === 'All' ? undefined : genre))
  const current = usePlayerStore((s) => s.currentTrack?.id)
  const isPlaying = usePlayerStore((s) => s.isPlaying)
  const playFrom = usePlayerStore((s) => s.playFrom)
  return (
    <div>
      <h1 className="text-3xl font-bold">Charts</h1>
      <p className="text-muted-foreground">The most streamed tracks on Backline.</p>
      <div className="scrollbar-none mt-4 flex gap-2 overflow-x-auto">
        {GENRES.map((g) => (
          <button
            key={g}
            type="button"
            onClick={() => setGenre(g)}
            className={`shrink-0 rounded-full border px-3 py-1 text-sm ${g === genre ? 'border-primary bg-primary text-white' : 'border-border'}`}
          >
            {g}
          </button>
        ))}
      </div>
      <ol className="mt-6 grid grid-cols-1 gap-2">
        {isLoading && Array.from({ length: 8 }, (_, i) => <Skeleton key={i} className="h-16" />)}
        {isError && <p className="text-muted-foreground">Error loading tracks. Please try again.</p>}
        {!isLoading && !isError && data.length === 0 && <p className="py-12 text-center text-muted-foreground">No tracks available</p>}
        {data.map((t, i) => {
          const playing = current === t.id && isPlaying
          return (
            <li key={t.id} className="flex min-w-0 items-center gap-3 rounded-xl border border-border bg-card p-2 pr-3 sm:pr-4" data-testid="chart-entry">
              <span className="w-6 shrink-0 text-center text-lg font-bold text-muted-foreground sm:w-8">{i + 1}</span>
              <SafeImage src={t.coverUrl} alt="" size={48} className="size-12 shrink-0 rounded-md object-cover" />
              {/* On a phone the title has the row's width and two lines; the badge and the count go under it. */}
              <div className="min-w-0 flex-1">
                <p className="line-clamp-2 font-semibold [overflow-wrap:anywhere]">{t.title}</p>
                <p className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1 text-sm text-muted-foreground">
                  <span className="min-w-0 truncate">{t.artist}</span>
                  {t.isSponsored && <Badge variant="sponsored">SPONSORED</Badge>}
                  <span className="sm:hidden">{abbreviateNumber(t.streams)} streams</span>
                </p>
              </div>
              <span className="hidden shrink-0 text-sm text-muted-foreground sm:block">{formatDuration(t.duration)}</span>
              <span className="hidden w-20 shrink-0 text-right text-sm sm:block">{abbreviateNumber(t.streams)}</span>
              <TrackActions track={t} />
              <button type="button" onClick={() => playFrom(data, i)} aria-label={playing ? `Pause ${t.title}` : `Play ${t.title}`} className="shrink-0 rounded-full bg-primary p-2 text-white">
                {playing ? <Pause className="size-4" /> : <Play className="size-4" />}
              </button>
            </li>
          )
        })}
      </ol>
    </div>
  )
}
