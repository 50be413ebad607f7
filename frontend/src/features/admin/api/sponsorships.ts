import { supabase } from '@/lib/supabase'
import { PAGE_SIZE } from '../lib/keyset'
import { keysetList, unwrap, type RowOf } from './rpc'

/** SponsoredTrackRow is one sponsored track with its sponsor's spend. */
export type SponsoredTrackRow = RowOf<'admin_list_sponsored_tracks'>

/** InviteRow is one sponsorship invite. */
export type InviteRow = RowOf<'admin_list_invites'>

/** sponsoredTracksQuery lists sponsored tracks newest first. */
export const sponsoredTracksQuery = () =>
  keysetList<SponsoredTrackRow>(['sponsoredTracks'], async (after) =>
    unwrap(
      await supabase().rpc('admin_list_sponsored_tracks', {
        p_before_created: after?.created_at,
        p_before_id: after?.track_id,
        p_limit: PAGE_SIZE,
      }),
    ),
  )

/** invitesQuery lists invites newest first, by status. */
export const invitesQuery = (status: string) =>
  keysetList<InviteRow>(['invites', status], async (after) =>
    unwrap(
      await supabase().rpc('admin_list_invites', {
        p_status: status || undefined,
        p_before_created: after?.created_at,
        p_before_id: after?.id,
        p_limit: PAGE_SIZE,
      }),
    ),
  )

/** endSponsorship unsponsors a track, with a reason. */
export const endSponsorship = async (v: { trackId: string; reason: string }) =>
  unwrap(await supabase().rpc('admin_end_sponsorship', { p_track_id: v.trackId, p_reason: v.reason }))
