// The app's one way to call Studio's endpoints: the session cookie goes by
// itself (same origin), the CSRF token this session was given goes in a
// header, errors come back as ApiError with the server's message.

let csrfToken = ''

/** setCsrfToken keeps the token of the session the app runs in. */
export function setCsrfToken(t: string) {
  csrfToken = t
}

/** ApiError is an endpoint's refusal: its status and body. */
export class ApiError extends Error {
  status: number
  body: Record<string, unknown>
  constructor(status: number, body: Record<string, unknown>) {
    super(String(body.error ?? body.message ?? body.msg ?? `HTTP ${status}`))
    this.status = status
    this.body = body
  }
}

/** headers are what every call sends. */
export function headers(extra?: HeadersInit): Headers {
  const h = new Headers(extra)
  if (csrfToken) h.set('X-CSRF-Token', csrfToken)
  return h
}

/** api calls an endpoint; json is sent as the body. */
export async function api<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const { json, ...rest } = init
  const h = headers(rest.headers)
  if (json !== undefined) h.set('Content-Type', 'application/json')
  const res = await fetch(path, { ...rest, headers: h, credentials: 'same-origin', body: json !== undefined ? JSON.stringify(json) : rest.body })
  const text = await res.text()
  let body: unknown = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    body = { error: text }
  }
  if (!res.ok) throw new ApiError(res.status, (body ?? {}) as Record<string, unknown>)
  return body as T
}

export type Operator = { id: string; email: string }
export type Session = { operator: Operator; csrf_token: string; open: boolean }

/** loadSession returns the session, or null when Studio asks to sign in. */
export async function loadSession(): Promise<Session | null> {
  try {
    const s = await api<Session>('/api/session')
    setCsrfToken(s.csrf_token)
    return s
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) return null
    throw e
  }
}

/** signIn opens a session with an operator's email and password. */
export async function signIn(email: string, password: string): Promise<Session> {
  const s = await api<Session>('/api/session', { method: 'POST', json: { email, password } })
  setCsrfToken(s.csrf_token)
  return s
}

/** signOut ends the session. */
export async function signOut() {
  await api('/api/session', { method: 'DELETE' })
  setCsrfToken('')
}
