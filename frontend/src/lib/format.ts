// Number and money formatting of spec section 5 and 9.

/**
 * abbreviateNumber shortens counts for cards and stats: K from 1,000, M from
 * 1,000,000, B from 1,000,000,000, with one decimal ("1.5K"). A trailing ".0"
 * is dropped ("2K"). Smaller numbers are shown as they are.
 */
export function abbreviateNumber(n: number): string {
  if (!Number.isFinite(n)) return '0'
  const sign = n < 0 ? '-' : ''
  const a = Math.abs(n)
  const units: [number, string][] = [
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'K'],
  ]
  for (const [size, suffix] of units) {
    if (a >= size) {
      // Truncate rather than round, so 999,950 shows 999.9K and not "1000.0K".
      const v = Math.floor((a / size) * 10) / 10
      return `${sign}${v.toFixed(1).replace(/\.0$/, '')}${suffix}`
    }
  }
  return `${sign}${a}`
}

const nairaFormat = new Intl.NumberFormat('en-NG', {
  minimumFractionDigits: 0,
  maximumFractionDigits: 2,
})

/** formatAmount renders an amount in en-NG grouping with 0 to 2 decimals ("1,234.5"). */
export function formatAmount(amount: number): string {
  return nairaFormat.format(Number.isFinite(amount) ? amount : 0)
}

/** formatNaira prefixes the naira symbol: formatNaira(1500) is "₦1,500". */
export function formatNaira(amount: number): string {
  const s = formatAmount(Math.abs(amount))
  return amount < 0 ? `-₦${s}` : `₦${s}`
}

/** formatDuration renders seconds as m:ss for the player and track cards. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '0:00'
  const s = Math.floor(seconds)
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`
}

/**
 * initials are a name's first letters for an avatar without a photo: the
 * first and last words' ("Kola Ade" is "KA"), one letter for one word, "?"
 * for none.
 */
export function initials(name: string | null | undefined): string {
  const words = (name ?? '').replace(/[^\p{L}\p{N}\s]/gu, ' ').trim().split(/\s+/).filter(Boolean)
  if (words.length === 0) return '?'
  const first = [...words[0]][0]
  const last = words.length > 1 ? [...words[words.length - 1]][0] : ''
  return (first + last).toUpperCase()
}
