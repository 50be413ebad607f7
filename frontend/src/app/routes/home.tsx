import { lazy, Suspense, useRef, useState } from 'react'
import { Link } from 'react-router'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { RefreshCw } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { dashboardPath } from '@/config/nav'
import { useIsMobile } from '@/hooks/use-media-query'
import { useOnlineUsers } from '@/hooks/use-online-users'
import { useAuthStore } from '@/lib/auth'
import { abbreviateNumber } from '@/lib/format'
import { getTracksQueryOptions } from '@/features/tracks/api/get-tracks'
import { TrackCard } from '@/features/tracks/components/track-card'
import { topArtistsQueryOptions, topFansQueryOptions } from '@/features/profiles/api/top-profiles'
import { platformStatsQueryOptions } from '@/features/profiles/api/get-stats'

// How It Works is the last section: it loads after the first paint.
const HowItWorks = lazy(() => import('./how-it-works'))
// Platform Stats is below the fold too (and its icons with it).
const PlatformStats = lazy(() => import('./home-stats'))
// Top Artists and Top Fans are below the fold: their cards load after the first paint.
const ArtistCard = lazy(() => import('@/features/profiles/components/people-cards').then((m) => ({ default: m.ArtistCard })))
const FanCard = lazy(() => import('@/features/profiles/components/people-cards').then((m) => ({ default: m.FanCard })))
// A fan's own sections (follows, stations) load once the role says fan.
const ListenerHome = lazy(() => import('./home-listener').then((m) => ({ default: m.ListenerHome })))

/** PULL_THRESHOLD is the pull-to-refresh distance. */
const PULL_THRESHOLD = 80

export function Section({ title, action, children }: { title: string; action?: React.ReactNode; children: React.ReactNode }) {
  return (
    <section className="mt-12">
      <div className="mb-4 flex items-end justify-between">
        <h2 className="text-xl font-bold md:text-2xl">{title}</h2>
        {action}
      </div>
      {children}
    </section>
  )
}

const Empty = ({ text }: { text: string }) => <p className="rounded-xl border border-dashed border-border p-8 text-center text-muted-foreground">{text}</p>

const gridSkeleton = (n: number) => (
  <div className="grid grid-cols-2 gap-4 md:grid-cols-4 lg:grid-cols-6">
    {Array.from({ length: n }, (_, i) => (
      <Skeleton key={i} className="aspect-[3/4]" />
    ))}
  </div>
)

function Carousel({ children }: { children: React.ReactNode[] }) {
  // Two cards per slide, snapping horizontally.
  const slides: React.ReactNode[][] = []
  for (let i = 0; i < children.length; i += 2) slides.push(children.slice(i, i + 2))
  return (
    <div className="scrollbar-none -mx-4 flex snap-x snap-mandatory overflow-x-auto px-4" data-testid="popular-carousel">
      {slides.map((s, i) => (
        <div key={i} className="grid w-full shrink-0 snap-center grid-cols-2 gap-3 pr-3">
          {s}
        </div>
      ))}
    </div>
  )
}

