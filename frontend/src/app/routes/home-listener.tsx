import { useState } from 'react'
import { Link } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { Radio } from 'lucide-react'
import { Skeleton } from '@/components/ui/skeleton'
import { useAuthStore } from '@/lib/auth'
import { cn } from '@/lib/utils'
import { usePlayerStore } from '@/stores/player-store'
import { TrackCard } from '@/features/tracks/components/track-card'
import type { Track } from '@/types/api'
import { getGenreStation, useListenerHome } from '@/features/discovery/api/discovery'

function Row({ title, action, tracks, testId }: { title: React.ReactNode; action?: React.ReactNode; tracks: Track[]; testId: string }) {
  if (tracks.length === 0) return null
  return (
    <section className="mt-10" data-testid={testId}>
      <div className="mb-4 flex items-end justify-between">
        <h2 className="text-xl font-bold md:text-2xl">{title}</h2>
        {action}
      </div>
      <div className="scrollbar-none -mx-4 flex snap-x gap-3 overflow-x-auto px-4 md:mx-0 md:grid md:grid-cols-4 md:px-0 lg:grid-cols-6">
        {tracks.map((t) => (
          <div key={t.id} className="w-40 shrink-0 snap-start md:w-auto">
            <TrackCard track={t} list={tracks} />
          </div>
        ))}
      </div>
    </section>
  )
}

/** GenreStations lists the catalogue's genres; one opens its station (its top tracks) and plays it. */
function GenreStations({ genres }: { genres: string[] }) {
  const [genre, setGenre] = useState<string | null>(null)
  const playTrack = usePlayerStore((s) => s.playTrack)
  const station = useQuery({ queryKey: ['genreStation', genre], queryFn: () => getGenreStation(genre!), enabled: !!genre, staleTime: 60_000 })
  if (genres.length === 0) return null
  return (
    <section className="mt-10">
      <h2 className="mb-4 flex items-center gap-2 text-xl font-bold md:text-2xl">
        <Radio className="size-5" /> Genre stations
      </h2>
      <div className="flex flex-wrap gap-2">
        {genres.map((g) => (
          <button
            key={g}
            type="button"
            aria-pressed={genre === g}
            className={cn('rounded-full border border-border px-3 py-1.5 text-sm capitalize', genre === g ? 'bg-primary text-primary-foreground' : 'hover:bg-accent')}
            onClick={async () => {
              setGenre(g)
              const tracks = await getGenreStation(g).catch(() => [])
              if (tracks[0]) playTrack(tracks[0])
            }}
          >
            {g}
          </button>
        ))}
      </div>
      {genre && <Row title={<span className="capitalize">{genre} station</span>} tracks={station.data ?? []} testId="genre-station" />}
    </section>
  )
}

/** ListenerHome is the signed-in fan's part of the home page: what they played, what they may like, what is new. */
export function ListenerHome() {
  const userId = useAuthStore((s) => s.user?.id)
  const { data, isLoading } = useListenerHome(userId)
  if (isLoading) return <Skeleton className="mt-10 h-48" />
  if (!data) return null
  const liked = data.becauseYouLiked
  return (
    <>
      <Row title="Recently played" tracks={data.recentlyPlayed} testId="recently-played" />
      {liked && (
        <Row
          title={
            <>
              Because you liked{' '}
              <Link to={liked.artist.username ? `/profiles/${liked.artist.username}` : `/profile/${liked.artist.id}`} className="text-primary hover:underline">
                {liked.artist.name}
              </Link>
            </>
          }
          tracks={liked.tracks}
          testId="because-you-liked"
        />
      )}
      <Row title="New from artists you follow" action={<Link to="/following" className="text-sm text-muted-foreground hover:text-foreground">Following</Link>} tracks={data.newReleases} testId="new-releases" />
      <GenreStations genres={data.genres} />
    </>
  )
}
