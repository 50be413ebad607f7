// Recent searches stay on the device (localStorage), newest first, each
// once (case-insensitive), at most MAX_RECENT.

const KEY = 'backline:recent-searches'
export const MAX_RECENT = 8

/** recentSearches reads the list; anything unreadable is an empty list. */
export function recentSearches(): string[] {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(KEY) ?? '[]')
    return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string').slice(0, MAX_RECENT) : []
  } catch {
    return []
  }
}

/** rememberSearch puts q first and returns the new list. */
export function rememberSearch(q: string): string[] {
  const text = q.trim()
  if (text.length < 2) return recentSearches()
  const list = [text, ...recentSearches().filter((s) => s.toLowerCase() !== text.toLowerCase())].slice(0, MAX_RECENT)
  try {
    localStorage.setItem(KEY, JSON.stringify(list))
  } catch {
    // Storage full or off: the list is only a convenience.
  }
  return list
}

/** forgetSearches clears the list. */
export function forgetSearches(): void {
  try {
    localStorage.removeItem(KEY)
  } catch {
    // nothing to do
  }
}
