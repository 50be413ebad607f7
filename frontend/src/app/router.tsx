import { createBrowserRouter, type RouteObject } from 'react-router'
import { RequireAuth } from './guards'
import { Root, RouteError } from './root'

// Every page is its own chunk (route-level code splitting); only the shell
// and the home page's data layer are in the entry bundle.
const page = (load: () => Promise<{ default: React.ComponentType }>): Pick<RouteObject, 'lazy'> => ({
  lazy: async () => ({ Component: (await load()).default }),
})


/** routes is the route table of spec section 2. */
export const routes: RouteObject[] = [
  {
    element: <Root />,
    errorElement: <RouteError />,
    children: [
      { index: true, ...page(() => import('./routes/home')) },
      { path: 'register', ...page(() => import('./routes/register')) },
      { path: 'register/:role', ...page(() => import('./routes/register-role')) },
      { path: 'login', ...page(() => import('./routes/login')) },
      { path: 'forgot-password', ...page(() => import('./routes/forgot-password')) },
      { path: 'reset-password', ...page(() => import('./routes/reset-password')) },
      { path: 'artists', ...page(() => import('./routes/artists')) },
      { path: 'sponsors', ...page(() => import('./routes/sponsors')) },
      { path: 'charts', ...page(() => import('./routes/charts')) },
      { path: 'about', ...page(() => import('./routes/content/about')) },
      { path: 'faq', ...page(() => import('./routes/content/faq')) },
      { path: 'support', ...page(() => import('./routes/content/support')) },
      { path: 'terms', ...page(() => import('./routes/content/terms')) },
      { path: 'privacy', ...page(() => import('./routes/content/privacy')) },
      { path: 'copyright', ...page(() => import('./routes/content/copyright')) },
      { path: 'aml-policy', ...page(() => import('./routes/content/aml-policy')) },
      { path: 'profiles', ...page(() => import('./routes/profiles')) },
      { path: 'profiles/:username', ...page(() => import('./routes/public-profile')) },
      { path: 'profile/:id', ...page(() => import('./routes/public-profile')) },
      {
        element: <RequireAuth />,
        children: [
          { path: 'profile', ...page(() => import('./routes/own-profile')) },
          { path: 'favorites', ...page(() => import('./routes/favorites')) },
          { path: 'playlist', ...page(() => import('./routes/playlist')) },
          { path: 'verification', ...page(() => import('./routes/verification')) },
          { path: 'verification/success', ...page(() => import('./routes/verification-success')) },
          { path: 'dashboard', ...page(() => import('./routes/dashboard-redirect')) },
        ],
      },
      { element: <RequireAuth roles={['sponsor']} />, children: [{ path: 'transactions', ...page(() => import('./routes/transactions')) }] },
      ...(['artist', 'fan', 'sponsor', 'admin'] as const).flatMap((role) => [
        {
          element: <RequireAuth roles={[role]} />,
          children: [
            { path: `dashboard/${role}`, ...page(() => import('./routes/dashboard')) },
            // Linked from notifications; same page as /dashboard/{role}.
            { path: `${role}/dashboard`, ...page(() => import('./routes/dashboard')) },
          ],
        },
      ]),
      { path: '*', ...page(() => import('./routes/not-found')) },
    ],
  },
]

/** router is the app's browser router. */
export const router = createBrowserRouter(routes)
