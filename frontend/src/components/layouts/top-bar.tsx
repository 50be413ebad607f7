import { lazy, Suspense } from 'react'
import { Link, NavLink } from 'react-router'
import { Button } from '@/components/ui/button'
import { topLinks } from '@/config/nav'
import { useIsMobile } from '@/hooks/use-media-query'
import { useScrollHide } from '@/hooks/use-scroll-hide'
import { useAuthStore } from '@/lib/auth'
import { cn } from '@/lib/utils'

// Signed-in chrome loads on demand; visitors never download it.
// The search field loads right after the first paint, in a box of its size.
const SearchBox = lazy(() => import('./search-box').then((m) => ({ default: m.SearchBox })))
const UserMenu = lazy(() => import('./user-menu').then((m) => ({ default: m.UserMenu })))

/** Logo is the product mark linking home. */
export function Logo() {
  return (
    <Link to="/" className="flex items-center gap-2 font-bold tracking-tight" aria-label="Backline home">
      <img src="/favicon.png" alt="" width={28} height={28} className="rounded-md" />
      <span className="text-lg">Backline</span>
    </Link>
  )
}

/** TopBar is the fixed top navigation; `signedInExtras` holds the nudge and the bell. */
export function TopBar({ signedInExtras }: { signedInExtras?: React.ReactNode }) {
  const user = useAuthStore((s) => s.user)
  // Login and Sign Up are for visitors: not shown before the stored session has been read.
  const signedOut = useAuthStore((s) => s.sessionRead && !s.user)
  const isMobile = useIsMobile()
  const hidden = useScrollHide(isMobile)
  return (
    <header
      className={cn(
        'fixed inset-x-0 top-0 z-40 h-14 border-b border-border bg-background/90 backdrop-blur transition-transform duration-300',
        hidden && '-translate-y-full',
      )}
    >
      <div className="mx-auto flex h-full max-w-7xl items-center gap-6 px-4">
        <Logo />
        <nav className="hidden items-center gap-5 text-sm lg:flex" aria-label="Main">
          {topLinks.map((l) => (
            <NavLink key={l.href} to={l.href} className={({ isActive }) => cn('text-muted-foreground hover:text-foreground', isActive && 'text-foreground')}>
              {l.label}
            </NavLink>
          ))}
        </nav>
        <Suspense fallback={<div className="ml-auto hidden h-9 w-full max-w-xs md:block" />}>
          <SearchBox className="ml-auto hidden md:block" />
        </Suspense>
        <div className="ml-auto flex items-center gap-2 md:ml-0">
          {user ? (
            <>
              {signedInExtras}
              <Suspense fallback={<span className="size-9 rounded-full bg-muted" />}>
                <UserMenu />
              </Suspense>
            </>
          ) : (
            signedOut && (
              <div className="hidden items-center gap-2 md:flex">
                <Button asChild variant="ghost" size="sm">
                  <Link to="/login">Login</Link>
                </Button>
                <Button asChild size="sm">
                  <Link to="/register">Sign Up</Link>
                </Button>
              </div>
            )
          )}
        </div>
      </div>
    </header>
  )
}
