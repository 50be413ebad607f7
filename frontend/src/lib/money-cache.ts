import type { QueryClient } from '@tanstack/react-query'

// The caches a money movement or an invite answer changes, named after the
// caches of spec section 4. Mutations call refreshMoney on success; a
// realtime subscription (ledger, invites) can call it the same way.

/** MONEY_KEYS are the query-key heads refreshMoney invalidates. */
export const MONEY_KEYS = ['artistWallet', 'sponsorWallet', 'sponsorAnalytics', 'transactions', 'tracks', 'artistTracks', 'chartTracks', 'notifications', 'ownProfile'] as const

/** refreshMoney refetches every cache a movement touches. */
export function refreshMoney(qc: QueryClient) {
  for (const key of MONEY_KEYS) void qc.invalidateQueries({ queryKey: [key] })
}
