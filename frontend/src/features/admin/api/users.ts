import { queryOptions } from '@tanstack/react-query'
import type { Role } from '@/config/nav'
import { supabase } from '@/lib/supabase'
import { PAGE_SIZE } from '../lib/keyset'
import { ADMIN_KEY, keysetList, unwrap, type RowOf } from './rpc'

/** UserRow is one row of the users list. */
export type UserRow = RowOf<'admin_search_users'>

/** UserFilters are the users list's filters. */
export interface UserFilters {
  q?: string
  role?: Role
  verified?: boolean
  suspended?: boolean
}

/** usersQuery lists users newest first, filtered, by keyset. */
export const usersQuery = (f: UserFilters) =>
  keysetList<UserRow>(['users', f], async (after) =>
    unwrap(
      await supabase().rpc('admin_search_users', {
        p_query: f.q || undefined,
        p_role: f.role,
        p_verified: f.verified,
        p_suspended: f.suspended,
        p_before_created: after?.created_at,
        p_before_id: after?.id,
        p_limit: PAGE_SIZE,
      }),
    ),
  )

/** UserDetail is admin_user_detail's answer. */
export interface UserDetail {
  profile: { id: string; display_name: string | null; username: string | null; avatar_url: string | null; is_verified: boolean; is_suspended: boolean; suspended_reason: string | null; suspended_at: string | null; created_at: string; bio: string | null; location: string | null }
  account: { email: string | null; created_at: string | null; last_sign_in_at: string | null; email_confirmed_at: string | null } | null
  role: Role | null
  artist: { kyc_status: string; kyc_expiry_date: string | null; stream_count: number; track_count: number } | null
  sponsor: { company_name: string | null } | null
  wallet: { balance: number; currency: string; updated_at: string } | null
  sessions: { session_id: string; device_info: string | null; ip_address: string | null; created_at: string; last_seen: string }[]
  devices: { fingerprint: string; user_agent: string | null; platform: string | null; trust_score: number; suspicious: boolean; first_seen: string; last_seen: string; seen_count: number }[]
  streams: { valid: number; rejected: number; paid: number }
  recent_streams: { id: string; track_id: string; title: string; is_valid: boolean; invalid_reason: string | null; created_at: string; paid: boolean }[]
  fraud_flags: { track_id: string; details: { risk_level?: string; fraud_reasons?: string[] }; created_at: string }[]
  blocked_streams: number
  cashouts: { id: string; amount: number; status: string; reason: string | null; created_at: string }[]
  audit: { id: number; actor_name: string; action: string; reason: string | null; created_at: string }[]
}

/** userDetailQuery reads one user's detail. */
export const userDetailQuery = (id: string) =>
  queryOptions({
    queryKey: [ADMIN_KEY, 'user', id],
    queryFn: async () => unwrap(await supabase().rpc('admin_user_detail', { p_user_id: id })) as unknown as UserDetail,
  })

/** suspendUser suspends with a reason. */
export const suspendUser = async (v: { id: string; reason: string }) =>
  unwrap(await supabase().rpc('admin_suspend_user', { p_user_id: v.id, p_reason: v.reason }))

/** unsuspendUser lifts a suspension. */
export const unsuspendUser = async (v: { id: string; reason: string }) =>
  unwrap(await supabase().rpc('admin_unsuspend_user', { p_user_id: v.id, p_reason: v.reason || undefined }))

/** setUserRole changes a role, with a reason. */
export const setUserRole = async (v: { id: string; role: Role; reason: string }) =>
  unwrap(await supabase().rpc('admin_set_user_role', { p_user_id: v.id, p_role: v.role, p_reason: v.reason }))

/** adjustWallet credits (positive) or debits (negative) a wallet through the ledger. */
export const adjustWallet = async (v: { id: string; amount: number; reason: string }) =>
  unwrap(await supabase().rpc('admin_adjust_wallet', { p_user_id: v.id, p_amount: v.amount, p_reason: v.reason }))
