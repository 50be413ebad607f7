// Plain-language lines for the activity feed and the audit trail: a
// sentence per entry, with the people, tracks and amounts it is about.

/** PaymentFigures are what a card payment charged: the base amount, VAT, the fee and the total. */
export interface PaymentFigures {
  amount: number
  vat: number
  fee: number
  total: number
}

/**
 * ActivityFacts are what a page of the feed refers to, read beside it: the
 * names of the people and tracks its entries name by id.
 */
export interface ActivityFacts {
  people: Record<string, string>
  tracks: Record<string, string>
}

/** ActivityRow is what the feed shows of one entry (a row of admin_activity). */
export interface ActivityRow {
  kind: string
  action: string
  actor_id?: string | null
  actor_name?: string | null
  subject_type?: string | null
  subject_id?: string | null
  details?: unknown
  facts?: ActivityFacts
}

type Details = Record<string, unknown>

const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '')
const naira = (v: unknown) => {
  const n = Number(v)
  return Number.isFinite(n) ? `₦${new Intl.NumberFormat('en-NG', { maximumFractionDigits: 2 }).format(n)}` : ''
}
const figure = (v: unknown) => (v === null || v === undefined || v === '' || !Number.isFinite(Number(v)) ? null : Number(v))

// What each admin action did, for the feed and the audit trail; `who` is the user it was done to.
const adminVerbs: Record<string, (who: string | null) => string> = {
  'user.suspend': (who) => `suspended ${who ?? 'a user'}`,
  'user.unsuspend': (who) => `restored ${who ?? 'a user'}`,
  'user.role': (who) => (who ? `changed ${who}'s role` : 'changed a role'),
  'track.hide': () => 'hid a track',
  'track.unhide': () => 'restored a track',
  'track.remove': () => 'removed a track',
  'cashout.complete': () => 'completed a cash-out',
  'cashout.reject': () => 'rejected a cash-out',
  'wallet.adjust': (who) => (who ? `adjusted ${who}'s wallet` : 'adjusted a wallet'),
  'sponsorship.end': () => 'ended a sponsorship',
  'kyc.approve': () => 'approved a KYC submission',
  'kyc.reject': () => 'rejected a KYC submission',
}

/** adminVerb describes an audit action ("suspended a user"); direct table writes read "updated public_profiles". */
export function adminVerb(action: string, who: string | null = null): string {
  if (adminVerbs[action]) return adminVerbs[action](who)
  const [table, op] = action.split('.')
  return op ? `${op === 'insert' ? 'added to' : `${op}d`} ${table}` : action
}

/** paymentFigures are what a payment entry charged, as the feed gives it (admin_activity reads them from the payment). */
export function paymentFigures(row: ActivityRow): PaymentFigures | null {
  const d = (row.details && typeof row.details === 'object' ? row.details : {}) as Details
  const total = figure(d.total)
  return total === null ? null : { amount: figure(d.amount) ?? total, vat: figure(d.vat) ?? 0, fee: figure(d.fee) ?? 0, total }
}

const purposeName = (p: string) => (p === 'topup' ? 'a wallet top-up' : p === 'verification' ? 'verification' : p || 'a payment')
const breakdown = (f: PaymentFigures) => `${naira(f.amount)} + ${naira(f.vat)} VAT + ${naira(f.fee)} fee`
const documentName = (t: string) => t.replace(/_/g, ' ')

