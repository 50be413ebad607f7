// The rules of the consent page and the Connected apps list: what each
// OAuth scope lets an app see, where the browser may be sent, and how an
// authorization's answer is read.

/** ScopeInfo is one permission as the consent page words it. */
export type ScopeInfo = { scope: string; label: string }

// What an app sees with each scope the server grants (auth/README.md).
const SCOPE_LABELS: Record<string, string> = {
  openid: 'Confirm who you are on Backline',
  email: 'See your email address',
  profile: 'See your name and profile picture',
  phone: 'See your phone number',
  offline_access: 'Stay connected when you are not using it',
}

/**
 * scopeList turns a space-separated scope string (or a grant's scope
 * array) into the permissions to show, in order, without repeats; a scope
 * Backline does not know is shown as it is named.
 */
export function scopeList(scope: string | string[] | null | undefined): ScopeInfo[] {
  const names = Array.isArray(scope) ? scope : (scope ?? '').split(/\s+/)
  const seen = new Set<string>()
  const out: ScopeInfo[] = []
  for (const s of names) {
    if (!s || seen.has(s)) continue
    seen.add(s)
    out.push({ scope: s, label: SCOPE_LABELS[s] ?? s })
  }
  return out
}

/**
 * appHost is where an app sends people back, shown on the consent page so
 * the fan can tell whom they are trusting: the host of a web address, the
 * whole address of an installed app's (myapp://callback), "" when it does
 * not parse.
 */
export function appHost(uri: string | null | undefined): string {
  if (!uri) return ''
  try {
    const u = new URL(uri)
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.host : uri
  } catch {
    return ''
  }
}

/**
 * safeNext accepts a path to return to after signing in only when it
 * stays on this site: one leading slash, no scheme, no backslash tricks.
 */
export function safeNext(next: string | null | undefined): string | null {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.includes('\\')) return null
  try {
    const u = new URL(next, 'https://backline.invalid')
    return u.origin === 'https://backline.invalid' ? u.pathname + u.search : null
  } catch {
    return null
  }
}

/** consentPath is the consent page of an authorization (the login's `next`). */
export function consentPath(authorizationId: string): string {
  return `/oauth/consent?authorization_id=${encodeURIComponent(authorizationId)}`
}

/** Decision is how an authorization's details answer reads. */
export type Decision =
  | { kind: 'ask'; authorizationId: string; clientName: string; clientUri: string; logoUri: string; redirectHost: string; email: string; scopes: ScopeInfo[] }
  | { kind: 'redirect'; url: string }

type Details = {
  authorization_id?: string
  redirect_uri?: string
  client?: { name?: string; uri?: string; logo_uri?: string }
  user?: { email?: string }
  scope?: string
  redirect_url?: string
}

/**
 * readDetails reads getAuthorizationDetails' answer: the page asks the
 * fan, or (an app they already allowed these scopes) goes straight back.
 * A redirect is followed only to an http(s) address.
 */
export function readDetails(d: Details): Decision | null {
  if (d.redirect_url) return isWebURL(d.redirect_url) ? { kind: 'redirect', url: d.redirect_url } : null
  if (!d.authorization_id) return null
  return {
    kind: 'ask',
    authorizationId: d.authorization_id,
    clientName: d.client?.name?.trim() || 'An app',
    clientUri: isWebURL(d.client?.uri) ? d.client!.uri! : '',
    logoUri: d.client?.logo_uri && /^https:\/\//.test(d.client.logo_uri) ? d.client.logo_uri : '',
    redirectHost: appHost(d.redirect_uri),
    email: d.user?.email ?? '',
    scopes: scopeList(d.scope),
  }
}

function isWebURL(u: string | null | undefined): boolean {
  if (!u) return false
  try {
    const p = new URL(u).protocol
    return p === 'https:' || p === 'http:'
  } catch {
    return false
  }
}

/** consentErrorMessage words a failed details or decision call for the fan. */
export function consentErrorMessage(err: { code?: string; status?: number; message: string }): string {
  if (err.code === 'oauth_authorization_not_found' || err.status === 404) {
    return 'This request has expired or was already answered. Go back to the app and try again.'
  }
  if (err.code === 'validation_failed') return 'This request can no longer be answered. Go back to the app and try again.'
  return err.message
}
