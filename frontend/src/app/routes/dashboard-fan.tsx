import { Link } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { Heart } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { useAuthStore } from '@/lib/auth'
import { useFanDashboard, type FanDashboard as FanDashboardData } from '@/features/dashboards/api/dashboards'
import { Allowance } from '@/features/listening/components/allowance'
import { ListeningHistory } from '@/features/listening/components/history'
import { PlaylistsPanel } from '@/features/listening/components/playlists-panel'
import { useFavoriteTracks } from '@/features/tracks/api/get-favorites'
import { getTracksByIdsQueryOptions } from '@/features/tracks/api/get-tracks'
import { fanFirstScreen } from '../first-screen'
import { DashboardSkeleton, Section, Stat } from './dashboard-parts'

/** FanPlaylists offers the fan's liked tracks to their playlists; it renders with the first screen, which brought both. */
function FanPlaylists({ userId }: { userId: string }) {
  const liked = useFavoriteTracks(userId)
  return <PlaylistsPanel userId={userId} liked={liked.data ?? []} />
}

/** History shows the listening history (covers and listens come with it) and replays its tracks, read once the list is known. */
function History({ items }: { items: FanDashboardData['history'] }) {
  const tracks = useQuery(getTracksByIdsQueryOptions(items.map((h) => h.track_id)))
  return <ListeningHistory items={items} tracks={tracks.data ?? new Map()} />
}

/** FanDashboard: today's allowance, history with reasons, stats, favorites and playlists; first screen from one call. */
export default function FanDashboard() {
  const userId = useAuthStore((s) => s.user?.id)
  const { data, isLoading } = useFanDashboard(userId, userId ? fanFirstScreen(userId) : undefined)
  return (
    <div data-testid="fan-dashboard">
      <h1 className="text-3xl font-bold">Fan Dashboard</h1>
      {isLoading && <DashboardSkeleton />}
      {data && userId && (
        <>
          <div className="mt-6 grid grid-cols-2 gap-3 lg:grid-cols-4">
            <Allowance remaining={data.limit.streams_remaining} daily={data.limit.daily_limit} resetsAt={data.limit.resets_at} />
            <Stat label="Streams this week" value={String(data.week.valid)} hint={`${data.week.all} plays in all`} />
            <Stat label="Favorites" value={String(data.favorites)} hint={<Link to="/favorites" className="text-primary hover:underline">See favorites</Link>} />
            <Stat label="Top artist" value={data.top_artists[0]?.name ?? '—'} hint={data.top_artists[0] ? `${data.top_artists[0].streams} streams` : 'Listen to find out'} />
          </div>
          {data.top_artists.length > 1 && (
            <Section title="Your top artists">
              <ol className="grid grid-cols-1 gap-1 text-sm">
                {data.top_artists.map((a, i) => (
                  <li key={a.artist_id}>
                    {i + 1}.{' '}
                    <Link to={`/profile/${a.artist_id}`} className="hover:underline">
                      {a.name}
                    </Link>{' '}
                    <span className="text-muted-foreground">· {a.streams} streams</span>
                  </li>
                ))}
              </ol>
            </Section>
          )}
          <Section title="Listening history">
            <History items={data.history} />
          </Section>
          <Section
            title="Playlists"
            action={
              <Button asChild variant="outline" size="sm">
                <Link to="/favorites">
                  <Heart /> Favorites
                </Link>
              </Button>
            }
          >
            <FanPlaylists userId={userId} />
          </Section>
        </>
      )}
    </div>
  )
}
