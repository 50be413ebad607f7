// The admin dashboard's sections: one sub-route each, /dashboard/admin/<id>.

/** ADMIN_SECTIONS lists the sections in the order the dashboard shows them. */
export const ADMIN_SECTIONS = [
  { id: 'users', label: 'Users' },
  { id: 'activities', label: 'Activities' },
  { id: 'tracks', label: 'Tracks' },
  { id: 'cashouts', label: 'Cash-outs' },
  { id: 'verifications', label: 'Verifications' },
  { id: 'sponsorships', label: 'Sponsorships' },
  { id: 'transactions', label: 'Transactions' },
  { id: 'system', label: 'System' },
] as const

/** AdminSection is one section's id. */
export type AdminSection = (typeof ADMIN_SECTIONS)[number]['id']

/** sectionFrom maps a route parameter to a section; anything unknown (or none) is the users section. */
export function sectionFrom(param: string | undefined): AdminSection {
  return ADMIN_SECTIONS.find((s) => s.id === param)?.id ?? 'users'
}

/** adminPath is the URL of a section. */
export function adminPath(section: AdminSection, params?: Record<string, string>): string {
  const q = params ? new URLSearchParams(params).toString() : ''
  return `/dashboard/admin/${section}${q ? `?${q}` : ''}`
}
