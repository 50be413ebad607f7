import { queryOptions } from '@tanstack/react-query'
import { supabase } from '@/lib/supabase'
import { PAGE_SIZE } from '../lib/keyset'
import { ADMIN_KEY, keysetList, unwrap, type RowOf } from './rpc'

/** TrackRow is one row of the admin track list. */
export type AdminTrackRow = RowOf<'admin_search_tracks'>

/** TrackFilters are the track list's filters. */
export interface TrackFilters {
  q?: string
  status?: string
  sponsored?: boolean
}

/** tracksQuery lists tracks newest first by keyset. */
export const tracksQuery = (f: TrackFilters) =>
  keysetList<AdminTrackRow>(['tracks', f], async (after) =>
    unwrap(
      await supabase().rpc('admin_search_tracks', {
        p_query: f.q || undefined,
        p_status: f.status || undefined,
        p_sponsored: f.sponsored,
        p_before_created: after?.created_at,
        p_before_id: after?.id,
        p_limit: PAGE_SIZE,
      }),
    ),
  )

/** TrackDetail is admin_track_detail's answer. */
export interface TrackDetail {
  track: { id: string; title: string; status: string; moderation_reason: string | null; artist_name: string; sponsor_name: string | null; is_sponsored: boolean; streams: number; created_at: string }
  streams: { valid: number; rejected: number; paid: number; listeners: number; last_24h: number }
  rejections: { reason: string; count: number }[]
  top_addresses: { address_key: string; streams: number; accounts: number }[]
  top_listeners: { user_id: string; name: string; streams: number }[]
  fraud_flags: { user_id: string; details: { risk_level?: string; fraud_reasons?: string[] }; created_at: string }[]
  recent_streams: { id: string; user_id: string; name: string; is_valid: boolean; invalid_reason: string | null; created_at: string; paid: boolean }[]
  audit: { id: number; actor_name: string; action: string; reason: string | null; created_at: string }[]
}

/** trackDetailQuery reads one track's streams and fraud signals. */
export const trackDetailQuery = (id: string) =>
  queryOptions({
    queryKey: [ADMIN_KEY, 'track', id],
    queryFn: async () => unwrap(await supabase().rpc('admin_track_detail', { p_track_id: id })) as unknown as TrackDetail,
  })

/** moderateTrack hides, removes or restores a track. */
export const moderateTrack = async (v: { id: string; to: 'hidden' | 'removed' | 'active'; reason: string }) => {
  const sb = supabase()
  if (v.to === 'hidden') return unwrap(await sb.rpc('admin_hide_track', { p_track_id: v.id, p_reason: v.reason }))
  if (v.to === 'removed') return unwrap(await sb.rpc('admin_remove_track', { p_track_id: v.id, p_reason: v.reason }))
  return unwrap(await sb.rpc('admin_unhide_track', { p_track_id: v.id, p_reason: v.reason || undefined }))
}
