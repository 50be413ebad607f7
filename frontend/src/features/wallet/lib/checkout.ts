// Checkout breakdown of spec section 5 and 9.

/** VAT_RATE is Nigeria's value-added tax applied to the base amount. */
export const VAT_RATE = 0.075
/** PROCESSING_FEE is the flat naira fee added to every card checkout. */
export const PROCESSING_FEE = 1000
/** VERIFICATION_FEE is the base price of the one-year verification badge. */
export const VERIFICATION_FEE = 60000
/** MIN_CASHOUT is the smallest cash-out an artist can request. */
export const MIN_CASHOUT = 1000
/** LOW_BALANCE_THRESHOLD marks a sponsor wallet as running low. */
export const LOW_BALANCE_THRESHOLD = 100

/** CheckoutBreakdown is what the checkout screen lists line by line. */
export interface CheckoutBreakdown {
  base: number
  vat: number
  fee: number
  total: number
}

/** checkoutBreakdown adds VAT (7.5% of the base, rounded to whole naira) and the flat fee. */
export function checkoutBreakdown(base: number): CheckoutBreakdown {
  const b = Math.max(0, base)
  const vat = Math.round(b * VAT_RATE)
  return { base: b, vat, fee: PROCESSING_FEE, total: b + vat + PROCESSING_FEE }
}

/** VERIFICATION_RENEWAL_DAYS: a verification can be bought again only in its last days (verification_renewal_days, this when it cannot be read; the database decides). */
export const VERIFICATION_RENEWAL_DAYS = 30

/** VerificationState is what the profile says about its verification, with the renewal window (verification_renewal_days). */
export interface VerificationState {
  is_verified: boolean | null
  verification_expires_at: string | null
  renewal_days?: number
}

/** VerificationOffer says whether the checkout is offered and, when the profile is verified, what to tell the user. */
export type VerificationOffer = { canBuy: true; note: string | null } | { canBuy: false; note: string }

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** lagosDate writes a date as the server's messages do ('12 Mar 2027', on Lagos's calendar). */
export function lagosDate(iso: string): string {
  const parts = new Intl.DateTimeFormat('en', { timeZone: 'Africa/Lagos', day: 'numeric', month: 'numeric', year: 'numeric' }).formatToParts(new Date(iso))
  const part = (t: string) => Number(parts.find((p) => p.type === t)?.value)
  return `${part('day')} ${MONTHS[part('month') - 1]} ${part('year')}`
}

/**
 * verificationOffer mirrors the database's rule (backline.verification_blocks_purchase):
 * a verification valid for more than its renewal days, or one without an
 * expiry, is not sold again; a lapsed one is, and so is a renewal in the
 * last days. The server refuses the checkout either way; this keeps the page
 * from offering it.
 */
export function verificationOffer(p: VerificationState | null | undefined, now = new Date()): VerificationOffer {
  if (!p?.is_verified) return { canBuy: true, note: null }
  if (!p.verification_expires_at) return { canBuy: false, note: 'Your profile is already verified.' }
  const expires = new Date(p.verification_expires_at)
  if (expires <= now) return { canBuy: true, note: `Your verification expired on ${lagosDate(p.verification_expires_at)}.` }
  const days = p.renewal_days ?? VERIFICATION_RENEWAL_DAYS
  if (expires.getTime() > now.getTime() + days * 86_400_000) {
    return {
      canBuy: false,
      note: `Your verification is active until ${lagosDate(p.verification_expires_at)}. You can renew it in its last ${days} days.`,
    }
  }
  return { canBuy: true, note: `Your verification ends on ${lagosDate(p.verification_expires_at)}. Renew it now for another year.` }
}
