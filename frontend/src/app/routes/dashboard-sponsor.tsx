import { lazy, memo, Suspense, useState } from 'react'
import { Link } from 'react-router'
import { AlertTriangle, Wallet } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { DataTable, type DataColumn } from '@/components/ui/data-table'
import { Skeleton } from '@/components/ui/skeleton'
import { Tabs, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { useAuthStore } from '@/lib/auth'
import { abbreviateNumber, formatNaira } from '@/lib/format'
import { useSponsorAnalytics, useSponsorDashboard, type SponsorDashboard as Figures } from '@/features/dashboards/api/dashboards'
import { useLiveSponsorDashboard } from '@/features/dashboards/hooks/use-live-dashboard'
import { BrowseArtists } from '@/features/sponsorships/components/browse-artists'
import { InvitesList } from '@/features/sponsorships/components/invites-list'
import { isLowBalance, runway, runwayText } from '@/features/sponsorships/lib/runway'
import { TopupDialog } from '@/features/wallet/components/topup-dialog'
import { sponsorFirstScreen } from '../first-screen'
import { DashboardSkeleton, Section, Stat } from './dashboard-parts'

// The charts library loads after the first screen.
const SpendCharts = lazy(() => import('@/features/sponsorships/components/spend-charts'))

type SponsoredArtist = Figures['artists'][number]

const artistColumns: DataColumn<SponsoredArtist>[] = [
  {
    header: 'Artist',
    width: 150,
    cell: (a) => (
      <Link className="hover:underline" to={`/profile/${a.artist_id}`}>
        {a.artist_name}
      </Link>
    ),
  },
  { header: 'Tracks', priority: 4, width: 80, className: 'text-right', cell: (a) => a.tracks },
  { header: 'Streams paid', priority: 3, width: 120, className: 'text-right tabular-nums', cell: (a) => a.streams_paid },
  { header: 'Spent', priority: 2, width: 100, className: 'text-right tabular-nums', cell: (a) => formatNaira(Number(a.spent)) },
]

/** FIRST_DAYS is the spending period the charts open on (it comes with the first screen). */
const FIRST_DAYS = 7

function Analytics({ userId }: { userId: string }) {
  const [days, setDays] = useState(FIRST_DAYS)
  const { data } = useSponsorAnalytics(userId, days)
  return (
    <Section
      title="Spending"
      action={
        <Tabs value={String(days)} onValueChange={(v) => setDays(Number(v))}>
          <TabsList>
            <TabsTrigger value="7">7 days</TabsTrigger>
            <TabsTrigger value="30">30 days</TabsTrigger>
          </TabsList>
        </Tabs>
      }
    >
      <Suspense fallback={<Skeleton className="h-64" />}>{data ? <SpendCharts data={data} /> : <Skeleton className="h-64" />}</Suspense>
    </Section>
  )
}

/** SponsorDashboard: wallet and runway, sponsored artists and tracks, analytics, invites and discovery. */
export default function SponsorDashboard() {
  const userId = useAuthStore((s) => s.user?.id)
  // A fresh load brings the spending charts with the figures, in one call.
  const { data, isLoading } = useSponsorDashboard(userId, userId ? sponsorFirstScreen(userId, FIRST_DAYS) : undefined)
  const live = useLiveSponsorDashboard(userId)
  return (
    <div data-testid="sponsor-dashboard" data-live={live}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-3xl font-bold">Sponsor Dashboard</h1>
        <div className="flex gap-2">
          <TopupDialog />
          <Button asChild variant="outline">
            <Link to="/transactions">
              <Wallet /> Transactions
            </Link>
          </Button>
        </div>
      </div>
      {isLoading && <DashboardSkeleton />}
      {data && userId && <Sections userId={userId} data={data} />}
    </div>
  )
}

/**
 * Sections are the dashboard under its heading. They render again only when
 * the figures change: a subscription going live or a refetch starting
 * re-renders the page's frame, not its lists and charts.
 */
const Sections = memo(function Sections({ userId, data }: { userId: string; data: Figures }) {
  const balance = Number(data.wallet.balance)
  const r = runway(balance, Number(data.runway.per_stream), Number(data.runway.spent_7d))
  return (
    <>
      {isLowBalance(balance, Number(data.wallet.threshold)) && (
        <div role="alert" className="mt-4 flex items-center gap-2 rounded-xl border border-amber-500/50 bg-amber-500/10 p-3 text-sm" data-testid="low-balance">
          <AlertTriangle className="size-5 text-amber-400" />
          Your wallet is under {formatNaira(Number(data.wallet.threshold))}. Top up so your sponsored streams keep paying artists.
        </div>
      )}
      <div className="mt-6 grid grid-cols-2 gap-3 lg:grid-cols-4">
        <Stat testId="wallet-balance" label="Wallet balance" value={formatNaira(balance)} hint={runwayText(r)} />
        <Stat label="Total spent" value={formatNaira(Number(data.wallet.spent))} />
        <Stat label="Streams paid" value={abbreviateNumber(Number(data.wallet.streams_paid))} />
        <Stat label="Sponsored tracks" value={String(data.tracks.length)} />
      </div>

      <Analytics userId={userId} />

      <Section title="Sponsored artists">
        {data.artists.length === 0 ? (
          <p className="text-muted-foreground">You are not sponsoring anyone yet. Invite an artist below.</p>
        ) : (
          <DataTable testId="sponsored-artists" columns={artistColumns} rows={data.artists} rowKey={(a) => a.artist_id} empty="" />
        )}
      </Section>

      <Section title="Sponsored tracks">
        {data.tracks.length === 0 ? (
          <p className="text-muted-foreground">No sponsored tracks yet.</p>
        ) : (
          <ul className="grid grid-cols-1 gap-2 md:grid-cols-2" data-testid="sponsored-tracks">
            {data.tracks.map((t) => (
              <li key={t.id} className="flex items-center justify-between gap-2 rounded-xl border border-border bg-card p-3 text-sm">
                <span className="min-w-0 truncate">
                  <span className="font-medium">{t.title}</span> <span className="text-muted-foreground">· {t.artist_name}</span>
                </span>
                <span className="shrink-0 tabular-nums text-muted-foreground">
                  {t.streams_paid} paid · {formatNaira(Number(t.spent))}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Section>

      <Section title="Invitations">
        <InvitesList
          empty="No invitations yet."
          invites={data.invites.map((i) => ({
            id: i.id,
            other: i.artist_name ?? 'Artist',
            track_title: i.track_title,
            status: i.status,
            incoming: i.initiated_by === 'artist',
            pitch: i.pitch,
            created_at: i.created_at,
          }))}
        />
      </Section>

      <Section title="Find artists">
        <BrowseArtists sponsorId={userId} />
      </Section>
    </>
  )
})
