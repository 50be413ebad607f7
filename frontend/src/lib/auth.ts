import type { Session, User } from '@supabase/supabase-js'
import { create } from 'zustand'
import type { Role } from '@/config/nav'
import { supabase } from '@/lib/supabase'

// The auth session mirror of spec section 4, fed by the single
// onAuthStateChange listener in app/provider.tsx. Server data about the user
// (profile, suspension) stays in TanStack Query.

interface AuthState {
  user: User | null
  session: Session | null
  role: Role | null
  /** roleFor is the user id the role was fetched for; the role is settled when it equals user.id. */
  roleFor: string | null
  /** loading is true until the stored session has been read at startup. */
  loading: boolean
  /** recovering is set by the PASSWORD_RECOVERY event. */
  recovering: boolean
  /** sessionRead is true once the stored session has been read: until then nobody is known to be signed out. */
  sessionRead: boolean
  /** signedOutFrom is the history entry (location key) a sign-out started on, until the next sign-in. */
  signedOutFrom: string | null
  setSession: (s: Session | null) => void
  setRole: (r: Role | null, userId: string | null) => void
  setLoading: (l: boolean) => void
  setRecovering: (r: boolean) => void
  setSignedOutFrom: (key: string | null) => void
  clear: () => void
}

/** useAuthStore holds the signed-in user, session and role. */
export const useAuthStore = create<AuthState>((set) => ({
  user: null,
  session: null,
  role: null,
  roleFor: null,
  loading: true,
  recovering: false,
  sessionRead: false,
  signedOutFrom: null,
  setSession: (session) => set({ session, user: session?.user ?? null, sessionRead: true, ...(session ? { signedOutFrom: null } : {}) }),
  setRole: (role, roleFor) => set({ role, roleFor }),
  setLoading: (loading) => set({ loading }),
  setRecovering: (recovering) => set({ recovering }),
  setSignedOutFrom: (signedOutFrom) => set({ signedOutFrom }),
  // Sign-out clears user, session and role at once.
  clear: () => set({ user: null, session: null, role: null, roleFor: null }),
}))

const roles: readonly string[] = ['fan', 'artist', 'sponsor', 'admin']
const asRole = (r: unknown): Role | null => (typeof r === 'string' && roles.includes(r) ? (r as Role) : null)

/**
 * fetchRole reads the role from public_profiles; when no row is found
 * (PGRST116) or the row has no role it reads user_roles; otherwise null.
 */
export async function fetchRole(userId: string): Promise<Role | null> {
  const sb = supabase()
  const { data, error } = await sb.from('public_profiles').select('role').eq('id', userId).single()
  if (!error && asRole(data?.role)) return asRole(data?.role)
  if (error && error.code !== 'PGRST116') {
    console.warn('role lookup failed', error.message)
  }
  const fallback = await sb.from('user_roles').select('role').eq('user_id', userId).single()
  if (fallback.error) return null
  return asRole(fallback.data?.role)
}

/** ROLE_WAIT_MS bounds how long settledRole waits for the auth listener before reading the role itself. */
export const ROLE_WAIT_MS = 10_000

/**
 * settledRole resolves with a user's role once the auth listener has
 * settled it (it reads it with the app shell's data after every sign-in),
 * so a sign-in form need not ask again; after ROLE_WAIT_MS it reads it
 * itself.
 */
export function settledRole(userId: string): Promise<Role | null> {
  return new Promise((resolve) => {
    let done = false
    const finish = (role: Role | null) => {
      if (done) return
      done = true
      unsubscribe()
      clearTimeout(timer)
      resolve(role)
    }
    const check = (s: AuthState) => s.roleFor === userId && finish(s.role)
    const unsubscribe = useAuthStore.subscribe(check)
    const timer = setTimeout(() => void fetchRole(userId).then(finish), ROLE_WAIT_MS)
    check(useAuthStore.getState())
  })
}

/** useRoleSettled reports whether the role lookup for the current user has finished. */
export const useRoleSettled = () => useAuthStore((s) => !s.user || s.roleFor === s.user.id)
