import type { Client } from '@/lib/supabase'
import type { Role } from '@/config/nav'
import type { Track } from '@/types/api'
import { collectFingerprint, isSuspiciousDevice } from '../lib/device-trust'

// The client half of stream recording (spec sections 4, 5 and 8). The
// database re-checks everything that protects money; these steps decide which
// message the listener sees and which caches to refresh.

/** STREAM_PAYMENT is the naira amount a sponsored stream moves. */
export const STREAM_PAYMENT = 50
/** MIN_LISTEN_SECONDS is the listening time before a stream is recorded. */
export const MIN_LISTEN_SECONDS = 30

/** StreamOutcome is what happened to one play. */
export type StreamOutcome =
  | { kind: 'suspended' }
  | { kind: 'not-fan'; message: string }
  | { kind: 'limit-reached' }
  | { kind: 'rejected'; reason: string }
  | { kind: 'counted' }
  | { kind: 'sponsored'; amount: number }
  | { kind: 'payment-failed'; error: string }
  | { kind: 'not-eligible'; reason: string }
  | { kind: 'error'; message: string }

/** FraudResult is detect_stream_fraud's answer. */
export interface FraudResult {
  fraud_detected: boolean
  risk_level: string
  fraud_reasons: string[]
  device_trust_score?: number
  ip_risk_score?: number
  recommendation: 'allow' | 'throttle' | 'block' | string
}

