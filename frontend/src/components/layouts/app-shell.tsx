import { lazy, Suspense, useEffect } from 'react'
import { Outlet, useLocation } from 'react-router'
import { BottomNav } from './bottom-nav'
import { Footer } from './footer'
import { InstallPrompt } from './install-prompt'
import { OfflineIndicator } from './offline-indicator'
import { ServiceWorkerUpdates } from './sw-update'
import { TopBar } from './top-bar'

// The cookie dialog opens after 2 s at the earliest, so its code can wait.
const CookieDialog = lazy(() => import('./cookie-dialog').then((m) => ({ default: m.CookieDialog })))

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
      <OfflineIndicator />
      <main className="mx-auto min-h-[70vh] max-w-7xl px-4 pt-20">
        <Suspense fallback={<PageFallback />}>
          <Outlet />
        </Suspense>
      </main>
      {player}
      <Footer />
      <BottomNav />
      <InstallPrompt />
      <Suspense fallback={null}>
        <CookieDialog />
      </Suspense>
      <ServiceWorkerUpdates />
    </>
  )
}
