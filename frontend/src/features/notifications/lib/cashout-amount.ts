// Cash-out notification amount display rule of spec section 5.

/**
 * cashoutDisplayAmount returns the naira amount a cash-out notification shows.
 * Amounts below 10 were stored in major units by older writers and are
 * multiplied by 100; a missing amount is read from the message text after the
 * currency symbol ("₦2,500.00 has been ..."). Returns null when neither yields a number.
 */
export function cashoutDisplayAmount(amount: unknown, message: string | null | undefined): number | null {
  const n = typeof amount === 'string' ? Number(amount) : typeof amount === 'number' ? amount : NaN
  if (amount !== null && amount !== undefined && amount !== '' && Number.isFinite(n)) {
    return n < 10 ? n * 100 : n
  }
  const m = /₦\s*([\d,]+(?:\.\d+)?)/.exec(message ?? '')
  if (!m) return null
  const parsed = Number(m[1].replace(/,/g, ''))
  return Number.isFinite(parsed) ? parsed : null
}
