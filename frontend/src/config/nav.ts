// Navigation data and the mobile bottom bar's active-route rule (spec section 2).

/** Role is a signed-in user's role as read from public_profiles or user_roles. */
export type Role = 'fan' | 'artist' | 'sponsor' | 'admin'

/** topLinks are the wide-screen top bar links. */
export const topLinks = [
  { href: '/artists', label: 'Artists' },
  { href: '/sponsors', label: 'Sponsors' },
  { href: '/charts', label: 'Charts' },
  { href: '/profiles', label: 'Discover' },
] as const

/** roleBadgeClass gives the user menu's role badge colours: artist purple, sponsor amber, fan pink. */
export const roleBadgeClass: Record<Role, string> = {
  artist: 'bg-purple-600 text-white',
  sponsor: 'bg-amber-500 text-black',
  fan: 'bg-pink-500 text-white',
  admin: 'bg-slate-700 text-white',
}

/** footerGroups are the desktop footer's three link groups. */
export const footerGroups = [
  {
    title: 'Quick Links',
    links: [
      { href: '/', label: 'Home' },
      { href: '/artists', label: 'Artists' },
      { href: '/sponsors', label: 'Sponsors' },
      { href: '/charts', label: 'Charts' },
      { href: '/profiles', label: 'Discover' },
    ],
  },
  {
    title: 'Resources',
    links: [
      { href: '/about', label: 'About Us' },
      { href: '/faq', label: 'FAQ' },
      { href: '/support', label: 'Support' },
    ],
  },
  {
    title: 'Legal',
    links: [
      { href: '/terms', label: 'Terms of Service' },
      { href: '/privacy', label: 'Privacy Policy' },
      { href: '/copyright', label: 'Copyright' },
      { href: '/aml-policy', label: 'AML Policy' },
    ],
  },
] as const

/** dashboardPath is /dashboard/{role}, or plain /dashboard when the role is unknown. */
export function dashboardPath(role: Role | null | undefined): string {
  return role ? `/dashboard/${role}` : '/dashboard'
}

/**
 * isNavItemActive is the bottom bar's rule: any dashboard path marks the
 * dashboard item active; /profiles, /profile and /charts match exactly; other
 * items match by prefix ("/" only matches the home page itself).
 */
export function isNavItemActive(pathname: string, href: string): boolean {
  const isDashboard = (p: string) => p === '/dashboard' || p.startsWith('/dashboard/') || /^\/(artist|sponsor|fan|admin)\/dashboard/.test(p)
  if (isDashboard(href)) return isDashboard(pathname)
  if (href === '/profiles' || href === '/profile' || href === '/charts') return pathname === href
  if (href === '/') return pathname === '/'
  return pathname === href || pathname.startsWith(href.endsWith('/') ? href : `${href}/`)
}

/** bottomBarHidden: the bottom bar is hidden on the sign-in and sign-up flows. */
export function bottomBarHidden(pathname: string): boolean {
  return ['/login', '/register', '/forgot-password', '/reset-password'].some((p) => pathname.startsWith(p))
}
