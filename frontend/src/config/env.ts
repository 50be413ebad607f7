// The runtime config comes from Basalt's app server: /env.js sets
// window.__BASALT_CONFIG__ = {supabaseUrl, supabaseAnonKey} and /config.json
// serves the same object, so one build runs against any Basalt. The older
// window.__BASALT_ENV__ = {SUPABASE_URL, SUPABASE_ANON_KEY} shape is accepted
// too. The Vite dev server falls back to VITE_* variables.

/** Env is the validated runtime configuration. */
export interface Env {
  SUPABASE_URL: string
  SUPABASE_ANON_KEY: string
}

// A hand-written check keeps a schema library out of the entry bundle.
const EnvSchema = {
  safeParse(v: unknown): { success: true; data: Env } | { success: false } {
    const o = (v ?? {}) as Partial<Env>
    try {
      if (typeof o.SUPABASE_URL === 'string' && /^https?:$/.test(new URL(o.SUPABASE_URL).protocol) && typeof o.SUPABASE_ANON_KEY === 'string' && o.SUPABASE_ANON_KEY.length > 0) {
        return { success: true, data: { SUPABASE_URL: o.SUPABASE_URL, SUPABASE_ANON_KEY: o.SUPABASE_ANON_KEY } }
      }
    } catch {
      // Not a URL.
    }
    return { success: false }
  },
}

/** RuntimeConfig is the app server's /config.json body. */
interface RuntimeConfig {
  supabaseUrl?: string
  supabaseAnonKey?: string
  supabasePublishableKey?: string
}

declare global {
  interface Window {
    __BASALT_CONFIG__?: RuntimeConfig
    __BASALT_ENV__?: Partial<Env>
  }
}

/** normalise accepts either runtime config shape. */
export function normalise(raw: unknown): Partial<Env> | undefined {
  if (!raw || typeof raw !== 'object') return undefined
  const o = raw as RuntimeConfig & Partial<Env>
  return { SUPABASE_URL: o.SUPABASE_URL ?? o.supabaseUrl, SUPABASE_ANON_KEY: o.SUPABASE_ANON_KEY ?? o.supabaseAnonKey }
}

let current: Env | null = null

/** loadEnv resolves the runtime config once, before the app renders. */
export async function loadEnv(): Promise<Env> {
  if (current) return current
  let raw = normalise(window.__BASALT_CONFIG__) ?? normalise(window.__BASALT_ENV__)
  if (!raw?.SUPABASE_URL && import.meta.env.VITE_SUPABASE_URL) {
    raw = { SUPABASE_URL: import.meta.env.VITE_SUPABASE_URL, SUPABASE_ANON_KEY: import.meta.env.VITE_SUPABASE_ANON_KEY }
  }
  if (!raw?.SUPABASE_URL) {
    try {
      const res = await fetch('/config.json', { cache: 'no-store' })
      if (res.ok) raw = normalise(await res.json())
    } catch {
      // Offline start: the service worker has no config; the checks below report it.
    }
  }
  const parsed = EnvSchema.safeParse(raw ?? {})
  if (!parsed.success) throw new Error('Backline is missing its runtime configuration (SUPABASE_URL, SUPABASE_ANON_KEY).')
  current = parsed.data
  try {
    // Remember the last good config so the installed app can start offline.
    localStorage.setItem('backline-env', JSON.stringify(current))
  } catch {
    // Storage may be unavailable in private modes.
  }
  return current
}

/** cachedEnv returns the config remembered from the last online start, if any. */
export function cachedEnv(): Env | null {
  try {
    const parsed = EnvSchema.safeParse(JSON.parse(localStorage.getItem('backline-env') ?? 'null'))
    return parsed.success ? parsed.data : null
  } catch {
    return null
  }
}

/** env returns the loaded config; loadEnv must have resolved first. */
export function env(): Env {
  if (!current) throw new Error('env() called before loadEnv()')
  return current
}

/** setEnv installs a config (used for the offline fallback). */
export function setEnv(e: Env) {
  current = e
}
