import type { Client } from '@/lib/supabase'
import type { Role } from '@/config/nav'
import type { Track } from '@/types/api'
import { collectFingerprint } from '../lib/device-trust'

// The client half of stream recording (spec sections 4, 5 and 8): two calls
// per play. start_play opens the play when a track starts (and refuses a fan
// with no streams left); finish_play records its stream after 30 s and, in the
// same transaction, decides and makes the sponsored payment. The database is
// the one home of every rule; the client turns its outcome into the spec's
// messages and refreshes the caches.

/** STREAM_PAYMENT is the naira amount a sponsored stream moves. */
export const STREAM_PAYMENT = 50
/** MIN_LISTEN_SECONDS is the listening time before a stream is recorded. */
export const MIN_LISTEN_SECONDS = 30

/** NOT_FAN_REASON is the server's reason for a stream by a non-fan or by the track's artist. */
export const NOT_FAN_REASON = 'Stream not valid (not from fan or self-streaming)'
/** SUSPENDED is the server's refusal for a suspended listener. */
export const SUSPENDED = 'User is suspended and cannot generate valid streams'
/** LIMIT_REACHED starts every refusal at the daily limit. */
export const LIMIT_REACHED = 'Daily stream limit reached!'

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

/** StreamContext is who listened to what, and for how long. */
export interface StreamContext {
  userId: string
  role: Role | null
  track: Track
  seconds: number
}

/** PlayResult is finish_play's answer (functions/public.finish_play.sql). */
export interface PlayResult {
  outcome: 'counted' | 'paid' | 'not_eligible' | 'payment_failed' | 'not_counted' | 'limit_reached'
  reason: string | null
  transaction: { amount: number; artist_balance: number | null; sponsor_balance: number | null } | null
  play_id: string
  stream_id: string | null
  track_id: string
  sponsored: boolean
}

/** StartedPlay is start_play's answer: the play's id, or why no play started. */
export type StartedPlay = { playId: string } | { refused: string } | { failed: string }

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1)

/** nonFanMessage is the toast for a listener whose streams cannot count. */
export function nonFanMessage(role: Role | null, ownTrack: boolean): string {
  if (ownTrack || role === 'artist') return 'Artists cannot generate valid streams for their own tracks'
  return `${capitalise(role ?? 'Visitor')} accounts cannot generate valid streams`
}

/**
 * startPlay opens a play of the track on the server, with this device's
 * fingerprint for its fraud checks. A business refusal (P0001: no streams
 * left today, a suspended account) comes back as refused with the text to
 * show; anything else as failed.
 */
export async function startPlay(sb: Client, trackId: string): Promise<StartedPlay> {
  const fp = collectFingerprint()
  const device = {
    fingerprint: fp.fingerprint,
    user_agent: fp.userAgent,
    screen_resolution: fp.screenResolution,
    timezone: fp.timezone,
    language: fp.language,
    platform: fp.platform,
    details: fp.details,
  }
  const { data, error } = await sb.rpc('start_play', { p_track_id: trackId, p_device: device })
  if (error) return error.code === 'P0001' ? { refused: error.message } : { failed: error.message }
  return { playId: data }
}

/** outcomeOf turns finish_play's answer into what the listener is told. */
export function outcomeOf(r: PlayResult, ctx: Pick<StreamContext, 'userId' | 'role' | 'track'>): StreamOutcome {
  switch (r.outcome) {
    case 'counted':
      return { kind: 'counted' }
    case 'paid':
      return { kind: 'sponsored', amount: Number(r.transaction?.amount ?? STREAM_PAYMENT) }
    case 'not_eligible':
      return { kind: 'not-eligible', reason: r.reason ?? '' }
    case 'payment_failed':
      return { kind: 'payment-failed', error: r.reason ?? 'unknown error' }
    case 'limit_reached':
      return { kind: 'limit-reached' }
    case 'not_counted':
      if (r.reason === NOT_FAN_REASON) return { kind: 'not-fan', message: nonFanMessage(ctx.role, ctx.userId === ctx.track.artistId) }
      return { kind: 'rejected', reason: r.reason ?? NOT_FAN_REASON }
  }
  return { kind: 'error', message: `Stream tracking error: unknown outcome ${String((r as { outcome: unknown }).outcome)}` }
}

/** finishPlay records the play's stream and settles its payment in one call. */
export async function finishPlay(sb: Client, playId: string, ctx: StreamContext): Promise<StreamOutcome> {
  const { data, error } = await sb.rpc('finish_play', { p_play_id: playId, p_duration: Math.round(ctx.seconds) })
  if (error) {
    if (error.message === SUSPENDED) return { kind: 'suspended' }
    return { kind: 'error', message: `Stream tracking error: ${error.message}` }
  }
  return outcomeOf(data as unknown as PlayResult, ctx)
}

/**
 * recordListen tells the server how long a play has been listened to in all
 * (record_listen keeps the longest report, capped by its own clock), for the
 * listening history. Best effort: a report that fails loses nothing the
 * stream needs.
 */
export async function recordListen(sb: Client, playId: string, seconds: number): Promise<void> {
  const { error } = await sb.rpc('record_listen', { p_play_id: playId, p_seconds: Math.floor(seconds) })
  if (error) console.warn('record listen', error.message)
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