/** HomePage is the landing page of spec section 2. */
export default function HomePage() {
  const isMobile = useIsMobile()
  const user = useAuthStore((s) => s.user)
  const role = useAuthStore((s) => s.role)
  // Nobody is known to be signed out before the stored session has been read.
  const signedOut = useAuthStore((s) => s.sessionRead && !s.user)
  const qc = useQueryClient()
  const online = useOnlineUsers()
  const popular = useQuery(getTracksQueryOptions({ order: 'popular', limit: 12 }))
  const recent = useQuery({ ...getTracksQueryOptions({ order: 'recent', limit: 6 }), enabled: isMobile })
  const stats = useQuery(platformStatsQueryOptions())
  const artists = useQuery(topArtistsQueryOptions())
  const fans = useQuery(topFansQueryOptions())

  // Mobile pull-to-refresh: a pull of 80px at the top refreshes the four lists.
  const start = useRef<number | null>(null)
  const [pull, setPull] = useState(0)
  const refresh = () => Promise.all(['tracks', 'platformStats', 'topArtists', 'topFans'].map((k) => qc.invalidateQueries({ queryKey: [k] })))
  const touch = {
    onTouchStart: (e: React.TouchEvent) => {
      start.current = window.scrollY === 0 ? e.touches[0].clientY : null
    },
    onTouchMove: (e: React.TouchEvent) => {
      if (start.current !== null) setPull(Math.max(0, Math.min(120, e.touches[0].clientY - start.current)))
    },
    onTouchEnd: () => {
      if (pull >= PULL_THRESHOLD) void refresh()
      start.current = null
      setPull(0)
    },
  }

  const s = stats.data
  const popularTracks = (popular.data ?? []).slice(0, isMobile ? 6 : 12)
  return (
    <div {...(isMobile ? touch : {})}>
      {pull > 0 && (
        <div className="flex justify-center py-2 text-muted-foreground" style={{ height: pull / 2 }}>
          <RefreshCw className={pull >= PULL_THRESHOLD ? 'animate-spin' : ''} />
        </div>
      )}
      <section className="relative overflow-hidden rounded-3xl bg-gradient-to-br from-violet-700 via-purple-800 to-amber-700 px-6 py-12 md:px-12 md:py-16">
        <h1 className="max-w-2xl text-3xl font-extrabold leading-tight md:text-5xl">Stream Nigerian music. Every sponsored play pays the artist.</h1>
        <p className="mt-4 max-w-xl text-white/80">
          Artists earn ₦50 per stream from their sponsors. Sponsors back the sounds they believe in. Fans just press play.
        </p>
        <div className="mt-6 flex flex-wrap gap-3">
          {/* Joining is for visitors; a signed-in user is offered their dashboard. */}
          {signedOut && (
            <Button asChild size="lg" className="bg-white text-violet-800 hover:bg-white/90">
              <Link to="/register">Get Started</Link>
            </Button>
          )}
          {user && (
            <Button asChild size="lg" className="bg-white text-violet-800 hover:bg-white/90">
              <Link to={dashboardPath(role)}>Go to Dashboard</Link>
            </Button>
          )}
          <Button asChild size="lg" variant="outline" className="border-white/60">
            <Link to="/charts">Explore Charts</Link>
          </Button>
        </div>
        <dl className="mt-10 grid max-w-2xl grid-cols-3 gap-4" data-testid="hero-stats">
          {[
            ['Artists', s?.artists],
            ['Tracks', s?.tracks],
            ['Streams', s?.validStreams],
          ].map(([label, v]) => (
            <div key={label as string}>
              <dt className="text-xs uppercase tracking-wide text-white/70">{label}</dt>
              <dd className="text-2xl font-bold md:text-3xl">{stats.isLoading ? '—' : abbreviateNumber(Number(v ?? 0))}</dd>
            </div>
          ))}
        </dl>
      </section>
      {role === 'fan' && (
        <Suspense fallback={null}>
          <ListenerHome />
        </Suspense>
      )}

      <Section
        title="Popular Tracks"
        action={
          <Link to="/charts" className="text-sm text-primary hover:underline">
            View charts
          </Link>
        }
      >
        {popular.isLoading ? (
          gridSkeleton(isMobile ? 2 : 6)
        ) : popular.isError ? (
          <Empty text="Error loading tracks. Please try again." />
        ) : popularTracks.length === 0 ? (
          <Empty text="No tracks available" />
        ) : isMobile ? (
          <Carousel>{popularTracks.map((t, i) => <TrackCard key={t.id} track={t} list={popularTracks} aboveFold={i < 2} />)}</Carousel>
        ) : (
          <div className="grid grid-cols-2 gap-4 md:grid-cols-4 lg:grid-cols-6">
            {popularTracks.map((t, i) => (
              <TrackCard key={t.id} track={t} list={popularTracks} aboveFold={i < 6} />
            ))}
          </div>
        )}
      </Section>

      {isMobile && (
        <Section title="Recently Added">
          {recent.isLoading ? (
            gridSkeleton(2)
          ) : (recent.data ?? []).length === 0 ? (
            <Empty text="No tracks available" />
          ) : (
            <div className="grid grid-cols-2 gap-3">
              {recent.data!.map((t) => (
                <TrackCard key={t.id} track={t} list={recent.data} />
              ))}
            </div>
          )}
        </Section>
      )}

      <Suspense
        fallback={
          <Section title="Platform Stats">
            <div className="grid grid-cols-2 gap-3 md:grid-cols-4">
              {Array.from({ length: 4 }, (_, i) => (
                <Skeleton key={i} className="h-[106px] rounded-xl" />
              ))}
            </div>
          </Section>
        }
      >
        <PlatformStats stats={s} />
      </Suspense>

      <Section
        title="Top Artists"
        action={
          <Link to="/artists" className="text-sm text-primary hover:underline">
            All artists
          </Link>
        }
      >
        {artists.isLoading ? (
          gridSkeleton(4)
        ) : (artists.data ?? []).length === 0 ? (
          <Empty text="No artists found" />
        ) : (
          <Suspense fallback={gridSkeleton(4)}>
            <div className="grid grid-cols-2 gap-4 md:grid-cols-4">
              {artists.data!.map((a) => (
                <ArtistCard key={a.id} artist={a} online={online.has(a.id)} />
              ))}
            </div>
          </Suspense>
        )}
      </Section>

      <Section title="Top Fans">
        {fans.isLoading ? (
          gridSkeleton(4)
        ) : (fans.data ?? []).length === 0 ? (
          <Empty text="No fans found" />
        ) : (
          <Suspense fallback={gridSkeleton(4)}>
            <div className="grid grid-cols-1 gap-3 sm:grid-cols-2 lg:grid-cols-4">
              {fans.data!.map((f) => (
                <FanCard key={f.id} fan={f} online={online.has(f.id)} />
              ))}
            </div>
          </Suspense>
        )}
      </Section>

      <Suspense fallback={null}>
        <HowItWorks signedOut={signedOut} />
      </Suspense>
    </div>
  )
}
