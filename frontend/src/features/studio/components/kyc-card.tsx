import { useState } from 'react'
import { IdCard } from 'lucide-react'
import { toast } from 'sonner'
import { FormField } from '@/components/form-field'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle, DialogTrigger } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { Skeleton } from '@/components/ui/skeleton'
import { useLiveTable } from '@/hooks/use-live-table'
import { kycQueryKey, useKyc, useSubmitKyc } from '../api/kyc'
import { KYC_DOCUMENTS, KYC_FILE_TYPES, kycStatus, validateKyc, type KycErrors, type KycState, type KycStatus } from '../lib/kyc'

const day = (iso: string) => new Date(iso).toLocaleDateString('en-NG', { day: 'numeric', month: 'short', year: 'numeric' })

const stateLabel: Record<KycState, string> = {
  none: 'Not submitted',
  pending: 'Pending review',
  approved: 'Approved',
  expiring: 'Approved',
  expired: 'Expired',
  rejected: 'Rejected',
}
const stateClass: Record<KycState, string> = {
  none: 'text-muted-foreground',
  pending: 'text-amber-300',
  approved: 'text-green-400',
  expiring: 'text-green-400',
  expired: 'text-red-400',
  rejected: 'text-red-400',
}

function detail(s: KycStatus): string {
  switch (s.state) {
    case 'none':
      return 'Verify your identity to show the KYC-verified badge on your profile.'
    case 'pending':
      return `Submitted ${s.submittedAt ? day(s.submittedAt) : 'recently'}. An admin will review it soon.${s.expiresAt ? ` Your current approval runs until ${day(s.expiresAt)}.` : ''}`
    case 'approved':
      return s.expiresAt ? `Valid until ${day(s.expiresAt)}.` : 'Your identity is verified.'
    case 'expiring':
      return `Expires ${day(s.expiresAt!)}. You can resubmit it now.`
    case 'expired':
      return `Expired ${s.expiresAt ? day(s.expiresAt) : ''}. Submit again to renew it.`
    case 'rejected':
      return 'Correct what the reviewer noted and submit again.'
  }
}

/** KycCard shows the artist's KYC status, live, and takes a submission when the database would. */
export function KycCard({ userId }: { userId: string }) {
  const { data, isLoading } = useKyc(userId)
  // A reviewer's decision shows without a reload.
  useLiveTable('kyc_submissions', `artist_id=eq.${userId}`, [kycQueryKey(userId)])
  if (isLoading || !data) return <Skeleton className="h-28" />
  const s = kycStatus(data.profile, data.latest)
  return (
    <div className="rounded-xl border border-border bg-card p-4" data-testid="kyc-status" data-state={s.state}>
      <p className="flex items-center gap-2 font-semibold">
        <IdCard className={stateClass[s.state]} /> Identity (KYC): <span className={stateClass[s.state]}>{stateLabel[s.state]}</span>
      </p>
      <p className="mt-1 text-sm text-muted-foreground">{detail(s)}</p>
      {s.reason && (
        <p className="mt-2 rounded-md border border-border p-2 text-sm" data-testid="kyc-reason">
          Reason: {s.reason}
        </p>
      )}
      {s.canSubmit && <KycDialog userId={userId} label={s.state === 'none' ? 'Submit KYC' : s.state === 'expiring' || s.state === 'expired' ? 'Renew KYC' : 'Resubmit KYC'} />}
    </div>
  )
}

function KycDialog({ userId, label }: { userId: string; label: string }) {
  const [open, setOpen] = useState(false)
  const submit = useSubmitKyc(userId)
  const [fullName, setFullName] = useState('')
  const [documentType, setDocumentType] = useState('')
  const [documentNumber, setDocumentNumber] = useState('')
  const [file, setFile] = useState<File | null>(null)
  const [errors, setErrors] = useState<KycErrors>({})
  const onSubmit = (e: React.FormEvent) => {
    e.preventDefault()
    const v = { fullName, documentType, documentNumber, file }
    const errs = validateKyc(v)
    setErrors(errs)
    if (Object.keys(errs).length) return
    submit.mutate(v, {
      onSuccess: () => {
        toast.success('KYC submitted', { description: 'An admin will review it soon.' })
        setOpen(false)
        setFile(null)
      },
      onError: (err) => toast.error('KYC not submitted', { description: err.message }),
    })
  }
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button size="sm" className="mt-3">
          {label}
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Verify your identity</DialogTitle>
          <DialogDescription>Your details and document are seen only by Backline's reviewers.</DialogDescription>
        </DialogHeader>
        <form onSubmit={onSubmit} className="grid grid-cols-1 gap-3" noValidate>
          <FormField id="kyc-name" label="Full name (as on the document)" error={errors.fullName}>
            <Input id="kyc-name" autoComplete="name" maxLength={200} value={fullName} onChange={(e) => setFullName(e.target.value)} />
          </FormField>
          <FormField id="kyc-type" label="Document" error={errors.documentType}>
            <select id="kyc-type" className="h-9 rounded-md border border-border bg-background px-3 text-sm" value={documentType} onChange={(e) => setDocumentType(e.target.value)}>
              <option value="">Choose a document</option>
              {Object.entries(KYC_DOCUMENTS).map(([value, name]) => (
                <option key={value} value={value}>
                  {name}
                </option>
              ))}
            </select>
          </FormField>
          <FormField id="kyc-number" label="Document number" error={errors.documentNumber} hint={documentType === 'nin' ? '11 digits' : undefined}>
            <Input id="kyc-number" maxLength={50} inputMode={documentType === 'nin' ? 'numeric' : undefined} value={documentNumber} onChange={(e) => setDocumentNumber(e.target.value)} />
          </FormField>
          <FormField id="kyc-file" label="Photo or scan of the document (optional)" error={errors.file} hint="JPEG, PNG, WebP or PDF, up to 10 MB">
            <Input id="kyc-file" type="file" accept={KYC_FILE_TYPES.join(',')} onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
          </FormField>
          <Button type="submit" disabled={submit.isPending}>
            {submit.isPending ? 'Submitting…' : 'Submit for review'}
          </Button>
        </form>
      </DialogContent>
    </Dialog>
  )
}
