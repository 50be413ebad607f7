// Who has just bought the verified badge. The database decides (the payment
// row says how it ended, a verification row that it granted the badge); these
// rules only choose what the success page says.

/** VerificationPayment is what the success page reads of the user's verification payment. */
export interface VerificationPayment {
  status: string
  purpose: string
  completed_at: string | null
  /** granted: a verification row was created from this payment (not credited to the wallet instead). */
  granted: boolean
}

/** SuccessView is what /verification/success shows. */
export type SuccessView = 'thanks' | 'confirming' | 'not-paid'

/** THANKS_WINDOW_MS is how long after its completion a payment reached without its reference is thanked for. */
export const THANKS_WINDOW_MS = 86_400_000

/**
 * successView decides /verification/success: "Thank you!" only for a
 * verification payment that succeeded and granted the badge (the one the
 * checkout returned with, or, without a reference, one completed in the
 * last day); "confirming" while the payment the checkout returned with is
 * still pending; anything else has not paid for a verification.
 */
export function successView(payment: VerificationPayment | null, fromCheckout: boolean, now: Date): SuccessView {
  if (!payment || payment.purpose !== 'verification') return 'not-paid'
  if (payment.status === 'pending') return fromCheckout ? 'confirming' : 'not-paid'
  if (payment.status !== 'successful' || !payment.granted) return 'not-paid'
  if (fromCheckout) return 'thanks'
  const done = payment.completed_at ? Date.parse(payment.completed_at) : NaN
  return now.getTime() - done <= THANKS_WINDOW_MS ? 'thanks' : 'not-paid'
}

/** checkoutReference is the payment reference a checkout return URL carries (tx_ref, ref or reference), or null. */
export function checkoutReference(search: string): string | null {
  const q = new URLSearchParams(search)
  return q.get('tx_ref') ?? q.get('ref') ?? q.get('reference')
}
