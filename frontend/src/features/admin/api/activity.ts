import { supabase } from '@/lib/supabase'
import { PAGE_SIZE } from '../lib/keyset'
import { keysetList, unwrap, type RowOf } from './rpc'

/** ActivityEntry is one row of the activity feed. */
export type ActivityEntry = RowOf<'admin_activity'>

/** ActivityFilters are the feed's filters (from and to are instants). */
export interface ActivityFilters {
  kind?: string
  userId?: string
  from?: string
  to?: string
}

/** activityQuery reads the feed newest first by keyset (time, then key). */
export const activityQuery = (f: ActivityFilters) =>
  keysetList<ActivityEntry>(['activity', f], async (after) =>
    unwrap(
      await supabase().rpc('admin_activity', {
        p_kind: f.kind || undefined,
        p_user_id: f.userId || undefined,
        p_from: f.from,
        p_to: f.to,
        p_before_at: after?.at,
        p_before_key: after?.key,
        p_limit: PAGE_SIZE,
      }),
    ),
  )
