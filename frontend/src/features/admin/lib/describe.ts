// Plain-language lines for the activity feed and the audit trail.

/** ActivityRow is what the feed shows of one entry (a row of admin_activity). */
export interface ActivityRow {
  kind: string
  action: string
  actor_name?: string | null
  subject_type?: string | null
  subject_id?: string | null
  details?: unknown
}

type Details = Record<string, unknown>

const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '')
const naira = (v: unknown) => {
  const n = Number(v)
  return Number.isFinite(n) ? `₦${new Intl.NumberFormat('en-NG', { maximumFractionDigits: 2 }).format(n)}` : ''
}

// What each admin action did, for the feed and the audit trail.
const adminVerbs: Record<string, string> = {
  'user.suspend': 'suspended a user',
  'user.unsuspend': 'restored a user',
  'user.role': 'changed a role',
  'track.hide': 'hid a track',
  'track.unhide': 'restored a track',
  'track.remove': 'removed a track',
  'cashout.complete': 'completed a cash-out',
  'cashout.reject': 'rejected a cash-out',
  'wallet.adjust': 'adjusted a wallet',
  'sponsorship.end': 'ended a sponsorship',
  'kyc.approve': 'approved a KYC submission',
  'kyc.reject': 'rejected a KYC submission',
}

/** adminVerb describes an audit action ("suspended a user"); direct table writes read "updated public_profiles". */
export function adminVerb(action: string): string {
  if (adminVerbs[action]) return adminVerbs[action]
  const [table, op] = action.split('.')
  return op ? `${op === 'insert' ? 'added to' : `${op}d`} ${table}` : action
}

/** describeActivity is the one-line text of a feed entry. */
export function describeActivity(row: ActivityRow): string {
  const d = (row.details && typeof row.details === 'object' ? row.details : {}) as Details
  const title = str(d.title)
  switch (row.action) {
    case 'user.signup':
      return `Signed up as ${str(d.role) || 'a user'}`
    case 'track.created':
      return `Uploaded "${title}"`
    case 'track.deleted':
      return `Deleted "${title}"`
    case 'stream.valid':
      return `Streamed "${title}"${d.paid ? ' (paid)' : ''}`
    case 'stream.rejected':
      return `Stream of "${title}" rejected: ${str(d.invalid_reason) || 'no reason given'}`
    case 'payment.created':
      return `Started a ${str(d.purpose)} payment of ${naira(d.amount)}`
    case 'payment.completed':
      return `Paid ${naira(d.amount)} (${str(d.purpose)})`
    case 'payment.sponsored_stream':
      return `Sponsored stream paid ${naira(d.amount)}`
    case 'cashout.requested':
      return `Requested a cash-out of ${naira(d.amount)}`
    case 'cashout.completed':
      return `Cash-out of ${naira(d.amount)} completed`
    case 'cashout.rejected':
      return `Cash-out of ${naira(d.amount)} rejected: ${str(d.reason)}`
    case 'fraud.detected':
      return `Fraud flag: ${str(d.risk_level)} risk`
    case 'kyc.submitted':
      return 'Submitted KYC documents'
  }
  if (row.action.startsWith('invite.')) return `Sponsorship invite ${row.action.slice('invite.'.length)}`
  if (row.kind === 'admin') {
    const reason = str(d.reason)
    return `${row.actor_name ?? 'An admin'} ${adminVerb(row.action)}${reason ? `: ${reason}` : ''}`
  }
  return row.action.replace(/[._]/g, ' ')
}

/** ACTIVITY_KINDS are the feed's filters, in the order the select shows them. */
export const ACTIVITY_KINDS = [
  { value: '', label: 'Everything' },
  { value: 'signup', label: 'Sign-ups' },
  { value: 'upload', label: 'Uploads' },
  { value: 'stream', label: 'Streams' },
  { value: 'stream_valid', label: 'Valid streams' },
  { value: 'stream_rejected', label: 'Rejected streams' },
  { value: 'payment', label: 'Payments' },
  { value: 'cashout', label: 'Cash-outs' },
  { value: 'invite', label: 'Invites' },
  { value: 'verification', label: 'Verifications' },
  { value: 'fraud', label: 'Fraud flags' },
  { value: 'account', label: 'Account changes' },
  { value: 'admin', label: 'Admin actions' },
] as const
