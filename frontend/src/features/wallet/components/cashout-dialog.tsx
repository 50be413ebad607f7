import { useState } from 'react'
import { Banknote } from 'lucide-react'
import { toast } from 'sonner'
import { FormField } from '@/components/form-field'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle, DialogTrigger } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { formatNaira } from '@/lib/format'
import { useBanks, useRequestCashout } from '../api/wallet'
import { canCashOut, validateCashout, type CashoutErrors } from '../lib/cashout'

/** CashoutDialog requests a cash-out of at least the minimum and at most the available balance. */
export function CashoutDialog({ available, minimum }: { available: number; minimum: number }) {
  const [open, setOpen] = useState(false)
  const banks = useBanks(open)
  const request = useRequestCashout()
  const [amount, setAmount] = useState('')
  const [bank, setBank] = useState('')
  const [accountNumber, setAccountNumber] = useState('')
  const [accountName, setAccountName] = useState('')
  const [errors, setErrors] = useState<CashoutErrors>({})
  const enabled = canCashOut(available, minimum)
  const submit = (e: React.FormEvent) => {
    e.preventDefault()
    const v = { amount: Number(amount), bank, accountNumber, accountName }
    const errs = validateCashout(v, available, minimum, banks.data ?? [])
    setErrors(errs)
    if (Object.keys(errs).length) return
    request.mutate(v, {
      onSuccess: (r) => {
        toast.success('Cash-out requested', { description: `${formatNaira(Number(r.amount))} is held until the transfer is made.` })
        setOpen(false)
        setAmount('')
      },
      // The database's word wins (e.g. a request from another tab took the balance).
      onError: (err) => toast.error('Cash-out refused', { description: err.message }),
    })
  }
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button disabled={!enabled} title={enabled ? undefined : `You can cash out from ${formatNaira(minimum)}`}>
          <Banknote /> Cash out
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Cash out</DialogTitle>
          <DialogDescription>
            Available {formatNaira(available)}. Minimum {formatNaira(minimum)}. The amount is held while the transfer is reviewed.
          </DialogDescription>
        </DialogHeader>
        <form onSubmit={submit} className="grid grid-cols-1 gap-3" noValidate>
          <FormField id="cashout-amount" label="Amount (₦)" error={errors.amount}>
            <Input id="cashout-amount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value.replace(/[^\d.]/g, ''))} />
          </FormField>
          <FormField id="cashout-bank" label="Bank" error={errors.bank}>
            <select id="cashout-bank" className="h-9 rounded-md border border-border bg-background px-3 text-sm" value={bank} onChange={(e) => setBank(e.target.value)}>
              <option value="">{banks.isLoading ? 'Loading banks…' : 'Choose your bank'}</option>
              {(banks.data ?? []).map((b) => (
                <option key={b}>{b}</option>
              ))}
            </select>
          </FormField>
          <FormField id="cashout-number" label="Account number (NUBAN)" error={errors.accountNumber}>
            <Input id="cashout-number" inputMode="numeric" maxLength={10} value={accountNumber} onChange={(e) => setAccountNumber(e.target.value.replace(/\D/g, ''))} />
          </FormField>
          <FormField id="cashout-name" label="Account name" error={errors.accountName}>
            <Input id="cashout-name" value={accountName} maxLength={100} onChange={(e) => setAccountName(e.target.value)} />
          </FormField>
          <Button type="submit" disabled={request.isPending}>
            {request.isPending ? 'Requesting…' : 'Request cash-out'}
          </Button>
        </form>
      </DialogContent>
    </Dialog>
  )
}