/** describeActivity is the sentence of a feed entry. */
export function describeActivity(row: ActivityRow): string {
  const d = (row.details && typeof row.details === 'object' ? row.details : {}) as Details
  const facts = row.facts
  const person = (id: unknown) => (typeof id === 'string' && facts?.people[id]) || null
  const trackTitle = (id: unknown) => (typeof id === 'string' && facts?.tracks[id]) || null
  const subject = row.subject_type === 'user' ? person(row.subject_id) : null
  const title = str(d.title)
  const reason = str(d.reason)
  // The audit trail's entries (an admin's action) name the admin; the same action words elsewhere are the account's own log.
  if (row.kind === 'admin') return `${row.actor_name ?? 'An admin'} ${adminVerb(row.action, subject)}${reason ? `: ${reason}` : ''}`
  switch (row.action) {
    case 'user.signup':
      return `Signed up as ${str(d.role) || 'a user'}`
    case 'user.choose_role':
      return `Chose the ${str(d.role)} role`
    case 'user.suspend':
      return `Suspended ${subject ?? 'a user'}${reason ? `: ${reason}` : ''}`
    case 'user.unsuspend':
      return `Restored ${subject ?? 'a user'}`
    case 'user.role_changed':
      return `Changed ${subject ? `${subject}'s` : 'a'} role to ${str(d.role)}`
    case 'user.promote_admin':
      return `Made ${subject ?? 'a user'} an admin`
    case 'track.created':
      return `Uploaded "${title}"`
    case 'track.deleted':
      return `Deleted "${title}"`
    case 'stream.valid':
      return `Streamed "${title}"${d.paid ? ' (paid)' : ''}`
    case 'stream.rejected':
      return `Stream of "${title}" rejected: ${str(d.invalid_reason) || 'no reason given'}`
    case 'payment.created': {
      const f = paymentFigures(row)
      return f
        ? `Started a payment of ${naira(f.total)} for ${purposeName(str(d.purpose))} (${breakdown(f)})`
        : `Started a payment for ${purposeName(str(d.purpose))}: ${naira(d.amount)} before VAT and fee`
    }
    case 'payment.completed': {
      const f = paymentFigures(row)
      const purpose = str(d.purpose)
      // Such a payment is refunded in full, VAT and fee included (complete_payment).
      if (d.credited_to_wallet)
        return f
          ? `Paid ${naira(f.total)} for verification while already verified: all of it was refunded to their wallet`
          : 'Paid for verification while already verified: all of it was refunded to their wallet'
      if (!f) return `Paid for ${purposeName(purpose)}: ${naira(d.amount)} before VAT and fee`
      if (purpose === 'topup') return `Topped up their wallet with ${naira(f.amount)}, paying ${naira(f.total)} (${breakdown(f)})`
      return `Paid ${naira(f.total)} for ${purposeName(purpose)} (${breakdown(f)})`
    }
    case 'payment.sponsored_stream': {
      const sponsor = person(d.sponsor_id)
      const artist = person(d.artist_id)
      return sponsor && artist ? `Sponsored stream: ${naira(d.amount)} from ${sponsor} to ${artist}` : `Sponsored stream paid ${naira(d.amount)}`
    }
    case 'payment.session_mismatch':
      return `Tried to confirm a payment started by ${person(d.owner) ?? 'another account'}`
    case 'payment.amount_mismatch':
      return `Paid ${naira(d.paid)} where ${naira(d.expected)} was due: the payment was refused`
    case 'cashout.requested':
      return `Requested a cash-out of ${naira(d.amount)}`
    case 'cashout.completed':
      return `Cash-out of ${naira(d.amount)} completed`
    case 'cashout.rejected':
      return `Cash-out of ${naira(d.amount)} rejected: ${reason}`
    case 'fraud.detected': {
      const reasons = Array.isArray(d.fraud_reasons) ? d.fraud_reasons.map(str).filter(Boolean) : []
      return `Fraud check flagged ${str(d.risk_level) || 'a'} risk${reasons.length ? `: ${reasons.join(', ')}` : ''}`
    }
    case 'kyc.submitted':
      return `Submitted KYC documents${d.document_type ? ` (${documentName(str(d.document_type))})` : ''}`
  }
  if (row.action.startsWith('invite.')) {
    const state = row.action.slice('invite.'.length)
    const artist = person(d.artist_id)
    const sponsor = person(d.sponsor_id)
    const track = trackTitle(d.track_id)
    const about = track ? ` for "${track}"` : ''
    if (!artist || !sponsor) return `Sponsorship invite ${state}`
    const bySponsor = row.actor_id === d.sponsor_id
    if (state === 'created') return bySponsor ? `Invited ${artist} to be sponsored${about}` : `Asked ${sponsor} to sponsor ${track ? `"${track}"` : 'them'}`
    const other = bySponsor ? artist : row.actor_id === d.artist_id ? sponsor : null
    const verb = { accepted: 'Accepted', rejected: 'Declined' }[state]
    if (verb && other) return `${verb} ${other}'s sponsorship invite${about}`
    return `Sponsorship of ${artist} by ${sponsor}${about} ${state}`
  }
  // Not known yet: the action's words, as a sentence.
  const words = row.action.replace(/[._]/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** factsWanted lists what a page of the feed refers to by id: people and tracks. */
export function factsWanted(rows: ActivityRow[]): { people: string[]; tracks: string[] } {
  const people = new Set<string>()
  const tracks = new Set<string>()
  const id = (v: unknown) => (typeof v === 'string' && v ? v : null)
  for (const r of rows) {
    const d = (r.details && typeof r.details === 'object' ? r.details : {}) as Details
    if (r.subject_type === 'user' && id(r.subject_id)) people.add(r.subject_id!)
    for (const k of ['artist_id', 'sponsor_id', 'owner']) if (id(d[k])) people.add(d[k] as string)
    if (id(d.track_id)) tracks.add(d.track_id as string)
  }
  return { people: [...people], tracks: [...tracks] }
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
