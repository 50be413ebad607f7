// @vitest-environment jsdom
import { QueryClient } from '@tanstack/react-query'
import { toast } from 'sonner'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Answer, FakeBackend, pgError, type BackendSetup } from '@/test/fake-backend'
import { ARTIST, FAN, HOUR, IP, SPONSOR, TRACK, clientTrack, sponsored, streamWorld, trackRow, validStream } from '../test/stream-world'
import { settleStream } from '../hooks/use-listen-rules'
import { nonFanMessage, recordStream, type StreamContext } from './record-stream'

const world = (over: BackendSetup = {}) => new FakeBackend(streamWorld(over))

const play = (over: Partial<StreamContext> = {}): StreamContext => ({ userId: FAN, role: 'fan', track: clientTrack(), seconds: 30.6, sessionId: 'device_1_abc', ...over })

describe('recordStream', () => {
  it("counts a fan's stream: one valid row, both counters raised, the play kept for duplicate checks", async () => {
    const b = world()
    expect(await recordStream(b.client(), play())).toEqual({ kind: 'counted' })
    expect(b.tables.streams).toEqual([expect.objectContaining({ track_id: TRACK, user_id: FAN, duration: 31, is_valid: true, ip_address: IP })])
    expect(b.calls('rpc/consume_stream').map((c) => c.body)).toEqual([{ p_user_id: FAN }])
    expect(b.calls('rpc/increment_track_streams').map((c) => c.body)).toEqual([{ p_track_id: TRACK }])
    expect(b.calls('rpc/increment_artist_streams').map((c) => c.body)).toEqual([{ p_artist_id: ARTIST }])
    await vi.waitFor(() => expect(b.calls('rpc/record_stream_for_duplicate_prevention')).toHaveLength(1), { timeout: 5000 })
    expect(b.calls('rpc/record_stream_for_duplicate_prevention')[0].body).toMatchObject({ p_user_id: FAN, p_track_id: TRACK, p_ip_address: IP, p_session_id: 'device_1_abc', p_stream_duration: 31 })
    expect(b.calls('functions/transfer-payment')).toHaveLength(0)
  })

  it("raises the track's count directly when the increment procedure fails", async () => {
    const b = world({ rpc: { increment_track_streams: () => pgError(500, 'XX000', 'boom') } })
    expect(await recordStream(b.client(), play())).toEqual({ kind: 'counted' })
    expect(b.calls('tracks', 'PATCH').map((c) => [c.query.get('id'), c.body])).toEqual([[`eq.${TRACK}`, { streams: 8 }]])
    expect(b.tables.tracks[0].streams).toBe(8)
  })

  it('pays a sponsored stream: ₦50 from the sponsor to the artist under a fresh stream- reference', async () => {
    const b = world({ tables: { tracks: [sponsored.trackRow] } })
    expect(await recordStream(b.client(), play({ track: sponsored.track }))).toEqual({ kind: 'sponsored', amount: 50 })
    const [transfer] = b.calls('functions/transfer-payment')
    expect(transfer.body).toEqual({ artist_id: ARTIST, sponsor_id: SPONSOR, amount: 50, reference: expect.stringMatching(/^stream-[0-9a-f-]{36}$/) })
    expect(await recordStream(b.client(), play({ track: sponsored.track }))).toEqual({ kind: 'sponsored', amount: 50 })
    expect(b.calls('functions/transfer-payment')[1].body).not.toEqual(transfer.body)
  })

  it('records nothing for a suspended user', async () => {
    const b = world({ rpc: { is_user_suspended: () => true } })
    expect(await recordStream(b.client(), play())).toEqual({ kind: 'suspended' })
    expect(b.sent.map((s) => s.target)).toEqual(['rpc/is_user_suspended'])
  })

  it('stops with the spec text when the suspension check fails', async () => {
    const b = world({ rpc: { is_user_suspended: () => pgError(503, 'PGRST002', 'Could not query the database for the schema cache. Retrying.') } })
    expect(await recordStream(b.client(), play())).toEqual({ kind: 'error', message: 'Failed to verify user status' })
    expect(b.tables.streams).toEqual([])
  })

  it.each([
    ['a sponsor', { userId: SPONSOR, role: 'sponsor' as const }, 'Sponsor accounts cannot generate valid streams'],
    ['an admin', { userId: 'admin-1', role: 'admin' as const }, 'Admin accounts cannot generate valid streams'],
    ['the artist, on their own track', { userId: ARTIST, role: 'artist' as const }, 'Artists cannot generate valid streams for their own tracks'],
    ['an artist, on another artist’s track', { userId: 'artist-2', role: 'artist' as const }, 'Artists cannot generate valid streams for their own tracks'],
    ['a fan who is the track’s artist', { userId: ARTIST, role: 'fan' as const }, 'Artists cannot generate valid streams for their own tracks'],
  ])('keeps a stream by %s as not valid and says why', async (_who, ctx, message) => {
    const b = world()
    expect(await recordStream(b.client(), play(ctx))).toEqual({ kind: 'not-fan', message })
    expect(b.tables.streams).toEqual([expect.objectContaining({ user_id: ctx.userId, is_valid: false, duration: 31, ip_address: IP })])
    expect(b.calls('rpc/consume_stream')).toHaveLength(0)
    expect(b.calls('rpc/detect_stream_fraud')).toHaveLength(0)
    expect(b.calls('rpc/increment_track_streams')).toHaveLength(0)
  })

  it('rejects a critical fraud risk with its reasons and consumes nothing', async () => {
    const b = world({
      rpc: { detect_stream_fraud: () => ({ fraud_detected: true, risk_level: 'critical', fraud_reasons: ['Automation framework detected', 'Impossible travel'], recommendation: 'block' }) },
    })
    expect(await recordStream(b.client(), play())).toEqual({
      kind: 'rejected',
      reason: 'Stream blocked due to critical fraud risk: Automation framework detected, Impossible travel',
    })
    expect(b.tables.streams).toEqual([expect.objectContaining({ is_valid: false })])
    expect(b.calls('rpc/consume_stream')).toHaveLength(0)
  })

  it('allows a high fraud risk', async () => {
    const b = world({ rpc: { detect_stream_fraud: () => ({ fraud_detected: true, risk_level: 'high', fraud_reasons: ['New device'], recommendation: 'throttle' }) } })
    expect(await recordStream(b.client(), play())).toEqual({ kind: 'counted' })
  })

  it('counts the stream when the fraud system cannot be reached', async () => {
    const b = world({ rpc: { detect_stream_fraud: () => pgError(500, 'XX000', 'fraud tables unavailable') } })
    expect(await recordStream(b.client(), play())).toEqual({ kind: 'counted' })
    expect(b.tables.streams).toEqual([expect.objectContaining({ is_valid: true })])
  })

  it('rejects a fourth stream of the track from the same address within 24 h', async () => {
    const earlier = [validStream(HOUR * 2), validStream(HOUR * 3), validStream(HOUR * 4)]
    const b = world({ tables: { streams: earlier } })
    expect(await recordStream(b.client(), play())).toEqual({ kind: 'rejected', reason: 'Duplicate stream prevented - allowance type: ip' })
    expect(b.tables.streams.slice(3)).toEqual([expect.objectContaining({ is_valid: false })])
    expect(b.calls('rpc/consume_stream')).toHaveLength(0)
  })

  it.each([
    [24, 0, { kind: 'counted' }],
    [25, 0, { kind: 'rejected', reason: 'Velocity limit exceeded: 25 streams in last hour' }],
    // Streams older than an hour do not count towards the hourly limit.
    [0, 30, { kind: 'counted' }],
  ])('with %i valid streams in the last hour and %i earlier today: %o', async (recent, older, want) => {
    const other = (ago: number) => validStream(ago, { track_id: `other-${Math.random()}` })
    const streams = [...Array.from({ length: recent }, () => other(10 * 60_000)), ...Array.from({ length: older }, () => other(2 * HOUR))]
    const b = world({ tables: { streams } })
    expect(await recordStream(b.client(), play())).toEqual(want)
  })

  it.each([
    ['refused', () => false],
    ['failing', () => pgError(500, 'XX000', 'boom')],
  ])('stops at the daily limit when consuming a stream is %s, recording nothing', async (_how, consume) => {
    const b = world({ rpc: { consume_stream: consume } })
    expect(await recordStream(b.client(), play())).toEqual({ kind: 'limit-reached' })
    expect(b.tables.streams).toEqual([])
  })

  it("reports the database's refusal of the row", async () => {
    const b = world({ onInsert: { streams: () => pgError(403, '42501', 'new row violates row-level security policy for table "streams"') } })
    expect(await recordStream(b.client(), play())).toEqual({
      kind: 'error',
      message: 'Stream tracking error: new row violates row-level security policy for table "streams"',
    })
    expect(b.calls('rpc/increment_track_streams')).toHaveLength(0)
  })

  it('takes the verdict of the row the database kept', async () => {
    const b = world({ onInsert: { streams: (r) => ({ ...r, is_valid: false, invalid_reason: 'Stream not valid (not from fan or self-streaming)' }) } })
    expect(await recordStream(b.client(), play())).toEqual({ kind: 'rejected', reason: 'Stream not valid (not from fan or self-streaming)' })
    expect(b.calls('rpc/increment_track_streams')).toHaveLength(0)
  })

  it.each<[string, Parameters<typeof world>[0], string]>([
    ['the track has no sponsor in the database', { tables: { tracks: [trackRow()] } }, 'Track is not sponsored'],
    ['the track is gone', { tables: { tracks: [] } }, 'Track not found'],
    ['the track belongs to another artist', { tables: { tracks: [trackRow({ is_sponsored: true, sponsor_id: SPONSOR, artist_id: 'artist-2' })] } }, 'Artist ID mismatch'],
    [
      'the fraud check says block',
      { tables: { tracks: [sponsored.trackRow] }, rpc: { detect_stream_fraud: () => ({ fraud_detected: true, risk_level: 'high', fraud_reasons: ['Shared device'], recommendation: 'block' }) } },
      'Stream blocked due to high fraud risk',
    ],
    [
      'the fan streamed 200 times today',
      { tables: { tracks: [sponsored.trackRow], streams: Array.from({ length: 200 }, () => validStream(3 * HOUR, { track_id: 'other' })) } },
      'Too many streams (201) in the last 24 hours. Maximum allowed: 200/day',
    ],
    [
      "the sponsor's wallet holds less than a payment",
      { tables: { tracks: [sponsored.trackRow], wallets: [{ user_id: SPONSOR, balance: 20 }] } },
      'Insufficient sponsor balance. Has 20, needs 50',
    ],
  ])('counts but does not pay when %s', async (_case, setup, reason) => {
    const b = world(setup)
    expect(await recordStream(b.client(), play({ track: sponsored.track }))).toEqual({ kind: 'not-eligible', reason })
    expect(b.tables.streams.at(-1)).toMatchObject({ user_id: FAN, is_valid: true })
    expect(b.calls('functions/transfer-payment')).toHaveLength(0)
  })

  it("does not pay when the sponsor's wallet cannot be read", async () => {
    const b = world({ tables: { tracks: [sponsored.trackRow] } })
    delete b.tables.wallets
    expect(await recordStream(b.client(), play({ track: sponsored.track }))).toEqual({ kind: 'not-eligible', reason: 'Cannot verify sponsor wallet' })
    expect(b.calls('functions/transfer-payment')).toHaveLength(0)
  })

  it.each([
    ['refuses it', () => ({ success: false, error: 'Insufficient sponsor balance. Has 20, needs 50', transaction: null }), 'Insufficient sponsor balance. Has 20, needs 50'],
    ['answers an HTTP error', () => new Answer(400, { success: false, error: 'amount must be a number' }), 'Edge Function returned a non-2xx status code'],
  ])('reports a failed payment when the transfer function %s', async (_how, transfer, error) => {
    const b = world({ tables: { tracks: [sponsored.trackRow] }, functions: { 'transfer-payment': transfer } })
    expect(await recordStream(b.client(), play({ track: sponsored.track }))).toEqual({ kind: 'payment-failed', error })
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

describe('settleStream', () => {
  afterEach(() => vi.useRealTimers())

  it("runs the sponsored toasts in the spec's order and refreshes exactly the caches it lists", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const b = world({ tables: { tracks: [sponsored.trackRow] } })
    const qc = seededCache()
    const stop = vi.fn()
    const from = toast.getHistory().length
    await settleStream(b.client(), qc, play({ track: sponsored.track }), stop)
    expect(invalidated(qc)).toEqual(REFRESHED)
    await vi.advanceTimersByTimeAsync(3500)
    expect(toastsSince(from)).toEqual([
      { type: 'success', title: 'Sponsored stream counted!' },
      { type: 'success', title: '₦50 credited to artist from sponsor!' },
      { type: 'info', title: "₦50 was automatically transferred from the sponsor to the artist's wallet." },
    ])
    expect(stop).not.toHaveBeenCalled()
  })

  it('announces a failed payment with its reason and still refreshes the counts', async () => {
    const b = world({
      tables: { tracks: [sponsored.trackRow] },
      functions: { 'transfer-payment': () => ({ success: false, error: 'Insufficient sponsor balance. Has 20, needs 50', transaction: null }) },
    })
    const qc = seededCache()
    const from = toast.getHistory().length
    await settleStream(b.client(), qc, play({ track: sponsored.track }), vi.fn())
    expect(toastsSince(from)).toEqual([{ type: 'error', title: 'Stream counted but sponsor payment failed', description: 'Insufficient sponsor balance. Has 20, needs 50' }])
    expect(invalidated(qc)).toEqual(REFRESHED)
  })

  it('announces a stream that was recorded but not counted, and refreshes nothing', async () => {
    const b = world({ tables: { streams: [validStream(HOUR), validStream(2 * HOUR), validStream(3 * HOUR)] } })
    const qc = seededCache()
    const from = toast.getHistory().length
    await settleStream(b.client(), qc, play(), vi.fn())
    expect(toastsSince(from)).toEqual([{ type: 'info', title: 'Stream recorded: Duplicate stream prevented - allowance type: ip' }])
    expect(invalidated(qc)).toEqual([])
  })

  it.each([
    ['none remain', () => [{ user_id: FAN, daily_limit: 50, streams_used: 50, streams_remaining: 0 }]],
    // A failed read means none remain (fail safe).
    ['the allowance cannot be read', () => pgError(500, 'XX000', 'boom')],
  ])('stops a fan when %s, before anything is recorded', async (_case, limit) => {
    const b = world({ rpc: { get_or_create_daily_stream_limit: limit } })
    const stop = vi.fn()
    await settleStream(b.client(), seededCache(), play(), stop)
    expect(stop.mock.calls).toEqual([['Daily stream limit reached! You have 0 streams remaining today.']])
    expect(b.sent.map((s) => s.target)).toEqual(['rpc/get_or_create_daily_stream_limit'])
  })

  it('stops with the short message when consuming the stream is refused', async () => {
    const b = world({ rpc: { consume_stream: () => false } })
    const qc = seededCache()
    const stop = vi.fn()
    const from = toast.getHistory().length
    await settleStream(b.client(), qc, play(), stop)
    expect(stop.mock.calls).toEqual([['Daily stream limit reached!']])
    expect(toastsSince(from)).toEqual([])
    expect(invalidated(qc)).toEqual([])
  })

  it("does not check a sponsor's allowance, and says their stream cannot count", async () => {
    const b = world()
    const from = toast.getHistory().length
    await settleStream(b.client(), seededCache(), play({ userId: SPONSOR, role: 'sponsor' }), vi.fn())
    expect(b.calls('rpc/get_or_create_daily_stream_limit')).toHaveLength(0)
    expect(toastsSince(from)).toEqual([{ type: 'info', title: 'Sponsor accounts cannot generate valid streams' }])
  })
})
