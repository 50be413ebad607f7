import type { BackendSetup, Row } from '@/test/fake-backend'
import { aTrack } from '@/test/track'
import type { Track } from '@/types/api'

// The backend a listener's stream meets, shared by the stream tests and the
// player's component tests.

export const FAN = '00000000-0000-4000-8000-00000000f001'
export const ARTIST = '00000000-0000-4000-8000-00000000a001'
export const SPONSOR = '00000000-0000-4000-8000-00000000b001'
export const TRACK = '00000000-0000-4000-8000-00000000c001'
export const IP = '203.0.113.7'
export const HOUR = 3600_000

export const trackRow = (over: Row = {}): Row => ({ id: TRACK, title: 'Lagos Nights', artist_id: ARTIST, sponsor_id: null, is_sponsored: false, streams: 7, ...over })

export const clientTrack = (over: Partial<Track> = {}) => aTrack({ id: TRACK, title: 'Lagos Nights', artistId: ARTIST, streams: 7, ...over })

export const sponsored = { track: clientTrack({ isSponsored: true, sponsorId: SPONSOR }), trackRow: trackRow({ is_sponsored: true, sponsor_id: SPONSOR }) }

/** validStream is an earlier valid stream, `ago` milliseconds old. */
export const validStream = (ago: number, over: Row = {}): Row => ({
  id: `old-${Math.random()}`,
  track_id: TRACK,
  user_id: FAN,
  is_valid: true,
  ip_address: IP,
  duration: 31,
  created_at: new Date(Date.now() - ago).toISOString(),
  ...over,
})

/**
 * world is the backend a fan meets on a good day: not suspended, streams
 * left, a clean fraud check, and the database's own duplicate count over the
 * streams it holds. Each test changes what its case needs.
 */
export function streamWorld(over: BackendSetup = {}): BackendSetup {
  return {
    ...over,
    tables: { tracks: [trackRow()], streams: [], wallets: [], ...over.tables },
    rpc: {
      is_user_suspended: () => false,
      get_or_create_daily_stream_limit: () => [{ user_id: FAN, daily_limit: 50, streams_used: 3, streams_remaining: 47 }],
      update_device_fingerprint: () => ({ ok: true }),
      detect_stream_fraud: () => ({ fraud_detected: false, risk_level: 'low', fraud_reasons: [], recommendation: 'allow' }),
      check_duplicate_stream_enhanced: (args, b) => {
        const since = new Date(Date.now() - 24 * HOUR).toISOString()
        const n = b.tables.streams.filter((s) => s.track_id === args.p_track_id && s.ip_address === IP && s.is_valid && String(s.created_at) > since).length
        return { is_duplicate: n >= 3, allowance_type: 'ip', stream_count: n, max_allowed: 3, window_hours: 24 }
      },
      consume_stream: () => true,
      increment_track_streams: () => 8,
      increment_artist_streams: () => 120,
      record_stream_for_duplicate_prevention: () => ({ recorded: true }),
      ...over.rpc,
    },
    functions: {
      'client-ip': () => ({ ip: IP }),
      'transfer-payment': () => ({ success: true, error: null, transaction: { amount: 50, artist_balance: null, sponsor_balance: null } }),
      ...over.functions,
    },
  }
}
