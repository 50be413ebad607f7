import { lazy, Suspense, useEffect } from 'react'
import { useLocation } from 'react-router'
import { PageFallback } from '@/components/layouts/app-shell'
import type { Role } from '@/config/nav'
import { useAuthStore } from '@/lib/auth'
import { rememberComingSoon, rememberedComingSoon, useAppSettings } from '@/features/waitlist/api/settings'

// The waitlist landing (forms, schema library) loads only when it is shown.
const ComingSoon = lazy(() => import('@/features/waitlist/components/coming-soon').then((m) => ({ default: m.ComingSoon })))

// The checks and their screens load with the first protected page.
const ProtectedOutlet = lazy(() => import('./protected-outlet'))

/** RequireAuth guards protected routes, optionally restricted to roles (admin passes every role check). */
export function RequireAuth({ roles }: { roles?: Role[] }) {
  return (
    <Suspense fallback={<PageFallback />}>
      <ProtectedOutlet roles={roles} />
    </Suspense>
  )
}

const BYPASS = ['/login', '/forgot-password', '/reset-password']

/**
 * ComingSoonGate shows the waitlist landing to visitors while coming-soon mode
 * is on. Signed-in users and the sign-in and recovery pages pass.
 *
 * The page renders before the settings arrive (they come with the shell's
 * bootstrap, a round trip the first paint should not wait for) and gives way
 * to the landing if they say coming soon. A device whose last answer was
 * "on" waits for the answer instead, so a returning visitor never sees the
 * app flash before the landing.
 */
export function ComingSoonGate({ children }: { children: React.ReactNode }) {
  const { pathname } = useLocation()
  const user = useAuthStore((s) => s.user)
  const loading = useAuthStore((s) => s.loading)
  // The bootstrap that ends the auth loading seeds the settings.
  const settings = useAppSettings(!loading)
  const known = settings.data?.comingSoon
  useEffect(() => {
    if (known !== undefined) rememberComingSoon(known)
  }, [known])
  if (BYPASS.some((p) => pathname.startsWith(p)) || user) return <>{children}</>
  if (known === undefined && rememberedComingSoon() && (loading || settings.isFetching)) return <PageFallback />
  if (known) {
    return (
      <Suspense fallback={<PageFallback />}>
        <ComingSoon countdownTarget={settings.data!.countdownTarget} />
      </Suspense>
    )
  }
  return <>{children}</>
}
