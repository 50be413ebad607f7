import type { QueryClient } from '@tanstack/react-query'
import { toTrack } from '@/lib/tracks'
import type { ProfileBits, Track, TrackRow } from '@/types/api'
import { rpc, sponsorAnalyticsQueryOptions, type ArtistDashboard, type FanDashboard, type FirstScreen, type SponsorAnalytics, type SponsorDashboard } from '@/features/dashboards/api/dashboards'
import { playlistsQueryKey, type Playlist } from '@/features/listening/api/playlists'
import { kycQueryKey, type KycData } from '@/features/studio/api/kyc'
import { favoritesQueryKey } from '@/features/tracks/api/get-favorites'
import { statementQueryKey, statementRows } from '@/features/wallet/api/wallet'
import { DEFAULT_STATEMENT_PERIOD, statementRange, type StatementRow } from '@/features/wallet/lib/statement'

// Each dashboard's first screen in one request (rpc get_<role>_first_screen,
// sql/app/0018_first_screen.sql): the dashboard's own figures plus the
// sections drawn beside them. The answer seeds those sections' caches under
// the keys their own hooks use, so they render without asking; a later
// refetch of any of them (a live change, a mutation, another period) goes
// through its own call as before. Sections further down load when they
// come into view.

/** artistFirstScreen: the dashboard, the statement it opens on and the KYC card. */
export const artistFirstScreen =
  (userId: string): FirstScreen<ArtistDashboard> =>
  async (qc: QueryClient) => {
    const period = DEFAULT_STATEMENT_PERIOD
    const { from, to } = statementRange(period, new Date())
    const r = await rpc<{ dashboard: ArtistDashboard; statement: StatementRow[]; kyc: KycData }>('get_artist_first_screen', { p_period: period, p_from: from, p_to: to })
    qc.setQueryData(statementQueryKey(userId, period, from, to), statementRows(r.statement))
    qc.setQueryData<KycData>(kycQueryKey(userId), { profile: r.kyc.profile ?? null, latest: r.kyc.latest ?? null })
    return r.dashboard
  }

/** sponsorFirstScreen: the dashboard and the spending charts of the period it opens on. */
export const sponsorFirstScreen =
  (userId: string, days: number): FirstScreen<SponsorDashboard> =>
  async (qc: QueryClient) => {
    const r = await rpc<{ dashboard: SponsorDashboard; analytics: SponsorAnalytics }>('get_sponsor_first_screen', { p_days: days })
    qc.setQueryData(sponsorAnalyticsQueryOptions(userId, days).queryKey, r.analytics)
    return r.dashboard
  }

/** FanFirstScreen is get_fan_first_screen's answer: tracks are named by id, their rows and people come once. */
export interface FanFirstScreen {
  dashboard: FanDashboard
  playlists: { id: string; name: string; track_ids: string[] }[]
  favorites: string[]
  tracks: TrackRow[]
  people: ProfileBits[]
}

/** fanSections turns the fan's first screen into the playlists' and the likes' caches, tracks in order. */
export function fanSections(r: Omit<FanFirstScreen, 'dashboard'>): { playlists: Playlist[]; favorites: Track[] } {
  const people = new Map(r.people.map((p) => [p.id, p]))
  const tracks = new Map(r.tracks.map((t) => [t.id, toTrack(t, people)]))
  // A track the fan may no longer see (hidden, removed) is left out, as the separate reads leave it out.
  const pick = (ids: string[]) => ids.flatMap((id) => tracks.get(id) ?? [])
  return { playlists: r.playlists.map((l) => ({ id: l.id, name: l.name, tracks: pick(l.track_ids) })), favorites: pick(r.favorites) }
}

/** fanFirstScreen: the dashboard, the playlists and the liked tracks the playlists offer. */
export const fanFirstScreen =
  (userId: string): FirstScreen<FanDashboard> =>
  async (qc: QueryClient) => {
    const { dashboard, ...rest } = await rpc<FanFirstScreen>('get_fan_first_screen')
    const { playlists, favorites } = fanSections(rest)
    qc.setQueryData(playlistsQueryKey(userId), playlists)
    qc.setQueryData(favoritesQueryKey(userId), favorites)
    return dashboard
  }
