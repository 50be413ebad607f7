import { queryOptions, useQuery, type QueryClient, type QueryKey } from '@tanstack/react-query'
import type { Database } from '@/lib/database.types'
import { supabase } from '@/lib/supabase'

// The dashboards' first screens, one RPC each (sql/app/0008_dashboard_figures.sql).
// Query keys start with the spec's cache names (section 4): the sponsored
// stream's refresh of artistWallet, sponsorWallet and dailyStreamLimit
// refreshes these too, and so does lib/money-cache's refreshMoney, which a
// realtime subscription can call on a ledger or invite change.

/** ArtistTrack is a track row with its figures. */
export interface ArtistTrack {
  id: string
  title: string
  genre: string | null
  cover_url: string | null
  audio_url: string | null
  duration: number | null
  release_date: string | null
  description: string | null
  is_explicit: boolean
  is_sponsored: boolean
  sponsor_id: string | null
  sponsor_name: string | null
  created_at: string
  streams_valid: number
  streams_all: number
  earnings: number
}

/** Invite is a sponsorship invite as either party sees it. */
export interface Invite {
  id: string
  sponsor_id?: string
  sponsor_name?: string
  artist_id?: string
  artist_name?: string
  track_id: string | null
  track_title: string | null
  status: 'pending' | 'accepted' | 'rejected'
  initiated_by: 'sponsor' | 'artist'
  pitch: string | null
  created_at: string
  responded_at: string | null
}

/** Cashout is a cash-out request. */
export interface Cashout {
  id: string
  amount: number
  status: 'pending' | 'completed' | 'rejected'
  bank_name: string | null
  account_number: string | null
  account_name: string | null
  reason: string | null
  created_at: string
  processed_at: string | null
}

/** ArtistDashboard is get_artist_dashboard's answer. */
export interface ArtistDashboard {
  wallet: { balance: number; held: number; paid_out: number; earned: number }
  min_cashout: number
  tracks: ArtistTrack[]
  invites: Invite[]
  cashouts: Cashout[]
  verification: { active: boolean; expires_at: string | null; renew_from: string | null; can_buy: boolean; fee: number }
}

/** SponsorDashboard is get_sponsor_dashboard's answer. */
export interface SponsorDashboard {
  wallet: { balance: number; low: boolean; threshold: number; spent: number; streams_paid: number }
  runway: { per_stream: number; streams_left: number; spent_7d: number; days_left: number | null }
  tracks: { id: string; title: string; artist_id: string; artist_name: string; cover_url: string | null; streams: number; streams_paid: number; spent: number }[]
  artists: { artist_id: string; artist_name: string; tracks: number; streams_paid: number; spent: number }[]
  invites: Invite[]
}

/** SponsorAnalytics is get_sponsor_analytics's answer. */
export interface SponsorAnalytics {
  days: number
  per_day: { day: string; amount: number; streams: number }[]
  per_artist: { artist_id: string; name: string; amount: number; streams: number }[]
  per_track: { track_id: string; title: string; amount: number; streams: number }[]
}

/** FanDashboard is get_fan_dashboard's answer. */
export interface FanDashboard {
  limit: { streams_remaining: number; daily_limit: number; resets_at: string }
  week: { valid: number; all: number }
  top_artists: { artist_id: string; name: string; streams: number }[]
  favorites: number
  history: HistoryItem[]
}

/** HistoryItem is one stream with the server's verdict. */
export interface HistoryItem {
  id: string
  track_id: string
  title: string
  artist_name: string
  created_at: string
  duration: number | null
  /** listened is the whole listen in seconds (at least duration; see features/listening/lib/history.ts). */
  listened: number | null
  cover_url: string | null
  is_valid: boolean
  invalid_reason: string | null
}

type Fn = keyof Database['public']['Functions']

/** rpc calls a database function and returns its answer as T, throwing its error. */
export async function rpc<T, F extends Fn = Fn>(fn: F, args?: Database['public']['Functions'][F]['Args']): Promise<T> {
  const { data, error } = await supabase().rpc(fn, args)
  if (error) throw error
  return data as T
}

/**
 * FirstScreen loads a dashboard's whole first screen in one call, seeds the
 * caches of the sections it carries (app/first-screen.ts) and returns the
 * dashboard's own part.
 */
export type FirstScreen<T> = (client: QueryClient) => Promise<T>

// A dashboard with nothing cached yet (a fresh load, or one evicted since)
// loads its first screen; a refetch (a live change, a mutation) asks for
// the dashboard alone.
function coldOrWarm<T>(ctx: { client: QueryClient; queryKey: QueryKey }, first: FirstScreen<T> | undefined, warm: () => Promise<T>): Promise<T> {
  return first && ctx.client.getQueryData(ctx.queryKey) === undefined ? first(ctx.client) : warm()
}

export const artistDashboardQueryOptions = (userId: string | undefined, first?: FirstScreen<ArtistDashboard>) =>
  queryOptions({
    queryKey: ['artistWallet', userId, 'dashboard'],
    enabled: !!userId,
    queryFn: (ctx) => coldOrWarm(ctx, first, () => rpc<ArtistDashboard>('get_artist_dashboard')),
  })
export const sponsorDashboardQueryOptions = (userId: string | undefined, first?: FirstScreen<SponsorDashboard>) =>
  queryOptions({
    queryKey: ['sponsorWallet', userId, 'dashboard'],
    enabled: !!userId,
    queryFn: (ctx) => coldOrWarm(ctx, first, () => rpc<SponsorDashboard>('get_sponsor_dashboard')),
  })
export const sponsorAnalyticsQueryOptions = (userId: string | undefined, days: number) =>
  queryOptions({ queryKey: ['sponsorAnalytics', userId, days], enabled: !!userId, queryFn: () => rpc<SponsorAnalytics>('get_sponsor_analytics', { p_days: days }) })
export const fanDashboardQueryOptions = (userId: string | undefined, first?: FirstScreen<FanDashboard>) =>
  queryOptions({
    queryKey: ['dailyStreamLimit', userId, 'dashboard'],
    enabled: !!userId,
    queryFn: (ctx) => coldOrWarm(ctx, first, () => rpc<FanDashboard>('get_fan_dashboard')),
  })

export const useArtistDashboard = (userId: string | undefined, first?: FirstScreen<ArtistDashboard>) => useQuery(artistDashboardQueryOptions(userId, first))
export const useSponsorDashboard = (userId: string | undefined, first?: FirstScreen<SponsorDashboard>) => useQuery(sponsorDashboardQueryOptions(userId, first))
export const useSponsorAnalytics = (userId: string | undefined, days: number) => useQuery(sponsorAnalyticsQueryOptions(userId, days))
export const useFanDashboard = (userId: string | undefined, first?: FirstScreen<FanDashboard>) => useQuery(fanDashboardQueryOptions(userId, first))
