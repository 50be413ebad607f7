// @vitest-environment jsdom
import { QueryClient } from '@tanstack/react-query'
import { toast } from 'sonner'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { FakeBackend, pgError } from '@/test/fake-backend'
import { ARTIST, FAN, SPONSOR, TRACK, clientTrack, sponsored, streamWorld, trackRow } from '../test/stream-world'
import { settleStream } from '../hooks/use-listen-rules'
import { finishPlay, nonFanMessage, startPlay, type StreamContext } from './record-stream'

type World = Parameters<typeof streamWorld>[0]
const world = (over: World = {}) => new FakeBackend(streamWorld(over))

const ctx = (over: Partial<StreamContext> = {}): StreamContext => ({ userId: FAN, role: 'fan', track: clientTrack(), seconds: 30.6, ...over })

/** played starts a play of the context's track and finishes it, as the player does at 30 s. */
async function played(b: FakeBackend, c: StreamContext = ctx()) {
  const sb = b.client()
  const started = await startPlay(sb, c.track.id)
  if (!('playId' in started)) throw new Error(`no play: ${JSON.stringify(started)}`)
  return finishPlay(sb, started.playId, c)
}

describe('startPlay', () => {
  it('opens the play with this device, in one request', async () => {
    const b = world()
    expect(await startPlay(b.client(), TRACK)).toEqual({ playId: 'play-1' })
    expect(b.sent.map((s) => s.target)).toEqual(['rpc/start_play'])
    expect(b.sent[0].body).toEqual({
      p_track_id: TRACK,
      p_device: {
        fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
        user_agent: navigator.userAgent,
        screen_resolution: expect.stringMatching(/^\d+x\d+$/),
        timezone: expect.any(String),
        language: navigator.language,
        platform: expect.any(String),
        details: expect.objectContaining({ webdriver: expect.any(Boolean), cookiesEnabled: expect.any(Boolean) }),
      },
    })
  })

  it("returns the server's refusal as the text to show, and any other failure apart", async () => {
    const refused = world({ refuse: 'Daily stream limit reached! You have 0 streams remaining today.' })
    expect(await startPlay(refused.client(), TRACK)).toEqual({ refused: 'Daily stream limit reached! You have 0 streams remaining today.' })
    const down = world({ rpc: { start_play: () => pgError(503, 'PGRST002', 'Could not query the database for the schema cache. Retrying.') } })
    expect(await startPlay(down.client(), TRACK)).toEqual({ failed: 'Could not query the database for the schema cache. Retrying.' })
  })
})

