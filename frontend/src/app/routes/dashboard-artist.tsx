import { memo } from 'react'
import { Skeleton } from '@/components/ui/skeleton'
import { WhenSeen } from '@/components/when-seen'
import { useAuthStore } from '@/lib/auth'
import { formatNaira } from '@/lib/format'
import { useArtistDashboard, type ArtistDashboard as Figures } from '@/features/dashboards/api/dashboards'
import { useLiveArtistDashboard } from '@/features/dashboards/hooks/use-live-dashboard'
import { InvitesList } from '@/features/sponsorships/components/invites-list'
import { MyTracks } from '@/features/studio/components/my-tracks'
import { UploadTrackDialog } from '@/features/studio/components/upload-track-dialog'
import { KycCard } from '@/features/studio/components/kyc-card'
import { VerificationCard } from '@/features/studio/components/verification-card'
import { CashoutDialog } from '@/features/wallet/components/cashout-dialog'
import { Ledger } from '@/features/wallet/components/ledger'
import { Statement } from '@/features/wallet/components/statement'
import { artistFirstScreen } from '../first-screen'
import { DashboardSkeleton, Section, Stat } from './dashboard-parts'

const cashoutState = { pending: 'Pending', completed: 'Completed', rejected: 'Rejected' }

/** ArtistDashboard: uploads, tracks, wallet, cash-outs, invites and verification; first screen from one call, the statement and the ledger when they come into view. */
export default function ArtistDashboard() {
  const userId = useAuthStore((s) => s.user?.id)
  const isArtist = useAuthStore((s) => s.role === 'artist')
  // A fresh load brings the statement and the KYC card with the figures, in one call.
  const { data, isLoading, isError, refetch } = useArtistDashboard(userId, userId ? artistFirstScreen(userId) : undefined)
  const live = useLiveArtistDashboard(userId)
  return (
    <div data-testid="artist-dashboard" data-live={live}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-3xl font-bold">Artist Dashboard</h1>
        {userId && <UploadTrackDialog userId={userId} />}
      </div>
      {isLoading && <DashboardSkeleton />}
      {isError && (
        <p className="mt-6 text-muted-foreground">
          Could not load your dashboard.{' '}
          <button type="button" className="text-primary underline" onClick={() => void refetch()}>
            Try again
          </button>
        </p>
      )}
      {data && userId && <Sections userId={userId} isArtist={isArtist} data={data} />}
    </div>
  )
}

/**
 * Sections are the dashboard under its heading. They render again only when
 * the figures change: a subscription going live or a refetch starting
 * re-renders the page's frame, not its tables. The statement and the
 * ledger, far below the first screen, are drawn when they come near it.
 */
const Sections = memo(function Sections({ userId, isArtist, data }: { userId: string; isArtist: boolean; data: Figures }) {
  return (
    <>
      <div className="mt-6 grid grid-cols-2 gap-3 lg:grid-cols-4">
        <Stat testId="wallet-balance" label="Available balance" value={formatNaira(Number(data.wallet.balance))} />
        <Stat testId="wallet-held" label="Held for cash-out" value={formatNaira(Number(data.wallet.held))} />
        <Stat label="Total earned" value={formatNaira(Number(data.wallet.earned))} />
        <Stat label="Paid out" value={formatNaira(Number(data.wallet.paid_out))} />
      </div>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <CashoutDialog available={Number(data.wallet.balance)} minimum={Number(data.min_cashout)} />
        <p className="text-sm text-muted-foreground">Cash out from {formatNaira(Number(data.min_cashout))}.</p>
      </div>

      <Section title="Your tracks">
        <MyTracks userId={userId} tracks={data.tracks} />
      </Section>

      <Section title="Sponsorship invitations">
        <InvitesList
          empty="No invitations yet."
          invites={data.invites.map((i) => ({
            id: i.id,
            other: i.sponsor_name ?? 'Sponsor',
            track_title: i.track_title,
            status: i.status,
            incoming: i.initiated_by === 'sponsor',
            pitch: i.pitch,
            created_at: i.created_at,
          }))}
        />
      </Section>

      <div className="mt-8 grid grid-cols-1 gap-6 lg:grid-cols-3">
        <div className="grid grid-cols-1 content-start gap-3 lg:col-span-2">
          <h2 className="text-xl font-bold">Earnings statement</h2>
          <WhenSeen placeholder={<Skeleton className="h-64" />}>
            <Statement userId={userId} />
          </WhenSeen>
        </div>
        <div className="grid grid-cols-1 content-start gap-3">
          <h2 className="text-xl font-bold">Verification</h2>
          <VerificationCard v={data.verification} />
          {isArtist && <KycCard userId={userId} />}
          <h2 className="mt-3 text-xl font-bold">Cash-outs</h2>
          {data.cashouts.length === 0 ? (
            <p className="text-sm text-muted-foreground">No cash-outs yet.</p>
          ) : (
            <ul className="grid grid-cols-1 gap-2" data-testid="cashouts">
              {data.cashouts.map((c) => (
                <li key={c.id} className="flex items-center justify-between rounded-lg border border-border p-2 text-sm">
                  <span>
                    {formatNaira(Number(c.amount))} · {c.bank_name} ····{c.account_number?.slice(-4)}
                  </span>
                  <span className={c.status === 'completed' ? 'text-green-400' : c.status === 'rejected' ? 'text-red-400' : 'text-amber-300'}>{cashoutState[c.status]}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>

      <Section title="Wallet activity">
        <WhenSeen placeholder={<Skeleton className="h-64" />}>
          <Ledger userId={userId} />
        </WhenSeen>
      </Section>
    </>
  )
})
