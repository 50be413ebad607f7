import { useLiveTable } from '@/hooks/use-live-table'

// The open dashboards follow their owner's rows: the wallet (every ledger
// movement, a sponsored stream's ₦50 included, updates the wallets it
// touches), invites (the other party answering) and cash-outs (an admin
// deciding). Each refetches the caches the dashboard reads, by the spec's
// cache names (features/dashboards/api/dashboards.ts).

const own = (column: string, userId: string | undefined) => (userId ? `${column}=eq.${userId}` : undefined)

/** useLiveArtistDashboard keeps an open artist dashboard current; true once every subscription is live. */
export function useLiveArtistDashboard(userId: string | undefined): boolean {
  const wallet = useLiveTable('wallets', own('user_id', userId), [['artistWallet', userId], ['transactions', userId]])
  const invites = useLiveTable('sponsor_artist_invites', own('artist_id', userId), [['artistWallet', userId]])
  const cashouts = useLiveTable('cashout_requests', own('user_id', userId), [['artistWallet', userId]])
  return wallet && invites && cashouts
}

/** useLiveSponsorDashboard keeps an open sponsor dashboard current; true once every subscription is live. */
export function useLiveSponsorDashboard(userId: string | undefined): boolean {
  const wallet = useLiveTable('wallets', own('user_id', userId), [['sponsorWallet', userId], ['sponsorAnalytics', userId], ['transactions', userId]])
  const invites = useLiveTable('sponsor_artist_invites', own('sponsor_id', userId), [['sponsorWallet', userId]])
  return wallet && invites
}
