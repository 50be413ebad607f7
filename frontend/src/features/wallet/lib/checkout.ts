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