describe('finishPlay', () => {
  it("records a fan's stream in one request and says it counted", async () => {
    const b = world()
    expect(await played(b)).toEqual({ kind: 'counted' })
    expect(b.calls('rpc/finish_play').map((c) => c.body)).toEqual([{ p_play_id: 'play-1', p_duration: 31 }])
    expect(b.sent.map((s) => s.target)).toEqual(['rpc/start_play', 'rpc/finish_play'])
    expect(b.tables.streams).toEqual([expect.objectContaining({ track_id: TRACK, is_valid: true, duration: 31 })])
  })

  it('reports the payment the server made for a sponsored stream', async () => {
    const b = world({ tables: { tracks: [sponsored.trackRow] } })
    expect(await played(b, ctx({ track: sponsored.track }))).toEqual({ kind: 'sponsored', amount: 50 })
    expect(b.calls('functions/transfer-payment')).toHaveLength(0)
    // The amount is what the server paid, not the client's constant.
    const b75 = world({ tables: { tracks: [sponsored.trackRow] }, verdict: { outcome: 'paid', reason: null, amount: 75 } })
    expect(await played(b75, ctx({ track: sponsored.track }))).toEqual({ kind: 'sponsored', amount: 75 })
  })

  it.each([
    [{ outcome: 'not_eligible', reason: 'Insufficient sponsor balance' } as const, { kind: 'not-eligible', reason: 'Insufficient sponsor balance' }],
    [{ outcome: 'not_eligible', reason: 'No active sponsorship relationship found' } as const, { kind: 'not-eligible', reason: 'No active sponsorship relationship found' }],
    [{ outcome: 'payment_failed', reason: 'Payment could not be processed' } as const, { kind: 'payment-failed', error: 'Payment could not be processed' }],
    [{ outcome: 'limit_reached', reason: 'Daily stream limit reached!' } as const, { kind: 'limit-reached' }],
    [{ outcome: 'not_counted', reason: 'Duplicate stream prevented - allowance type: ip' } as const, { kind: 'rejected', reason: 'Duplicate stream prevented - allowance type: ip' }],
    [
      { outcome: 'not_counted', reason: 'Stream blocked due to critical fraud risk: Automated or headless device (trust score 10)' } as const,
      { kind: 'rejected', reason: 'Stream blocked due to critical fraud risk: Automated or headless device (trust score 10)' },
    ],
    [{ outcome: 'not_counted', reason: 'Velocity limit exceeded: 25 streams in last hour' } as const, { kind: 'rejected', reason: 'Velocity limit exceeded: 25 streams in last hour' }],
  ])("turns the server's %o into %o", async (verdict, want) => {
    const b = world({ tables: { tracks: [sponsored.trackRow] }, verdict })
    expect(await played(b, ctx({ track: sponsored.track }))).toEqual(want)
  })

  it.each([
    ['a sponsor', { userId: SPONSOR, role: 'sponsor' as const }, 'Sponsor accounts cannot generate valid streams'],
    ['an admin', { userId: 'admin-1', role: 'admin' as const }, 'Admin accounts cannot generate valid streams'],
    ['the artist, on their own track', { userId: ARTIST, role: 'artist' as const }, 'Artists cannot generate valid streams for their own tracks'],
    ['an artist, on another artist’s track', { userId: 'artist-2', role: 'artist' as const }, 'Artists cannot generate valid streams for their own tracks'],
    ['a fan who is the track’s artist', { userId: ARTIST, role: 'fan' as const }, 'Artists cannot generate valid streams for their own tracks'],
  ])('says why a stream by %s cannot count', async (_who, who, message) => {
    const b = world({ verdict: { outcome: 'not_counted', reason: 'Stream not valid (not from fan or self-streaming)' } })
    expect(await played(b, ctx(who))).toEqual({ kind: 'not-fan', message })
  })

  it('tells a suspended listener, and names any other failure as a tracking error', async () => {
    const suspended = world({ rpc: { finish_play: () => pgError(400, 'P0001', 'User is suspended and cannot generate valid streams') } })
    expect(await played(suspended)).toEqual({ kind: 'suspended' })
    const gone = world({ rpc: { finish_play: () => pgError(404, 'P0002', 'Play not found') } })
    expect(await played(gone)).toEqual({ kind: 'error', message: 'Stream tracking error: Play not found' })
  })

  it('names a visitor account for a listener without a role', () => {
    expect(nonFanMessage(null, false)).toBe('Visitor accounts cannot generate valid streams')
  })
})

// The caches of the app, under the keys its queries use; only the first group
// names a cache the spec refreshes after a counted stream.
const REFRESHED = [
  ['tracks', { sponsored: true }],
  ['chartTracks', 'all'],
  ['artistTracks', ARTIST, 'fan'],
  ['artistProfile', ARTIST],
  ['artistWallet', ARTIST, 'statement', '30d', null, null],
  ['sponsorWallet', SPONSOR, 'dashboard'],
  ['sponsorProfile', SPONSOR],
  ['sponsorAnalytics', SPONSOR, 7],
  ['transactions', FAN, {}, 0, 20],
  ['track', TRACK],
  ['dailyStreamLimit', FAN, 'dashboard'],
]
const KEPT = [
  ['ownProfile', FAN],
  ['notifications', FAN],
  ['topArtists'],
  ['playlists', FAN],
]

function seededCache() {
  const qc = new QueryClient()
  for (const key of [...REFRESHED, ...KEPT]) qc.setQueryData(key, { cached: true })
  return qc
}

const invalidated = (qc: QueryClient) =>
  qc
    .getQueryCache()
    .getAll()
    .filter((q) => q.state.isInvalidated)
    .map((q) => q.queryKey)

/** toastsSince lists the toasts raised after the history had `from` entries. */
const toastsSince = (from: number) =>
  toast
    .getHistory()
    .slice(from)
    .map((t) => ('type' in t ? { type: t.type, title: t.title, ...(t.description ? { description: t.description } : {}) } : t))

/** settle runs what the player does for one play: start it, then settle it at 30 s. */
async function settle(b: FakeBackend, c: StreamContext, qc = seededCache(), stop = vi.fn()) {
  const sb = b.client()
  await settleStream(sb, qc, c, startPlay(sb, c.track.id), stop)
  return { qc, stop }
}

