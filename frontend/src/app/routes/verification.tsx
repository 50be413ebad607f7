import { useState } from 'react'
import { BadgeCheck } from 'lucide-react'
import { toast } from 'sonner'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Skeleton } from '@/components/ui/skeleton'
import { useAuthStore } from '@/lib/auth'
import { formatNaira } from '@/lib/format'
import { supabase } from '@/lib/supabase'
import { KycCard } from '@/features/studio/components/kyc-card'
import { useVerificationState } from '@/features/wallet/api/wallet'
import { checkoutBreakdown, VERIFICATION_FEE, verificationOffer } from '@/features/wallet/lib/checkout'

/** VerificationPage sells the one-year verified badge to artists and sponsors; artists also submit their KYC here. */
export default function VerificationPage() {
  const role = useAuthStore((s) => s.role)
  const userId = useAuthStore((s) => s.user?.id)
  const state = useVerificationState(role === 'fan' ? undefined : userId)
  // Not offered while a verification runs beyond its renewal days (the server refuses it too).
  const offer = state.data ? verificationOffer(state.data) : null
  const [busy, setBusy] = useState(false)
  const b = checkoutBreakdown(VERIFICATION_FEE)
  const pay = async () => {
    setBusy(true)
    const { data, error } = await supabase().functions.invoke('create-payment', { body: { provider: 'flutterwave', purpose: 'verification' } })
    setBusy(false)
    if (error || !data?.checkout_url) {
      toast.error('Could not start payment', { description: data?.error ?? 'Please try again.' })
      return
    }
    window.location.assign(data.checkout_url as string)
  }
  if (role === 'fan') {
    return (
      <div className="py-12 text-center">
        <h1 className="text-2xl font-bold">Verification</h1>
        <p className="mt-2 text-muted-foreground">Verification is for artists and sponsors.</p>
      </div>
    )
  }
  return (
    <div className="mx-auto max-w-lg py-6">
      <Card>
        <CardHeader>
          <CardTitle as="h1" className="flex items-center gap-2 text-2xl">
            <BadgeCheck className="text-sky-400" /> Get verified
          </CardTitle>
          <CardDescription>A verified badge shows fans and partners your account is authentic. It lasts one year.</CardDescription>
        </CardHeader>
        <CardContent className="grid grid-cols-1 gap-4">
          {offer?.note && (
            <p className="rounded-md bg-sky-500/15 p-3 text-sm" data-testid="verification-state">
              {offer.note}
            </p>
          )}
          <dl className="grid grid-cols-1 gap-2 text-sm" data-testid="checkout-breakdown">
            <div className="flex justify-between">
              <dt>Verification fee</dt>
              <dd>{formatNaira(b.base)}</dd>
            </div>
            <div className="flex justify-between">
              <dt>VAT (7.5%)</dt>
              <dd>{formatNaira(b.vat)}</dd>
            </div>
            <div className="flex justify-between">
              <dt>Processing fee</dt>
              <dd>{formatNaira(b.fee)}</dd>
            </div>
            <div className="flex justify-between border-t border-border pt-2 font-semibold">
              <dt>Total</dt>
              <dd>{formatNaira(b.total)}</dd>
            </div>
          </dl>
          {/* Paying is offered only when the database would take the payment. */}
          {state.isPending && <Skeleton className="h-9" />}
          {state.isError && <p className="text-sm text-muted-foreground">Your verification could not be read. Please reload the page.</p>}
          {offer?.canBuy && (
            <Button onClick={() => void pay()} disabled={busy}>
              {busy ? 'Starting checkout...' : `Pay ${formatNaira(b.total)}`}
            </Button>
          )}
        </CardContent>
      </Card>
      {role === 'artist' && userId && (
        <section className="mt-6 grid grid-cols-1 gap-2">
          <h2 className="text-xl font-bold">Identity verification (KYC)</h2>
          <KycCard userId={userId} />
        </section>
      )}
    </div>
  )
}
