import { lazy, Suspense, useEffect } from 'react'
import { isRouteErrorResponse, Link, useRouteError } from 'react-router'
import { AppShell } from '@/components/layouts/app-shell'
import { Button } from '@/components/ui/button'
import { useAuthStore, useRoleSettled } from '@/lib/auth'
import { loadDeviceStores, usePlayer } from '@/stores/deferred'
import { sessionRecorded } from './bootstrap'
import { ComingSoonGate } from './guards'

// Parts that only matter once a track plays or a user signs in load on demand,
// keeping them out of the home page's initial JavaScript.
const PlayerBar = lazy(() => import('@/features/player/components/player-bar').then((m) => ({ default: m.PlayerBar })))
const NotificationBell = lazy(() => import('@/features/notifications/components/notification-bell').then((m) => ({ default: m.NotificationBell })))
// A card payment's return is handled once the page is up.
const PaymentReturn = lazy(() => import('./payment-return').then((m) => ({ default: m.PaymentReturn })))
const SignedInEffects = lazy(() => import('./signed-in-effects'))
const ProfileNudge = lazy(() => import('@/features/profiles/components/profile-nudge').then((m) => ({ default: m.ProfileNudge })))

/** Root composes the shell with the features it hosts. */
export function Root() {
  const userId = useAuthStore((s) => s.user?.id)
  const hasTrack = usePlayer((s) => !!s.currentTrack, false)
  const settled = useRoleSettled()
  // The player and the device settings are not needed for the first screen: they load after it.
  useEffect(() => void loadDeviceStores(), [])
  return (
    <>
      {userId && (
        <Suspense fallback={null}>
          <SignedInEffects userId={userId} settled={settled} recorded={sessionRecorded(userId)} />
        </Suspense>
      )}
      <ComingSoonGate>
        <Suspense fallback={null}>
          <PaymentReturn />
        </Suspense>
        <AppShell
          player={
            hasTrack && (
              <Suspense fallback={null}>
                <PlayerBar />
              </Suspense>
            )
          }
          signedInExtras={
            <Suspense fallback={null}>
              <ProfileNudge />
              <NotificationBell />
            </Suspense>
          }
        />
      </ComingSoonGate>
    </>
  )
}

/** RouteError catches failures to load a page's code (e.g. offline) and render errors. */
export function RouteError() {
  const error = useRouteError()
  const message = isRouteErrorResponse(error) ? error.statusText : error instanceof Error ? error.message : 'Unknown error'
  return (
    <div className="mx-auto grid grid-cols-1 max-w-md justify-items-center gap-4 px-4 py-24 text-center">
      <h1 className="text-2xl font-bold">Something went wrong</h1>
      <p className="text-sm text-muted-foreground">{navigator.onLine ? message : "You're offline. Reconnect and try again."}</p>
      <div className="flex gap-2">
        <Button onClick={() => window.location.reload()}>Reload</Button>
        <Button asChild variant="outline">
          <a href="/">Home</a>
        </Button>
      </div>
      <Link to="/" className="sr-only">
        Home
      </Link>
    </div>
  )
}
