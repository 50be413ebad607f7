import { useEffect } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { useQueryClient } from '@tanstack/react-query'
import { toast } from '@/lib/toast'
import { useAuthStore } from '@/lib/auth'
import { formatAmount } from '@/lib/format'
import { supabase } from '@/lib/supabase'
import { classifyPaymentReturn, isSuccessfulStatus, markReferenceVerified } from '@/features/wallet/lib/payment-return'

/**
 * PaymentReturn verifies a card payment when the provider sends the user back
 * (spec section 4, "Payment return handling"), once per reference per
 * session, then clears the query string.
 */
export function PaymentReturn() {
  const location = useLocation()
  const navigate = useNavigate()
  const qc = useQueryClient()
  const userId = useAuthStore((s) => s.user?.id)
  useEffect(() => {
    if (!userId || !location.search) return
    const ret = classifyPaymentReturn(location.pathname + location.search)
    if (ret.kind === 'none' || !markReferenceVerified(ret.reference)) return
    // Clears the query string of wherever the app is now (a redirect may have moved on).
    const clear = () => {
      if (window.location.search) navigate({ pathname: window.location.pathname, search: '' }, { replace: true })
    }
    const sb = supabase()
    const refresh = () => ['artistWallet', 'sponsorWallet', 'transactions', 'ownProfile', 'verification'].forEach((k) => qc.invalidateQueries({ queryKey: [k] }))

    void (async () => {
      try {
        if (ret.kind === 'flutterwave') {
          if (!isSuccessfulStatus(ret.status)) {
            toast.error('Payment Failed', { description: `Payment was not successful: ${ret.status}` })
            return
          }
          const { data, error } = await sb.functions.invoke('flutterwave-verify', {
            body: { action: 'verify', tx_ref: ret.reference, userId, verification: ret.verification },
          })
          if (error) {
            toast.error('Verification Failed', { description: 'Failed to verify payment. Please contact support with your reference number.' })
            return
          }
          if (data?.data?.session_mismatch) {
            toast.error('Session Mismatch', { description: "Please ensure you're logged in with the same account that started the payment." })
            setTimeout(() => toast.info('Troubleshooting Tip: log out and back in, then check transaction history or contact support.'), 3000)
            return
          }
          if (!data?.success) {
            toast.error('Verification Failed', { description: data?.message || data?.error_detail || 'Failed to verify payment. Please contact support with your reference number.' })
            return
          }
          refresh()
          // A verification paid while one was already valid went to the wallet; the server says so.
          if (data?.data?.credited_to_wallet) toast.info(data.message)
          else if (ret.verification) toast.success('Verification successful! Your profile has been verified for 1 year.')
          else toast.success(`Wallet top-up successful! ₦${formatAmount(Number(data?.data?.amount ?? 0))} has been added to your wallet.`)
        } else {
          const { data, error } = await sb.functions.invoke('paystack-verify', { body: { reference: ret.reference, userId, verification: false } })
          if (!error && (data?.status === true || data?.status === 'success')) {
            refresh()
            toast.success('Payment successful! Your wallet has been topped up.')
          } else {
            toast.error(data?.message || 'Payment verification failed. Please contact support.')
          }
        }
      } catch {
        toast.error('Error', { description: 'An unexpected error occurred while verifying your payment. Please contact support.' })
      } finally {
        clear()
      }
    })()
  }, [userId, location.pathname, location.search, navigate, qc])
  return null
}
