// GoTrue's admin API as Studio calls it: Studio's server forwards these
// paths to the API in process with the service-role key.
import { ApiError, api, headers } from '@/lib/api'

export type Identity = { identity_id?: string; id: string; provider: string; email?: string; created_at?: string; last_sign_in_at?: string }
export type Factor = { id: string; friendly_name?: string; factor_type: string; status: string; created_at?: string }
export type User = {
  id: string
  email?: string
  phone?: string
  role?: string
  created_at?: string
  last_sign_in_at?: string | null
  email_confirmed_at?: string | null
  confirmed_at?: string | null
  invited_at?: string | null
  banned_until?: string | null
  is_anonymous?: boolean
  app_metadata?: { provider?: string; providers?: string[] }
  user_metadata?: Record<string, unknown>
  identities?: Identity[]
  factors?: Factor[]
}
export type AuthSession = {
  id: string
  created_at: string
  updated_at?: string
  refreshed_at?: string | null
  not_after?: string | null
  aal?: string
  user_agent?: string
  ip?: string
  live_refresh_tokens: number
}

export const perPage = 25

/** listUsers reads one page of users, with the total from X-Total-Count. */
export async function listUsers(page: number, filter: string): Promise<{ users: User[]; total: number }> {
  const q = new URLSearchParams({ page: String(page), per_page: String(perPage) })
  if (filter) q.set('filter', filter)
  const res = await fetch(`/auth/v1/admin/users?${q}`, { headers: headers(), credentials: 'same-origin' })
  const body = await res.json().catch(() => ({}))
  if (!res.ok) throw new ApiError(res.status, body)
  return { users: body.users ?? [], total: Number(res.headers.get('X-Total-Count') ?? body.users?.length ?? 0) }
}

export const getUser = (id: string) => api<User>(`/auth/v1/admin/users/${id}`)
export const createUser = (b: { email: string; password?: string; email_confirm: boolean }) => api<User>('/auth/v1/admin/users', { method: 'POST', json: b })
export const inviteUser = (email: string) => api<User>('/auth/v1/invite', { method: 'POST', json: { email } })
export const sendRecovery = (email: string) => api('/auth/v1/recover', { method: 'POST', json: { email } })
/** setBan bans for a Go duration ("24h", "876000h"), or lifts it with "none". */
export const setBan = (id: string, duration: string) => api<User>(`/auth/v1/admin/users/${id}`, { method: 'PUT', json: { ban_duration: duration } })
export const deleteUser = (id: string) => api(`/auth/v1/admin/users/${id}`, { method: 'DELETE' })
export const listFactors = (id: string) => api<Factor[]>(`/auth/v1/admin/users/${id}/factors`)
export const deleteFactor = (id: string, fid: string) => api(`/auth/v1/admin/users/${id}/factors/${fid}`, { method: 'DELETE' })
export const listSessions = (id: string) => api<AuthSession[]>(`/api/auth/users/${id}/sessions`)
export const revokeSession = (id: string, sid: string) => api(`/api/auth/users/${id}/sessions/${sid}`, { method: 'DELETE' })

/** banned says whether a user is banned now. */
export function banned(u: User): boolean {
  return !!u.banned_until && Date.parse(u.banned_until) > Date.now()
}

/** when formats a timestamp for a table cell. */
export function when(t?: string | null): string {
  if (!t) return '—'
  const d = new Date(t)
  return Number.isNaN(d.getTime()) ? t : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' })
}
