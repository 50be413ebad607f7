import { supabase } from '@/lib/supabase'
import { factsWanted, type ActivityFacts } from '../lib/describe'
import { PAGE_SIZE } from '../lib/keyset'
import { keysetList, unwrap, type RowOf } from './rpc'

/** ActivityEntry is one row of the activity feed, with what it refers to (lib/describe.ts). */
export type ActivityEntry = RowOf<'admin_activity'> & { facts?: ActivityFacts }

/** ActivityFilters are the feed's filters (from and to are instants). */
export interface ActivityFilters {
  kind?: string
  userId?: string
  from?: string
  to?: string
}

/**
 * activityFacts reads what a page of the feed refers to by id: people's
 * names and track titles (a payment's figures, VAT and fee included, come
 * in the feed's own rows). A failed read leaves those entries described
 * without it.
 */
export async function activityFacts(rows: RowOf<'admin_activity'>[]): Promise<ActivityFacts> {
  const want = factsWanted(rows)
  const sb = supabase()
  const [people, tracks] = await Promise.all([
    want.people.length ? sb.from('public_profiles').select('id, display_name, username').in('id', want.people) : null,
    want.tracks.length ? sb.from('tracks').select('id, title').in('id', want.tracks) : null,
  ])
  return {
    people: Object.fromEntries((people?.data ?? []).map((p) => [p.id, p.display_name || p.username || 'a user'])),
    tracks: Object.fromEntries((tracks?.data ?? []).map((t) => [t.id, t.title])),
  }
}

/** activityQuery reads the feed newest first by keyset (time, then key), each page with its facts. */
export const activityQuery = (f: ActivityFilters) =>
  keysetList<ActivityEntry>(['activity', f], async (after) => {
    const rows = unwrap(
      await supabase().rpc('admin_activity', {
        p_kind: f.kind || undefined,
        p_user_id: f.userId || undefined,
        p_from: f.from,
        p_to: f.to,
        p_before_at: after?.at,
        p_before_key: after?.key,
        p_limit: PAGE_SIZE,
      }),
    )
    const facts = await activityFacts(rows)
    return rows.map((r) => ({ ...r, facts }))
  })
