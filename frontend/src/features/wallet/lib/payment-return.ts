// Payment return-URL classification of spec section 4 ("Payment return handling").

/** PaymentReturn says which verification a return URL asks for, if any. */
export type PaymentReturn =
  | { kind: 'none' }
  | { kind: 'flutterwave'; reference: string; status: string | null; verification: boolean }
  | { kind: 'paystack'; reference: string; verification: false }

/**
 * classifyPaymentReturn reads a return URL. tx_ref, or a ref prefixed flw- or
 * accompanied by gateway=flutterwave, goes to the first provider; a plain ref
 * that starts with neither flw- nor verification- is a wallet top-up verified by
 * the second provider. Anything else needs no verification.
 */
export function classifyPaymentReturn(href: string): PaymentReturn {
  const url = new URL(href, 'http://localhost')
  const q = url.searchParams
  const txRef = q.get('tx_ref')
  const ref = q.get('ref') ?? q.get('reference')
  const status = q.get('status')
  const isFlw = (r: string) => r.startsWith('flw-') || q.get('gateway') === 'flutterwave'
  const reference = txRef ?? (ref && isFlw(ref) ? ref : null)
  if (reference) {
    return { kind: 'flutterwave', reference, status, verification: isVerificationPayment(url, reference) }
  }
  if (ref && !ref.startsWith('flw-') && !ref.startsWith('verification-')) {
    return { kind: 'paystack', reference: ref, verification: false }
  }
  return { kind: 'none' }
}

/** isVerificationPayment: verification=true, a /verification/success path, or a verification- reference. */
export function isVerificationPayment(url: URL, reference: string): boolean {
  return (
    url.searchParams.get('verification') === 'true' ||
    url.pathname.startsWith('/verification/success') ||
    reference.startsWith('verification-')
  )
}

/** isSuccessfulStatus: the first provider's status must be successful or completed. */
export function isSuccessfulStatus(status: string | null): boolean {
  return status === null || status === 'successful' || status === 'completed'
}

const VERIFIED_KEY = 'verified_payment_refs'

/**
 * markReferenceVerified records a reference in session storage and reports
 * whether it was new, so each reference is verified once per session.
 */
export function markReferenceVerified(reference: string, store: Storage = sessionStorage): boolean {
  let refs: string[] = []
  try {
    refs = JSON.parse(store.getItem(VERIFIED_KEY) ?? '[]') as string[]
  } catch {
    refs = []
  }
  if (refs.includes(reference)) return false
  store.setItem(VERIFIED_KEY, JSON.stringify([...refs, reference]))
  return true
}
