import { lazy, Suspense, useState } from 'react'
import { Link, useLocation } from 'react-router'
import { BarChart3, Compass, Home, LayoutDashboard, LogIn, Search, User } from 'lucide-react'
import { bottomBarHidden, dashboardPath, isNavItemActive } from '@/config/nav'
import { useAuthStore } from '@/lib/auth'
import { cn, vibrate } from '@/lib/utils'

const ProfileSheet = lazy(() => import('./profile-sheet').then((m) => ({ default: m.ProfileSheet })))

const itemClass = (active: boolean) =>
  cn('flex flex-1 flex-col items-center justify-center gap-0.5 text-[11px]', active ? 'text-primary' : 'text-muted-foreground')

/** BottomNav is the mobile bottom bar (under 768px) with the Profile bottom sheet. */
export function BottomNav() {
  const { pathname } = useLocation()
  const user = useAuthStore((s) => s.user)
  const role = useAuthStore((s) => s.role)
  const [sheetOpen, setSheetOpen] = useState(false)
  if (bottomBarHidden(pathname)) return null

  const items = user
    ? [
        { href: '/', label: 'Home', icon: Home },
        { href: '/search', label: 'Search', icon: Search },
        { href: dashboardPath(role), label: 'Dashboard', icon: LayoutDashboard },
        { href: '/profiles', label: 'Discover', icon: Compass },
        { href: '/charts', label: 'Charts', icon: BarChart3 },
      ]
    : [
        { href: '/', label: 'Home', icon: Home },
        { href: '/search', label: 'Search', icon: Search },
        { href: '/charts', label: 'Charts', icon: BarChart3 },
        { href: '/profiles', label: 'Discover', icon: Compass },
        { href: '/login', label: 'Login', icon: LogIn },
      ]
  return (
    <nav className="fixed inset-x-0 bottom-0 z-40 flex h-16 border-t border-border bg-background/95 backdrop-blur md:hidden" aria-label="Bottom">
      {items.map(({ href, label, icon: Icon }) => (
        <Link key={label} to={href} onClick={() => vibrate()} className={itemClass(isNavItemActive(pathname, href))} aria-current={isNavItemActive(pathname, href) ? 'page' : undefined}>
          <Icon className="size-5" />
          {label}
        </Link>
      ))}
      {user && (
        <button
          type="button"
          className={itemClass(isNavItemActive(pathname, '/profile'))}
          onClick={() => {
            vibrate()
            setSheetOpen(true)
          }}
        >
          <User className="size-5" />
          Profile
        </button>
      )}
      {sheetOpen && (
        <Suspense fallback={null}>
          <ProfileSheet open={sheetOpen} onOpenChange={setSheetOpen} />
        </Suspense>
      )}
    </nav>
  )
}
