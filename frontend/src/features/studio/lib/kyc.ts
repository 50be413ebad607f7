// KYC form rules and the status an artist sees. The database checks the same
// rules again and decides (submit_kyc in sql/app/0017_kyc_submission_rules.sql);
// messages match its messages.
import { extension, fileProblem } from './media'

/** KYC_DOCUMENTS are the identity documents submit_kyc accepts, with their names. */
export const KYC_DOCUMENTS = {
  nin: 'NIN slip',
  national_id: 'National ID card',
  passport: 'International passport',
  drivers_license: "Driver's licence",
  voters_card: "Voter's card",
} as const

/** KycDocument is a document type. */
export type KycDocument = keyof typeof KYC_DOCUMENTS

/** KYC_FILE_TYPES and MAX_KYC_BYTES are the private kyc bucket's limits. */
export const KYC_FILE_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'application/pdf']
export const MAX_KYC_BYTES = 10 * 1024 * 1024

/** KYC_RENEWAL_DAYS: an approval can be renewed in its last days (verification_renewal_days; the database decides). */
export const KYC_RENEWAL_DAYS = 30

/** KycInput is what the KYC form collects. */
export interface KycInput {
  fullName: string
  documentType: string
  documentNumber: string
  file: { size: number; type: string } | null
}

/** KycErrors maps a field to its message. */
export type KycErrors = Partial<Record<keyof KycInput, string>>

const isDocument = (t: string): t is KycDocument => Object.hasOwn(KYC_DOCUMENTS, t)

/** validateKyc checks the form: a full name, a known document, its number in the document's format, and an optional scan. */
export function validateKyc(v: KycInput): KycErrors {
  const e: KycErrors = {}
  const name = v.fullName.trim().replace(/\s+/g, ' ')
  const number = v.documentNumber.trim()
  if (!name) e.fullName = 'Enter your full name'
  else if (name.length < 2 || name.length > 200) e.fullName = 'Enter your full name as it appears on the document'
  if (!isDocument(v.documentType)) e.documentType = 'Choose a document type'
  if (!number) e.documentNumber = 'Enter the document number'
  else if (v.documentType === 'nin' && !/^\d{11}$/.test(number)) e.documentNumber = 'A NIN is 11 digits'
  else if (!/^[A-Za-z0-9][A-Za-z0-9 /-]{1,48}[A-Za-z0-9]$/.test(number)) e.documentNumber = 'Enter the document number as it is printed'
  if (v.file) {
    const bad = fileProblem(v.file, KYC_FILE_TYPES, MAX_KYC_BYTES, 'document')
    if (bad) e.file = bad
  }
  return e
}

/**
 * kycObjectName is where a scan goes: the artist's own folder of the private
 * kyc bucket, under a new name each time (artists may not overwrite or
 * delete what reviewers have seen).
 */
export function kycObjectName(userId: string, f: { name: string; type: string }, now: number = Date.now()): string {
  return `${userId}/kyc-${now}.${extension(f.name, f.type)}`
}

/** KycSubmission is the artist's latest submission as they read it. */
export interface KycSubmission {
  id: string
  status: 'pending' | 'approved' | 'rejected'
  reason: string | null
  expires_at: string | null
  created_at: string
  document_type: string
}

/** KycProfile is the KYC state of the artist profile. */
export interface KycProfile {
  kyc_status: string
  kyc_expiry_date: string | null
}

/** KycState is what the artist is shown. */
export type KycState = 'none' | 'pending' | 'approved' | 'expiring' | 'expired' | 'rejected'

/** KycStatus is the state with what goes with it: whether a submission is taken now, an approval's expiry, a rejection's reason. */
export interface KycStatus {
  state: KycState
  canSubmit: boolean
  expiresAt: string | null
  reason: string | null
  submittedAt: string | null
}

/**
 * kycStatus reads the profile and the latest submission: a pending one
 * waits (even as the renewal of a running approval); an approval blocks a
 * new submission until its last KYC_RENEWAL_DAYS days; after a rejection or
 * an expiry the artist submits again.
 */
export function kycStatus(profile: KycProfile | null, latest: KycSubmission | null, now: Date = new Date()): KycStatus {
  const expiry = profile?.kyc_expiry_date ? new Date(profile.kyc_expiry_date) : null
  const approved = profile?.kyc_status === 'approved'
  const running = approved && (!expiry || expiry > now)
  const base = {
    expiresAt: approved ? (profile?.kyc_expiry_date ?? null) : null,
    reason: latest?.status === 'rejected' ? latest.reason : null,
    submittedAt: latest?.created_at ?? null,
  }
  if (latest?.status === 'pending') return { ...base, state: 'pending', canSubmit: false }
  if (running) {
    const renewable = !!expiry && expiry.getTime() - now.getTime() <= KYC_RENEWAL_DAYS * 86_400_000
    return { ...base, state: renewable ? 'expiring' : 'approved', canSubmit: renewable }
  }
  if (approved) return { ...base, state: 'expired', canSubmit: true }
  if (latest?.status === 'rejected') return { ...base, state: 'rejected', canSubmit: true }
  return { ...base, state: 'none', canSubmit: true }
}