/** StreamContext is who listened to what, and for how long. */
export interface StreamContext {
  userId: string
  role: Role | null
  track: Track
  seconds: number
  sessionId: string
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/** nonFanMessage is the toast for a listener whose streams cannot count. */
export function nonFanMessage(role: Role | null, ownTrack: boolean): string {
  if (ownTrack || role === 'artist') return 'Artists cannot generate valid streams for their own tracks'
  return `${capitalise(role ?? 'Visitor')} accounts cannot generate valid streams`
}

/** first unwraps an RPC result that may be a row or a one-row list. */
function first<T>(data: unknown): T | null {
  if (Array.isArray(data)) return (data[0] as T) ?? null
  return (data as T) ?? null
}

/** clientIp asks the client-ip function for the caller's address; null when unknown. */
export async function clientIp(sb: Client): Promise<string | null> {
  try {
    const { data, error } = await sb.functions.invoke('client-ip', { method: 'GET' })
    if (error) return null
    const ip = (typeof data === 'string' ? JSON.parse(data) : data)?.ip
    return typeof ip === 'string' && ip ? ip : null
  } catch {
    return null
  }
}

/** streamsRemaining reads today's allowance; any failure means none remain (fail safe). */
export async function streamsRemaining(sb: Client, userId: string): Promise<number> {
  const { data, error } = await sb.rpc('get_or_create_daily_stream_limit', { p_user_id: userId })
  if (error) return 0
  const row = first<{ streams_remaining: number }>(data)
  return Number(row?.streams_remaining ?? 0)
}

/** fraudCheck runs detect_stream_fraud, or the client-only device check when it fails. */
export async function fraudCheck(sb: Client, userId: string, trackId: string, ip: string | null, sessionId: string): Promise<FraudResult> {
  const fp = collectFingerprint()
  void sb
    .rpc('update_device_fingerprint', {
      p_user_id: userId,
      p_device_fingerprint: fp.fingerprint,
      p_user_agent: fp.userAgent,
      p_screen_resolution: fp.screenResolution,
      p_timezone: fp.timezone,
      p_language: fp.language,
      p_platform: fp.platform,
      p_ip_address: ip ?? undefined,
      p_device_details: fp.details,
    })
    .then(({ error }) => error && console.warn('update_device_fingerprint', error.message))
  const { data, error } = await sb.rpc('detect_stream_fraud', {
    p_user_id: userId,
    p_track_id: trackId,
    p_device_fingerprint: fp.fingerprint,
    p_ip_address: ip ?? undefined,
    p_user_agent: fp.userAgent,
    p_session_id: sessionId,
  })
  const row = first<FraudResult>(data)
  if (error || !row) {
    // The fraud system failed: allow at medium risk, unless this device looks automated.
    const suspicious = isSuspiciousDevice(fp.trustScore)
    return {
      fraud_detected: suspicious,
      risk_level: 'medium',
      fraud_reasons: ['Fraud detection system error'],
      device_trust_score: fp.trustScore,
      recommendation: suspicious ? 'throttle' : 'allow',
    }
  }
  return { ...row, fraud_reasons: row.fraud_reasons ?? [] }
}

async function countValid(sb: Client, filter: { userId?: string; trackId?: string; sinceMs: number }): Promise<number | null> {
  let q = sb.from('streams').select('id', { count: 'exact', head: true }).eq('is_valid', true)
  if (filter.userId) q = q.eq('user_id', filter.userId)
  if (filter.trackId) q = q.eq('track_id', filter.trackId)
  const { count, error } = await q.gte('created_at', new Date(Date.now() - filter.sinceMs).toISOString())
  return error ? null : (count ?? 0)
}

const HOUR = 3600_000

/**
 * sponsorEligibility runs the eligibility checks of spec section 5 in order
 * and returns the first failing reason, or null when the payment may be asked for.
 */
export async function sponsorEligibility(sb: Client, ctx: StreamContext, fraud: FraudResult): Promise<string | null> {
  const { track, userId } = ctx
  if (userId === track.artistId) return 'Artist cannot stream own tracks for payment'
  const { data: row } = await sb.from('tracks').select('id, artist_id, sponsor_id, is_sponsored').eq('id', track.id).maybeSingle()
  if (!row) return 'Track not found'
  if (row.artist_id !== track.artistId) return 'Artist ID mismatch'
  if (!row.is_sponsored || !row.sponsor_id) return 'Track is not sponsored'
  if (fraud.recommendation === 'block') return `Stream blocked due to ${fraud.risk_level} fraud risk`
  // Per-IP duplicates: the server counts them (the caller cannot read other
  // listeners' addresses). This stream is already among them, hence "more than".
  const dup = await sb.rpc('check_duplicate_stream_enhanced', { p_track_id: track.id, p_user_id: userId })
  const d = dup.error ? null : first<{ stream_count?: number; max_allowed?: number; window_hours?: number }>(dup.data)
  if (d && typeof d.stream_count === 'number' && d.stream_count > (d.max_allowed ?? 3)) {
    return `This track has been streamed ${d.stream_count} times from your location in ${d.window_hours ?? 24} hours (max: ${d.max_allowed ?? 3})`
  }
  const hour = await countValid(sb, { userId, sinceMs: HOUR })
  if (hour !== null && hour > 25) return `Too many streams (${hour}) in the last hour. Maximum allowed: 25/hour`
  const day = await countValid(sb, { userId, sinceMs: 24 * HOUR })
  if (day !== null && day > 200) return `Too many streams (${day}) in the last 24 hours. Maximum allowed: 200/day`
  // Relationship: the track itself is sponsored by this sponsor, which the spec accepts.
  // Balance: only checkable when the sponsor's wallet is visible to the caller;
  // the transfer function re-checks it either way.
  const { data: wallet, error: walletError } = await sb.from('wallets').select('balance').eq('user_id', row.sponsor_id).maybeSingle()
  if (walletError) return 'Cannot verify sponsor wallet'
  if (wallet && Number(wallet.balance) < STREAM_PAYMENT) return `Insufficient sponsor balance. Has ${Number(wallet.balance)}, needs ${STREAM_PAYMENT}`
  return null
}

/** recordStream records one play that reached 30 s and settles the sponsored payment. */
export async function recordStream(sb: Client, ctx: StreamContext): Promise<StreamOutcome> {
  const { track, userId, role } = ctx
  const suspended = await sb.rpc('is_user_suspended', { p_user_id: userId })
  if (suspended.error) return { kind: 'error', message: 'Failed to verify user status' }
  if (suspended.data === true) return { kind: 'suspended' }

  const ownTrack = userId === track.artistId
  const ip = await clientIp(sb)
  const insert = (isValid: boolean) =>
    sb.from('streams').insert({ track_id: track.id, user_id: userId, duration: Math.round(ctx.seconds), is_valid: isValid, ip_address: ip })

  if (role !== 'fan' || ownTrack) {
    const { error } = await insert(false)
    if (error) console.warn('record invalid stream', error.message)
    return { kind: 'not-fan', message: nonFanMessage(role, ownTrack) }
  }

  const fraud = await fraudCheck(sb, userId, track.id, ip, ctx.sessionId)
  if (fraud.risk_level === 'critical') {
    await insert(false)
    return { kind: 'rejected', reason: `Stream blocked due to critical fraud risk: ${fraud.fraud_reasons.join(', ')}` }
  }

  const dup = await sb.rpc('check_duplicate_stream_enhanced', { p_track_id: track.id, p_user_id: userId })
  const dupRow = dup.error ? null : first<{ is_duplicate?: boolean; allowance_type?: string }>(dup.data)
  if (dupRow?.is_duplicate) {
    await insert(false)
    return { kind: 'rejected', reason: `Duplicate stream prevented - allowance type: ${dupRow.allowance_type ?? 'unknown'}` }
  }
  const lastHour = await countValid(sb, { userId, sinceMs: HOUR })
  if (lastHour !== null && lastHour >= 25) {
    await insert(false)
    return { kind: 'rejected', reason: `Velocity limit exceeded: ${lastHour} streams in last hour` }
  }

  const consumed = await sb.rpc('consume_stream', { p_user_id: userId })
  if (consumed.error || consumed.data !== true) return { kind: 'limit-reached' }

  const { error: insertError } = await sb
    .from('streams')
    .insert({ track_id: track.id, user_id: userId, duration: Math.round(ctx.seconds), is_valid: true, ip_address: ip })
  if (insertError) return { kind: 'error', message: `Stream tracking error: ${insertError.message}` }
  // The database decides validity: read back the row it kept (a plain insert,
  // because the caller may not read every column an insert could return).
  const { data: inserted } = await sb
    .from('streams')
    .select('is_valid, invalid_reason')
    .eq('track_id', track.id)
    .eq('user_id', userId)
    .order('created_at', { ascending: false })
    .limit(1)
    .maybeSingle()
  if (inserted && inserted.is_valid === false) {
    return { kind: 'rejected', reason: (inserted.invalid_reason as string | null) ?? 'Stream not valid (not from fan or self-streaming)' }
  }

  const inc = await sb.rpc('increment_track_streams', { p_track_id: track.id })
  if (inc.error) await sb.from('tracks').update({ streams: track.streams + 1 }).eq('id', track.id)
  const incArtist = await sb.rpc('increment_artist_streams', { p_artist_id: track.artistId })
  if (incArtist.error) console.warn('increment_artist_streams', incArtist.error.message)
  void sb
    .rpc('record_stream_for_duplicate_prevention', {
      p_user_id: userId,
      p_track_id: track.id,
      p_device_fingerprint: collectFingerprint().fingerprint,
      p_ip_address: ip ?? undefined,
      p_session_id: ctx.sessionId,
      p_stream_duration: Math.round(ctx.seconds),
    })
    .then(({ error }) => error && console.warn('record_stream_for_duplicate_prevention', error.message))

  if (!track.isSponsored || !track.sponsorId) return { kind: 'counted' }

  const reason = await sponsorEligibility(sb, ctx, fraud)
  if (reason) return { kind: 'not-eligible', reason }
  const { data, error } = await sb.functions.invoke('transfer-payment', {
    body: { artist_id: track.artistId, sponsor_id: track.sponsorId, reference: `stream-${crypto.randomUUID()}`, amount: STREAM_PAYMENT },
  })
  if (error || !data?.success) return { kind: 'payment-failed', error: data?.error ?? error?.message ?? 'unknown error' }
  return { kind: 'sponsored', amount: Number(data.transaction?.amount ?? STREAM_PAYMENT) }
}

/** AFTER_PAYMENT_KEYS are the caches refreshed after a counted stream and its payment. */
export const AFTER_PAYMENT_KEYS = [
  'tracks',
  'chartTracks',
  'artistTracks',
  'artistProfile',
  'artistWallet',
  'sponsorWallet',
  'sponsorProfile',
  'sponsorAnalytics',
  'transactions',
  'track',
  'dailyStreamLimit',
] as const
