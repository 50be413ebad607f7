// Admin filters live in the URL's query string, so every list view (and a
// detail panel) is deep-linkable and survives a reload.

/** readParams reads the given keys from the query string ('' when absent). */
export function readParams<K extends string>(params: URLSearchParams, keys: readonly K[]): Record<K, string> {
  const out = {} as Record<K, string>
  for (const k of keys) out[k] = params.get(k) ?? ''
  return out
}

/** withParams returns a copy of params with the patch applied; empty values remove their key. */
export function withParams(params: URLSearchParams, patch: Record<string, string | null | undefined>): URLSearchParams {
  const next = new URLSearchParams(params)
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined || v === null || v === '') next.delete(k)
    else next.set(k, v)
  }
  return next
}

/** triState maps a 'yes' / 'no' select value to a filter boolean (undefined: any). */
export function triState(v: string): boolean | undefined {
  return v === 'yes' ? true : v === 'no' ? false : undefined
}

/** orUndefined turns '' into undefined, so an rpc argument is left out and its default applies. */
export function orUndefined(v: string): string | undefined {
  return v === '' ? undefined : v
}

// Days are Lagos days (UTC+1 all year, no daylight saving), the business's
// own calendar, whatever the admin's browser zone.
const lagos = '+01:00'

/** dayStart is the instant a YYYY-MM-DD day starts in Lagos, or undefined. */
export function dayStart(day: string): string | undefined {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? new Date(`${day}T00:00:00${lagos}`).toISOString() : undefined
}

/** dayEnd is the instant after a YYYY-MM-DD day ends in Lagos (an exclusive bound), or undefined. */
export function dayEnd(day: string): string | undefined {
  const start = dayStart(day)
  return start === undefined ? undefined : new Date(new Date(start).getTime() + 86_400_000).toISOString()
}

/** isUuid tells a pasted user id from a search text. */
export function isUuid(s: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s.trim())
}
