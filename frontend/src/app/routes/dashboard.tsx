import { Link, useLocation } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { Heart, ListMusic, Wallet } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { useOwnProfile } from '@/hooks/use-own-profile'
import { useAuthStore } from '@/lib/auth'
import { abbreviateNumber, formatNaira } from '@/lib/format'
import { supabase } from '@/lib/supabase'
import { getTracks } from '@/features/tracks/api/get-tracks'
import { TrackCard } from '@/features/tracks/components/track-card'

const titles = { artist: 'Artist Dashboard', fan: 'Fan Dashboard', sponsor: 'Sponsor Dashboard', admin: 'Admin Dashboard' } as const

function Stat({ label, value, testId }: { label: string; value: string; testId?: string }) {
  return (
    <div className="rounded-xl border border-border bg-card p-4" data-testid={testId}>
      <p className="text-sm text-muted-foreground">{label}</p>
      <p className="mt-1 text-2xl font-bold">{value}</p>
    </div>
  )
}

/** DashboardPage shows a role's heading and the figures already available. */
export default function DashboardPage() {
  const { pathname } = useLocation()
  const which = (pathname.match(/(artist|fan|sponsor|admin)/)?.[1] ?? 'fan') as keyof typeof titles
  const user = useAuthStore((s) => s.user)
  const { data: profile } = useOwnProfile()
  const walletKey = which === 'sponsor' ? 'sponsorWallet' : 'artistWallet'
  const wallet = useQuery({
    queryKey: [walletKey, user?.id],
    enabled: !!user && (which === 'artist' || which === 'sponsor'),
    queryFn: async () => {
      const { data, error } = await supabase().from('wallets').select('balance').eq('user_id', user!.id).maybeSingle()
      if (error) throw error
      return Number(data?.balance ?? 0)
    },
  })
  const limit = useQuery({
    queryKey: ['dailyStreamLimit', user?.id],
    enabled: !!user && which === 'fan',
    queryFn: async () => {
      const { data, error } = await supabase().rpc('get_or_create_daily_stream_limit', { p_user_id: user!.id })
      if (error) return 0
      return Number((Array.isArray(data) ? data[0] : data)?.streams_remaining ?? 0)
    },
  })
  const tracks = useQuery({
    queryKey: ['artistTracks', user?.id, which],
    enabled: !!user && (which === 'artist' || which === 'sponsor'),
    queryFn: () => getTracks(which === 'artist' ? { artistId: user!.id } : { sponsorId: user!.id }),
  })
  const totalStreams = (tracks.data ?? []).reduce((s, t) => s + t.streams, 0)
  return (
    <div>
      <h1 className="text-3xl font-bold">{titles[which]}</h1>
      <p className="text-muted-foreground">Welcome, {profile?.display_name || user?.email}</p>
      <div className="mt-6 grid grid-cols-2 gap-3 md:grid-cols-4">
        {(which === 'artist' || which === 'sponsor') && (
          <Stat testId="wallet-balance" label={which === 'artist' ? 'Wallet balance' : 'Sponsor wallet'} value={wallet.isLoading ? '—' : formatNaira(wallet.data ?? 0)} />
        )}
        {which === 'fan' && <Stat testId="streams-remaining" label="Streams left today" value={limit.isLoading ? '—' : String(limit.data ?? 0)} />}
        {(which === 'artist' || which === 'sponsor') && <Stat label={which === 'artist' ? 'Tracks' : 'Sponsored tracks'} value={String(tracks.data?.length ?? 0)} />}
        {(which === 'artist' || which === 'sponsor') && <Stat label="Streams" value={abbreviateNumber(totalStreams)} />}
      </div>
      {which === 'fan' && (
        <div className="mt-6 flex flex-wrap gap-2">
          <Button asChild variant="outline">
            <Link to="/favorites">
              <Heart /> Favorites
            </Link>
          </Button>
          <Button asChild variant="outline">
            <Link to="/playlist">
              <ListMusic /> Playlist
            </Link>
          </Button>
        </div>
      )}
      {which === 'sponsor' && (
        <div className="mt-6">
          <Button asChild variant="outline">
            <Link to="/transactions">
              <Wallet /> Transactions
            </Link>
          </Button>
        </div>
      )}
      {(tracks.data ?? []).length > 0 && (
        <section className="mt-8">
          <h2 className="mb-4 text-xl font-bold">{which === 'artist' ? 'Your tracks' : 'Tracks you sponsor'}</h2>
          <div className="grid grid-cols-2 gap-4 md:grid-cols-4 lg:grid-cols-6">
            {tracks.data!.map((t) => (
              <TrackCard key={t.id} track={t} />
            ))}
          </div>
        </section>
      )}
    </div>
  )
}
