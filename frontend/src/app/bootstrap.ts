import { queryOptions, type QueryClient } from '@tanstack/react-query'
import type { Role } from '@/config/nav'
import { fetchRole } from '@/lib/auth'
import { deviceId } from '@/lib/device-id'
import { queryClient } from '@/lib/query-client'
import { ownProfileQueryKey, roleProfileQueryKey, suspensionQueryKey, type RoleProfileExtras, type Suspension } from '@/lib/shell-keys'
import { supabase } from '@/lib/supabase'
import type { PublicProfile } from '@/types/api'
import { unreadCountQueryKey } from '@/features/notifications/api/keys'
import { appSettingsQueryKey, type AppSettings } from '@/features/waitlist/api/settings'

// The app shell's data in one request (rpc get_app_bootstrap,
// sql/app/0018_first_screen.sql): the coming-soon settings, and for a
// signed-in user their role, own profile, role profile extras, suspension
// and unread count; the call also records this device's session (the
// heartbeat's first beat). Its answer seeds the caches the shell's hooks
// read, so none of them asks again on a fresh load; afterwards each
// refetches on its own. The role goes to the auth store, which settles it:
// those hooks wait for that.

/** BootstrapUser is the signed-in part of the bootstrap. */
export interface BootstrapUser {
  id: string
  role: Role | null
  profile: PublicProfile | null
  role_profile: RoleProfileExtras | null
  suspended: boolean
  suspended_reason: string | null
  unread_notifications: number
  session_recorded: boolean
}

/** Bootstrap is get_app_bootstrap's answer. */
export interface Bootstrap {
  settings: { coming_soon: boolean; countdown_target: string | null }
  user: BootstrapUser | null
}

/** BOOTSTRAP_STALE_MS matches the settings' cache: a route's revalidation within it asks nothing. */
const BOOTSTRAP_STALE_MS = 5 * 60_000

/** bootstrapQueryKey is the bootstrap's cache for a user (undefined: a visitor). */
export const bootstrapQueryKey = (userId: string | undefined) => ['bootstrap', userId ?? null] as const

/**
 * seedShell puts the bootstrap's parts into the caches of the hooks that read
 * them. askedAt is when the bootstrap was asked for: a cache written since
 * (a live notification raised the badge while the bootstrap was in flight)
 * is newer than the bootstrap's answer, so it is read again instead of
 * overwritten.
 */
export function seedShell(qc: QueryClient, b: Bootstrap, askedAt = Number.POSITIVE_INFINITY) {
  qc.setQueryData<AppSettings>(appSettingsQueryKey, {
    comingSoon: b.settings.coming_soon === true,
    countdownTarget: typeof b.settings.countdown_target === 'string' ? b.settings.countdown_target : '',
  })
  const u = b.user
  if (!u) return
  qc.setQueryData(ownProfileQueryKey(u.id), u.profile)
  qc.setQueryData<Suspension>(suspensionQueryKey(u.id), { suspended: u.suspended, reason: u.suspended ? u.suspended_reason : null })
  const unread = unreadCountQueryKey(u.id)
  if ((qc.getQueryState(unread)?.dataUpdatedAt ?? 0) > askedAt) void qc.invalidateQueries({ queryKey: unread, exact: true })
  else qc.setQueryData(unread, Number(u.unread_notifications))
  if (u.role && u.role !== 'admin') qc.setQueryData(roleProfileQueryKey(u.id, u.role), u.role_profile)
}

/** bootstrapQueryOptions reads the bootstrap as the current session and seeds the shell's caches. */
export const bootstrapQueryOptions = (userId: string | undefined) =>
  queryOptions({
    queryKey: bootstrapQueryKey(userId),
    staleTime: BOOTSTRAP_STALE_MS,
    // A failure falls back at once to the separate reads (loadShell).
    retry: 0,
    queryFn: async ({ client }) => {
      // Only a signed-in user has a session to record.
      const session = userId ? { p_session_id: deviceId(), p_device_info: navigator.userAgent } : {}
      const askedAt = Date.now()
      const { data, error } = await supabase().rpc('get_app_bootstrap', session)
      if (error) throw error
      const b = data as unknown as Bootstrap
      seedShell(client, b, askedAt)
      return b
    },
  })

/** prefetchBootstrap starts the bootstrap for the stored session (the root route's loader), in parallel with the page's code. */
export async function prefetchBootstrap() {
  const { data } = await supabase().auth.getSession()
  await queryClient.prefetchQuery(bootstrapQueryOptions(data.session?.user.id))
}

/**
 * loadShell brings the shell's caches up to date for the session an auth
 * event reported and returns the user's role. The start-up event shares
 * the loader's request; later events (sign-in, token refresh) ask anew, as
 * the role lookup did before. When the bootstrap fails, the role is read on
 * its own and every other cache fetches itself.
 */
export async function loadShell(userId: string | undefined, startup: boolean): Promise<Role | null> {
  if (!userId && !startup) return null
  try {
    const b = await queryClient.fetchQuery({ ...bootstrapQueryOptions(userId), staleTime: startup ? BOOTSTRAP_STALE_MS : 0 })
    if ((b.user?.id ?? undefined) === userId) return b.user?.role ?? null
  } catch (e) {
    console.warn('app bootstrap', (e as Error).message)
  }
  return userId ? fetchRole(userId) : null
}

/** sessionRecorded reports whether the user's bootstrap recorded this device's session. */
export const sessionRecorded = (userId: string | undefined) =>
  !!userId && queryClient.getQueryData<Bootstrap>(bootstrapQueryKey(userId))?.user?.session_recorded === true