describe('settleStream', () => {
  afterEach(() => vi.useRealTimers())

  it("makes two requests for a sponsored stream, runs the toasts in the spec's order and refreshes exactly the caches it lists", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const b = world({ tables: { tracks: [sponsored.trackRow] } })
    const from = toast.getHistory().length
    const { qc, stop } = await settle(b, ctx({ track: sponsored.track }))
    // Everything from the play to its outcome: start_play and finish_play.
    expect(b.sent.map((s) => `${s.method} ${s.target}`)).toEqual(['POST rpc/start_play', 'POST rpc/finish_play'])
    expect(invalidated(qc)).toEqual(REFRESHED)
    await vi.advanceTimersByTimeAsync(3500)
    expect(toastsSince(from)).toEqual([
      { type: 'success', title: 'Sponsored stream counted!' },
      { type: 'success', title: '₦50 credited to artist from sponsor!' },
      { type: 'info', title: "₦50 was automatically transferred from the sponsor to the artist's wallet." },
    ])
    expect(stop).not.toHaveBeenCalled()
    expect(b.tables.tracks[0].streams).toBe(8)
  })

  it('announces a failed payment with its reason and still refreshes the counts', async () => {
    const b = world({ tables: { tracks: [sponsored.trackRow] }, verdict: { outcome: 'payment_failed', reason: 'Payment could not be processed' } })
    const from = toast.getHistory().length
    const { qc } = await settle(b, ctx({ track: sponsored.track }))
    expect(toastsSince(from)).toEqual([{ type: 'error', title: 'Stream counted but sponsor payment failed', description: 'Payment could not be processed' }])
    expect(invalidated(qc)).toEqual(REFRESHED)
  })

  it('announces a counted stream that is not eligible for payment, with the reason', async () => {
    const b = world({ tables: { tracks: [sponsored.trackRow] }, verdict: { outcome: 'not_eligible', reason: 'Insufficient sponsor balance' } })
    const from = toast.getHistory().length
    const { qc } = await settle(b, ctx({ track: sponsored.track }))
    expect(toastsSince(from)).toEqual([{ type: 'info', title: 'Stream not eligible for sponsored payment: Insufficient sponsor balance' }])
    expect(invalidated(qc)).toEqual(REFRESHED)
  })

  it('announces a stream that was recorded but not counted, and refreshes nothing', async () => {
    const b = world({ verdict: { outcome: 'not_counted', reason: 'Duplicate stream prevented - allowance type: ip' } })
    const from = toast.getHistory().length
    const { qc } = await settle(b, ctx())
    expect(toastsSince(from)).toEqual([{ type: 'info', title: 'Stream recorded: Duplicate stream prevented - allowance type: ip' }])
    expect(invalidated(qc)).toEqual([])
  })

  it('stops with the short message when the allowance ran out during the play', async () => {
    const b = world({ verdict: { outcome: 'limit_reached', reason: 'Daily stream limit reached!' } })
    const from = toast.getHistory().length
    const { qc, stop } = await settle(b, ctx())
    expect(stop.mock.calls).toEqual([['Daily stream limit reached!']])
    expect(toastsSince(from)).toEqual([])
    expect(invalidated(qc)).toEqual([])
  })

  it('records nothing when the play was refused at the start (the limit was announced then)', async () => {
    const b = world({ refuse: 'Daily stream limit reached! You have 0 streams remaining today.' })
    const from = toast.getHistory().length
    const { stop } = await settle(b, ctx())
    expect(b.sent.map((s) => s.target)).toEqual(['rpc/start_play'])
    expect(stop).not.toHaveBeenCalled()
    expect(toastsSince(from)).toEqual([])
  })

  it('tells a suspended listener whose play was refused, and records nothing', async () => {
    const b = world({ refuse: 'User is suspended and cannot generate valid streams' })
    const from = toast.getHistory().length
    await settle(b, ctx())
    expect(b.calls('rpc/finish_play')).toHaveLength(0)
    expect(toastsSince(from)).toEqual([{ type: 'error', title: 'User is suspended and cannot generate valid streams' }])
  })

  it("says a sponsor's stream cannot count", async () => {
    const b = world({ verdict: { outcome: 'not_counted', reason: 'Stream not valid (not from fan or self-streaming)' } })
    const from = toast.getHistory().length
    await settle(b, ctx({ userId: SPONSOR, role: 'sponsor' }))
    expect(toastsSince(from)).toEqual([{ type: 'info', title: 'Sponsor accounts cannot generate valid streams' }])
  })

  it('announces an unsponsored stream as counted', async () => {
    const b = world({ tables: { tracks: [trackRow()] } })
    const from = toast.getHistory().length
    await settle(b, ctx())
    expect(toastsSince(from)).toEqual([{ type: 'success', title: 'Stream counted!' }])
  })
})
