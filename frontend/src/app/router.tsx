import { createBrowserRouter, redirect, type RouteObject } from 'react-router'
import { RequireAuth } from './guards'
import { PageFallback } from '@/components/layouts/app-shell'
import { queryClient } from '@/lib/query-client'
import { topArtistsQueryOptions, topFansQueryOptions } from '@/features/profiles/api/top-profiles'
import { platformStatsQueryOptions } from '@/features/profiles/api/get-stats'
import { getTracksQueryOptions } from '@/features/tracks/api/get-tracks'
import { prefetchBootstrap } from './bootstrap'
import { Root, RouteError } from './root'
// The landing page ships in the entry bundle: it is the first paint for most visitors.
import HomePage from './routes/home'

// Every page but the home page is its own chunk (route-level code splitting).
const page = (load: () => Promise<{ default: React.ComponentType }>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
})


// Loaders only start fetches, without awaiting them: the requests run in
// parallel with the route's code download instead of after the first render.
const prefetch = (...starts: (() => Promise<void>)[]) => {
  for (const start of starts) void start()
  return null
}

let started = false
// offlineStart sends the app's first page to the Offline library when it
// starts with no network and something is downloaded; later navigations go
// where they are asked. The list of downloads loads only when offline.
async function offlineStart(path: string) {
  const first = !started
  started = true
  if (!first || navigator.onLine || path === '/offline') return undefined
  const { useOfflineStore } = await import('@/stores/offline-store')
  if (useOfflineStore.getState().downloads.length === 0) return undefined
  return redirect('/offline')
}

/** routes is the route table of spec section 2. */
export const routes: RouteObject[] = [
  {
    element: <Root />,
    errorElement: <RouteError />,
    HydrateFallback: PageFallback,
    // The app shell's data (settings, and the signed-in user's) in one request.
    // Started with no network and with downloads kept, the app opens the Offline library.
    loader: async ({ request }) => (await offlineStart(new URL(request.url).pathname)) ?? prefetch(prefetchBootstrap),
    children: [
      {
        index: true,
        loader: () =>
          prefetch(
            () => queryClient.prefetchQuery(getTracksQueryOptions({ order: 'popular', limit: 12 })),
            () => queryClient.prefetchQuery(platformStatsQueryOptions()),
            () => queryClient.prefetchQuery(topArtistsQueryOptions()),
            () => queryClient.prefetchQuery(topFansQueryOptions()),
          ),
        Component: HomePage,
      },
      { path: 'register', ...page(() => import('./routes/register')) },
      { path: 'register/:role', ...page(() => import('./routes/register-role')) },
      { path: 'login', ...page(() => import('./routes/login')) },
      { path: 'forgot-password', ...page(() => import('./routes/forgot-password')) },
      { path: 'reset-password', ...page(() => import('./routes/reset-password')) },
      { path: 'artists', ...page(() => import('./routes/artists')) },
      { path: 'sponsors', ...page(() => import('./routes/sponsors')) },
      { path: 'charts', ...page(() => import('./routes/charts')) },
      // The Offline library needs no network: the installed app starts there when offline.
      { path: 'offline', ...page(() => import('./routes/offline')) },
      { path: 'about', ...page(() => import('./routes/content/about')) },
      { path: 'faq', ...page(() => import('./routes/content/faq')) },
      { path: 'support', ...page(() => import('./routes/content/support')) },
      { path: 'terms', ...page(() => import('./routes/content/terms')) },
      { path: 'privacy', ...page(() => import('./routes/content/privacy')) },
      { path: 'copyright', ...page(() => import('./routes/content/copyright')) },
      { path: 'aml-policy', ...page(() => import('./routes/content/aml-policy')) },
      { path: 'profiles', ...page(() => import('./routes/profiles')) },
      // "Sign in with Backline": the OAuth server's consent step (it signs the visitor in first).
      { path: 'oauth/consent', ...page(() => import('./routes/oauth-consent')) },
      { path: 'profiles/:username', ...page(() => import('./routes/public-profile')) },
      { path: 'profile/:id', ...page(() => import('./routes/public-profile')) },
      { path: 'search', ...page(() => import('./routes/search')) },
      { path: 'track/:id', ...page(() => import('./routes/track')) },
      { path: 'playlists/:id', ...page(() => import('./routes/public-playlist')) },
      {
        element: <RequireAuth />,
        children: [
          { path: 'profile', ...page(() => import('./routes/own-profile')) },
          { path: 'favorites', ...page(() => import('./routes/favorites')) },
          { path: 'playlist', ...page(() => import('./routes/playlist')) },
          { path: 'following', ...page(() => import('./routes/following')) },
          { path: 'verification', ...page(() => import('./routes/verification')) },
          { path: 'verification/success', ...page(() => import('./routes/verification-success')) },
          { path: 'dashboard', ...page(() => import('./routes/dashboard-redirect')) },
        ],
      },
      { element: <RequireAuth roles={['sponsor']} />, children: [{ path: 'transactions', ...page(() => import('./routes/transactions')) }] },
      ...(['artist', 'fan', 'sponsor'] as const).flatMap((role) => {
        // Each dashboard is its own lazy chunk.
        const dashboard = {
          artist: () => import('./routes/dashboard-artist'),
          sponsor: () => import('./routes/dashboard-sponsor'),
          fan: () => import('./routes/dashboard-fan'),
        }[role]
        return [
          {
            element: <RequireAuth roles={[role]} />,
            children: [
              { path: `dashboard/${role}`, ...page(dashboard) },
              // Linked from notifications; same page as /dashboard/{role}.
              { path: `${role}/dashboard`, ...page(dashboard) },
              ...(role === 'artist' ? [{ path: 'dashboard/artist/statement', ...page(() => import('./routes/statement-print')) }] : []),
            ],
          },
        ]
      }),
      {
        element: <RequireAuth roles={['admin']} />,
        children: [
          // One sub-route per section: /dashboard/admin/users, /dashboard/admin/system...
          { path: 'dashboard/admin/:section?', ...page(() => import('./routes/admin')) },
          { path: 'admin/dashboard', ...page(() => import('./routes/admin')) },
        ],
      },
      { path: '*', ...page(() => import('./routes/not-found')) },
    ],
  },
]

let router: ReturnType<typeof createBrowserRouter> | undefined

/**
 * getRouter creates the browser router on first use. Creating it starts the
 * first route's loaders, so it must wait until the runtime config is loaded.
 */
export function getRouter() {
  router ??= createBrowserRouter(routes)
  return router
}
