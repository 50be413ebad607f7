// @vitest-environment jsdom
import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { WHEN_SEEN_AHEAD } from '@/components/when-seen'
import { installFakeApi, renderApp, signIn } from '@/test/app'
import { installIntersection } from '@/test/intersection'
import ArtistDashboard from './dashboard-artist'

// The artist's dashboard draws its first screen from the first-screen call;
// the earnings statement and the wallet's ledger, far below it, are drawn
// only when they come near the screen (the statement from that same answer,
// without asking again).

const ARTIST = '00000000-0000-4000-8000-00000000a001'

const firstScreen = {
  dashboard: {
    wallet: { balance: 1500, held: 0, paid_out: 0, earned: 1500 },
    min_cashout: 1000,
    tracks: [
      {
        id: 't-1', title: 'Lagos Nights', genre: 'Afrobeats', cover_url: null, audio_url: null, duration: 200, release_date: null, description: null,
        is_explicit: false, is_sponsored: false, sponsor_id: null, sponsor_name: null, created_at: '2026-01-01T00:00:00Z', streams_valid: 30, streams_all: 31, earnings: 1500,
      },
    ],
    invites: [],
    cashouts: [],
    verification: { active: false, expires_at: null, renew_from: null, can_buy: true, fee: 5000 },
  },
  statement: [{ period_start: '2026-01-02', streams: '30', amount: '1500' }],
  kyc: { profile: { kyc_status: 'none', kyc_expiry_date: null }, latest: null },
}

function world() {
  signIn({ id: ARTIST })
  const io = installIntersection()
  const { backend } = installFakeApi({
    tables: { notifications: [] },
    rpc: {
      get_app_bootstrap: () => ({
        settings: { coming_soon: false, countdown_target: null },
        user: { id: ARTIST, role: 'artist', profile: null, role_profile: null, suspended: false, suspended_reason: null, unread_notifications: 0, session_recorded: true },
      }),
      get_artist_first_screen: () => firstScreen,
      get_wallet_history: () => ({
        count: 1,
        rows: [{ id: 'x-1', reference: 'stream-1', kind: 'sponsored_stream', amount: 50, from_wallet: 's-1', to_wallet: ARTIST, from_balance_after: 950, to_balance_after: 1500, created_at: '2026-01-02T10:00:00Z', track_id: 't-1' }],
      }),
    },
  })
  renderApp([{ path: '/', element: <ArtistDashboard /> }], '/')
  return { io, backend }
}

/** placeOf is the element a section's heading is followed by: where the section is drawn. */
const placeOf = (heading: string) => {
  const h = screen.getByRole('heading', { name: heading })
  return (h.tagName === 'H2' && h.nextElementSibling ? h.nextElementSibling : h.parentElement!.nextElementSibling) as HTMLElement
}

describe("the artist's dashboard", () => {
  it('draws the statement and the ledger only when they come near the screen', async () => {
    const { io, backend } = world()
    await screen.findByText('Lagos Nights')
    expect(within(screen.getByTestId('wallet-balance')).getByText('₦1,500')).toBeTruthy()

    // Below the first screen: placeholders, watched a little ahead of the screen's edge.
    const statement = placeOf('Earnings statement')
    const ledger = placeOf('Wallet activity')
    expect(screen.queryByTestId('statement')).toBeNull()
    expect(screen.queryByTestId('ledger')).toBeNull()
    expect(io.watches.find((w) => w.el === statement)?.rootMargin).toBe(WHEN_SEEN_AHEAD)
    expect(io.watching(ledger)).toBe(true)

    // The statement comes from the first screen's answer: drawn, not asked for.
    io.show(statement)
    expect(within(await screen.findByTestId('statement')).getByTestId('statement-total').textContent).toBe('₦1,500')
    expect(backend.calls('rpc/get_earnings_statement')).toHaveLength(0)
    expect(io.watching(statement)).toBe(false)
    expect(screen.queryByTestId('ledger')).toBeNull()

    // The ledger is drawn, then reads its page once it is in view itself.
    io.show(ledger)
    const table = await screen.findByTestId('ledger')
    expect(backend.calls('rpc/get_wallet_history')).toHaveLength(0)
    io.show(table.parentElement!)
    await within(table).findByText('stream-1')
    expect(backend.calls('rpc/get_wallet_history')).toHaveLength(1)
    expect(backend.calls('rpc/get_artist_first_screen')).toHaveLength(1)
  })

  it('draws every section at once where nothing tells what is in view', async () => {
    signIn({ id: ARTIST })
    installFakeApi({
      tables: { notifications: [] },
      rpc: {
        get_app_bootstrap: () => ({ settings: { coming_soon: false, countdown_target: null }, user: { id: ARTIST, role: 'artist', profile: null, role_profile: null, suspended: false, suspended_reason: null, unread_notifications: 0, session_recorded: true } }),
        get_artist_first_screen: () => firstScreen,
        get_wallet_history: () => ({ count: 0, rows: [] }),
      },
    })
    renderApp([{ path: '/', element: <ArtistDashboard /> }], '/')
    await screen.findByTestId('statement')
    await screen.findByText('No transactions yet')
  })
})
