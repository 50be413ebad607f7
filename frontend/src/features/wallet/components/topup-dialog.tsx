import { useState } from 'react'
import { CreditCard } from 'lucide-react'
import { toast } from 'sonner'
import { FormField } from '@/components/form-field'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle, DialogTrigger } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { formatNaira } from '@/lib/format'
import { startTopup } from '../api/wallet'
import { checkoutBreakdown } from '../lib/checkout'

/** TopupDialog starts a card checkout; the wallet is credited when the provider confirms (spec section 4). */
export function TopupDialog() {
  const [open, setOpen] = useState(false)
  const [amount, setAmount] = useState('5000')
  const [busy, setBusy] = useState(false)
  const base = Number(amount) || 0
  const b = checkoutBreakdown(base)
  const pay = async (e: React.FormEvent) => {
    e.preventDefault()
    setBusy(true)
    try {
      window.location.assign(await startTopup(base))
    } catch (err) {
      setBusy(false)
      toast.error('Could not start payment', { description: err instanceof Error ? err.message : undefined })
    }
  }
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button>
          <CreditCard /> Top up
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Top up your wallet</DialogTitle>
          <DialogDescription>You pay by card; the amount is credited once the payment is confirmed.</DialogDescription>
        </DialogHeader>
        <form onSubmit={(e) => void pay(e)} className="grid grid-cols-1 gap-3">
          <FormField id="topup-amount" label="Amount (₦)">
            <Input id="topup-amount" inputMode="numeric" value={amount} onChange={(e) => setAmount(e.target.value.replace(/\D/g, ''))} />
          </FormField>
          <dl className="grid grid-cols-1 gap-1 text-sm">
            <div className="flex justify-between">
              <dt>VAT (7.5%)</dt>
              <dd>{formatNaira(b.vat)}</dd>
            </div>
            <div className="flex justify-between">
              <dt>Processing fee</dt>
              <dd>{formatNaira(b.fee)}</dd>
            </div>
            <div className="flex justify-between border-t border-border pt-1 font-semibold">
              <dt>Total</dt>
              <dd>{formatNaira(b.total)}</dd>
            </div>
          </dl>
          <Button type="submit" disabled={busy || base <= 0}>
            {busy ? 'Starting checkout…' : `Pay ${formatNaira(b.total)}`}
          </Button>
        </form>
      </DialogContent>
    </Dialog>
  )
}
