import { queryOptions, useQuery } from '@tanstack/react-query'
import type { AuthError } from '@supabase/supabase-js'
import { env } from '@/config/env'

/** SignInProvider is an external provider the sign-in pages offer. */
export type SignInProvider = 'google' | 'apple'

const SIGN_IN_PROVIDERS: readonly SignInProvider[] = ['google', 'apple']

/** ChosenRole is a role a new account may pick. */
export type ChosenRole = 'fan' | 'artist' | 'sponsor'

/**
 * enabledProviders picks the provider buttons to show from the auth
 * server's GET /auth/v1/settings: only providers switched on there.
 */
export function enabledProviders(settings: unknown): SignInProvider[] {
  const ext = (settings as { external?: Record<string, unknown> } | null)?.external ?? {}
  return SIGN_IN_PROVIDERS.filter((p) => ext[p] === true)
}

/** getAuthSettings reads the auth server's public settings. */
async function getAuthSettings(): Promise<unknown> {
  const { SUPABASE_URL, SUPABASE_ANON_KEY } = env()
  const res = await fetch(`${SUPABASE_URL}/auth/v1/settings`, { headers: { apikey: SUPABASE_ANON_KEY } })
  if (!res.ok) throw new Error(`auth settings: ${res.status}`)
  return res.json()
}

/** authProvidersQueryOptions caches the enabled providers for 5 minutes; none on error. */
export const authProvidersQueryOptions = () =>
  queryOptions({
    queryKey: ['authProviders'],
    queryFn: async () => enabledProviders(await getAuthSettings()),
    staleTime: 5 * 60_000,
    retry: 0,
  })

/** useAuthProviders lists the providers the server has switched on. */
export const useAuthProviders = () => useQuery(authProvidersQueryOptions())

/**
 * providerReturnURL is where a provider sign-in comes back to: the role
 * chooser, which sends known users to their dashboard and lets new ones
 * pick a role (or applies the role picked before leaving).
 */
export function providerReturnURL(origin: string, role?: ChosenRole): string {
  return `${origin}/register${role ? `?role=${role}` : ''}`
}

/** pendingRole reads the role picked before the provider round trip. */
export function pendingRole(search: string): ChosenRole | null {
  const r = new URLSearchParams(search).get('role')
  return r === 'fan' || r === 'artist' || r === 'sponsor' ? r : null
}

/**
 * oauthErrorFromURL reads the error a provider sign-in came back with: the
 * auth server puts error and error_description in the fragment, and in the
 * query too for PKCE flows.
 */
export function oauthErrorFromURL(search: string, hash: string): string | null {
  for (const part of [search, hash.replace(/^#/, '')]) {
    const p = new URLSearchParams(part)
    const message = p.get('error_description') || p.get('error')
    if (message) return message
  }
  return null
}

/** providerLabel names an identity's provider for people. */
export function providerLabel(provider: string): string {
  const names: Record<string, string> = { google: 'Google', apple: 'Apple', email: 'Email', phone: 'Phone', github: 'GitHub', facebook: 'Facebook' }
  return names[provider] ?? provider.replace(/^custom:/, '')
}

/** unlinkMessage explains why an identity could not be unlinked. */
export function unlinkMessage(error: Pick<AuthError, 'code' | 'message'>): string {
  switch (error.code) {
    case 'single_identity_not_deletable':
      return 'Keep at least one way to sign in.'
    case 'manual_linking_disabled':
      return 'Linking and unlinking sign-in methods is not enabled on this server.'
    case 'identity_not_found':
      return 'That sign-in method is no longer linked.'
    case 'email_conflict_identity_not_deletable':
      return 'Another account uses the email address this would leave you with.'
  }
  return error.message
}
