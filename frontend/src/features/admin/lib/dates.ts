// Dates as admins read them: Lagos time, the business's own calendar.

const dateTime = new Intl.DateTimeFormat('en-NG', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Africa/Lagos' })
const dateOnly = new Intl.DateTimeFormat('en-NG', { dateStyle: 'medium', timeZone: 'Africa/Lagos' })

/** formatDateTime renders an instant as a Lagos date and time ('—' when absent). */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—'
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? '—' : dateTime.format(d)
}

/** formatDate renders an instant or a YYYY-MM-DD day as a Lagos date. */
export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—'
  const d = new Date(/^\d{4}-\d{2}-\d{2}$/.test(iso) ? `${iso}T12:00:00+01:00` : iso)
  return Number.isNaN(d.getTime()) ? '—' : dateOnly.format(d)
}

/** defaultKycExpiry is the approval expiry the KYC dialog proposes: one year from today (YYYY-MM-DD). */
export function defaultKycExpiry(now = new Date()): string {
  const d = new Date(now)
  d.setUTCFullYear(d.getUTCFullYear() + 1)
  return d.toISOString().slice(0, 10)
}
