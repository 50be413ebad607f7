import { lazy, Suspense, useEffect } from 'react'
import { Outlet, useLocation } from 'react-router'
import { BottomNav } from './bottom-nav'
import { TopBar } from './top-bar'

// The cookie dialog opens after 2 s at the earliest, so its code can wait;
// so can the install offer (the browser offers installation only once the
// service worker controls the page) and the service worker's registration.
const CookieDialog = lazy(() => import('./cookie-dialog').then((m) => ({ default: m.CookieDialog })))
const InstallPrompt = lazy(() => import('./install-prompt').then((m) => ({ default: m.InstallPrompt })))
// The footer is below the fold (desktop only) and the offline notice waits for an offline event.
const Footer = lazy(() => import('./footer').then((m) => ({ default: m.Footer })))
const OfflineIndicator = lazy(() => import('./offline-indicator').then((m) => ({ default: m.OfflineIndicator })))
const ServiceWorkerUpdates = lazy(() => import('./sw-update').then((m) => ({ default: m.ServiceWorkerUpdates })))

/** PageFallback is shown while a route's code loads. */
export function PageFallback() {
  return (
    <div className="flex min-h-[50vh] items-center justify-center" aria-busy="true">
      <div className="size-8 animate-spin rounded-full border-2 border-primary border-t-transparent" />
    </div>
  )
}

/**
 * AppShell is the page shell of spec section 2. `player` is the player bar
 * slot and `signedInExtras` the nudge and bell, both supplied by the app.
 */
export function AppShell({ player, signedInExtras }: { player: React.ReactNode; signedInExtras?: React.ReactNode }) {
  const { pathname } = useLocation()
  // Scroll to the top on each route change.
  useEffect(() => {
    window.scrollTo(0, 0)
  }, [pathname])
  return (
    <>
      <TopBar signedInExtras={signedInExtras} />
      <Suspense fallback={null}>
        <OfflineIndicator />
      </Suspense>
      <main className="mx-auto min-h-[70vh] max-w-7xl px-4 pt-20">
        <Suspense fallback={<PageFallback />}>
          <Outlet />
        </Suspense>
      </main>
      {player}
      <Suspense fallback={null}>
        <Footer />
      </Suspense>
      <BottomNav />
      <Suspense fallback={null}>
        <InstallPrompt />
        <CookieDialog />
        <ServiceWorkerUpdates />
      </Suspense>
    </>
  )
}
