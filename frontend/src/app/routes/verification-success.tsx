import { useState } from 'react'
import { Link, Navigate, useLocation } from 'react-router'
import { BadgeCheck } from 'lucide-react'
import { PageFallback } from '@/components/layouts/app-shell'
import { Button } from '@/components/ui/button'
import { dashboardPath } from '@/config/nav'
import { useAuthStore } from '@/lib/auth'
import { useVerificationPayment } from '@/features/wallet/api/verification'
import { checkoutReference, successView } from '@/features/wallet/lib/verification'

/**
 * VerificationSuccessPage is where the verification checkout returns. It
 * thanks only someone whose verification payment succeeded (read from the
 * payment itself; the app shell confirms it with the provider meanwhile);
 * anyone else is sent to /verification.
 */
export default function VerificationSuccessPage() {
  const role = useAuthStore((s) => s.role)
  const userId = useAuthStore((s) => s.user?.id)
  const { search } = useLocation()
  // The reference is read once: the app shell clears the query string once it has confirmed the payment.
  const [reference] = useState(() => checkoutReference(search))
  const fromCheckout = reference !== null
  const payment = useVerificationPayment(userId, reference, (p) => successView(p ?? null, fromCheckout, new Date()) === 'confirming')
  if (payment.isPending) return <PageFallback />
  const view = payment.isError ? 'not-paid' : successView(payment.data, fromCheckout, new Date())
  if (view === 'not-paid') return <Navigate to="/verification" replace />
  if (view === 'confirming') {
    return (
      <div className="grid grid-cols-1 justify-items-center gap-4 py-20 text-center" aria-busy="true">
        <div className="size-8 animate-spin rounded-full border-2 border-primary border-t-transparent" />
        <h1 className="text-2xl font-bold">Confirming your payment…</h1>
        <p className="max-w-md text-muted-foreground">This takes a few seconds. Your verified badge appears on your profile as soon as it is confirmed.</p>
        <Link to="/verification" className="text-sm text-primary hover:underline">
          Back to verification
        </Link>
      </div>
    )
  }
  return (
    <div className="grid grid-cols-1 justify-items-center gap-4 py-20 text-center">
      <BadgeCheck className="size-16 text-sky-400" />
      <h1 className="text-2xl font-bold">Thank you!</h1>
      <p className="max-w-md text-muted-foreground">Your payment is confirmed: your profile is verified for one year.</p>
      <Button asChild>
        <Link to={dashboardPath(role)}>Go to Dashboard</Link>
      </Button>
    </div>
  )
}
