import { pgError, type BackendSetup, type FakeBackend, type Row } from '@/test/fake-backend'
import { aTrack } from '@/test/track'
import type { Track } from '@/types/api'
import type { PlayResult } from '../api/record-stream'

// The backend a listener's stream meets, shared by the stream tests and the
// player's component tests.

export const FAN = '00000000-0000-4000-8000-00000000f001'
export const ARTIST = '00000000-0000-4000-8000-00000000a001'
export const SPONSOR = '00000000-0000-4000-8000-00000000b001'
export const TRACK = '00000000-0000-4000-8000-00000000c001'

export const trackRow = (over: Row = {}): Row => ({ id: TRACK, title: 'Lagos Nights', artist_id: ARTIST, sponsor_id: null, is_sponsored: false, streams: 7, ...over })

export const clientTrack = (over: Partial<Track> = {}) => aTrack({ id: TRACK, title: 'Lagos Nights', artistId: ARTIST, streams: 7, ...over })

export const sponsored = { track: clientTrack({ isSponsored: true, sponsorId: SPONSOR }), trackRow: trackRow({ is_sponsored: true, sponsor_id: SPONSOR }) }

/** Verdict is what the server decides about a finished play; the world decides 'counted' or 'paid' from the track row. */
export type Verdict = Pick<PlayResult, 'outcome' | 'reason'> & { amount?: number }

/**
 * streamWorld is the server's side of start_play and finish_play as the
 * player meets it (functions/public.start_play.sql, public.finish_play.sql):
 * start_play opens a play in play_sessions (or refuses with `refuse`, a
 * business refusal as PostgREST sends it); finish_play records one stream
 * per play in streams, raises the track's count for a counted stream, and
 * answers the outcome: `verdict` when a test gives one, else 'paid' for a
 * sponsored track and 'counted' otherwise. A finished play keeps its answer.
 * record_listen keeps a play's longest reported listen.
 */
export function streamWorld(over: BackendSetup & { refuse?: string; verdict?: Verdict } = {}): BackendSetup {
  const { refuse, verdict, ...setup } = over
  return {
    ...setup,
    tables: { tracks: [trackRow()], streams: [], play_sessions: [], ...setup.tables },
    rpc: {
      start_play: (args, b) => {
        if (refuse) return pgError(400, 'P0001', refuse)
        const id = `play-${b.tables.play_sessions.length + 1}`
        b.tables.play_sessions.push({ id, track_id: args.p_track_id, outcome: null })
        return id
      },
      finish_play: (args, b) => finishPlay(b, String(args.p_play_id), Number(args.p_duration), verdict),
      record_listen: (args, b) => {
        const play = b.tables.play_sessions.find((p) => p.id === args.p_play_id)
        if (!play) return pgError(404, 'P0002', 'Play not found')
        play.listened_seconds = Math.max(Number(play.listened_seconds ?? 0), Number(args.p_seconds))
        return play.listened_seconds
      },
      ...setup.rpc,
    },
  }
}

function finishPlay(b: FakeBackend, playId: string, duration: number, verdict?: Verdict): unknown {
  const play = b.tables.play_sessions.find((p) => p.id === playId)
  if (!play) return pgError(404, 'P0002', 'Play not found')
  if (play.outcome) return play.outcome
  const track = b.tables.tracks.find((t) => t.id === play.track_id)
  const isSponsored = !!track?.is_sponsored && !!track?.sponsor_id
  const v: Verdict = verdict ?? { outcome: isSponsored ? 'paid' : 'counted', reason: null }
  const counted = !['not_counted', 'limit_reached'].includes(v.outcome)
  const streamId = `stream-${b.tables.streams.length + 1}`
  b.tables.streams.push({ id: streamId, track_id: play.track_id, user_id: FAN, duration, is_valid: counted, invalid_reason: counted ? null : v.reason })
  if (counted && track) track.streams = Number(track.streams) + 1
  const result: PlayResult = {
    outcome: v.outcome,
    reason: v.reason,
    transaction: v.outcome === 'paid' ? { amount: v.amount ?? 50, artist_balance: null, sponsor_balance: null } : null,
    play_id: playId,
    stream_id: streamId,
    track_id: String(play.track_id),
    sponsored: isSponsored,
  }
  play.outcome = result
  return result
}
