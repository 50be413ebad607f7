import { cleanup, configure, render } from '@testing-library/react'
import { createMemoryRouter, RouterProvider, useLocation, type RouteObject } from 'react-router'
import { toast } from 'sonner'
import { afterEach, vi } from 'vitest'
import { AppProvider } from '@/app/provider'
import { setEnv } from '@/config/env'
import { useAuthStore } from '@/lib/auth'
import { queryClient } from '@/lib/query-client'
import { supabase } from '@/lib/supabase'
import { usePlayerStore } from '@/stores/player-store'
import { FakeBackend, type BackendSetup } from './fake-backend'
import { FakeRealtime } from './fake-realtime'

// Renders parts of the app as it runs in the browser: the app's provider
// (its one query client, the auth listener, tooltips, the toaster), its one
// supabase-js client pointed at a FakeBackend through fetch and at a
// FakeRealtime through WebSocket, and a memory router.

const API = 'http://backend.test'
/** STORAGE_KEY is where supabase-js keeps the session for the API above. */
const STORAGE_KEY = 'sb-backend-auth-token'

setEnv({ SUPABASE_URL: API, SUPABASE_ANON_KEY: 'anon-key' })
// A busy machine can take more than the default second to render a change.
configure({ asyncUtilTimeout: 5000 })

/** TestUser is who is signed in. */
export interface TestUser {
  id: string
  email?: string
}

const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')

/** signIn stores a session for user the way supabase-js stores one after a sign-in. */
export function signIn(user: TestUser) {
  const exp = Math.floor(Date.now() / 1000) + 3600
  const claims = { sub: user.id, role: 'authenticated', aud: 'authenticated', exp, email: user.email ?? `${user.id}@example.test` }
  const session = {
    access_token: `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}.c2lnbmF0dXJl`,
    refresh_token: 'refresh-1',
    token_type: 'bearer',
    expires_in: 3600,
    expires_at: exp,
    user: { id: user.id, aud: 'authenticated', role: 'authenticated', email: claims.email, app_metadata: { provider: 'email' }, user_metadata: {}, created_at: '2026-01-01T00:00:00Z' },
  }
  localStorage.setItem(STORAGE_KEY, JSON.stringify(session))
}

/** installFakeApi makes backend and realtime the API the app's client talks to. */
export function installFakeApi(setup: BackendSetup) {
  const backend = new FakeBackend(setup)
  const realtime = new FakeRealtime()
  vi.stubGlobal('fetch', backend.fetch)
  realtime.install()
  return { backend, realtime }
}

/** Location shows the router's current path, for tests that follow a navigation. */
export function Location() {
  return <output data-testid="location">{useLocation().pathname}</output>
}

/** renderApp renders routes at path inside the app's provider. */
export function renderApp(routes: RouteObject[], path: string) {
  const router = createMemoryRouter(routes, { initialEntries: [path] })
  const view = render(
    <AppProvider>
      <RouterProvider router={router} />
    </AppProvider>,
  )
  return { ...view, router }
}

afterEach(async () => {
  cleanup()
  // The next test's realtime server is a new one: leave this one's.
  await supabase().removeAllChannels()
  supabase().realtime.disconnect()
  toast.dismiss()
  queryClient.clear()
  usePlayerStore.getState().clear()
  useAuthStore.setState({ user: null, session: null, role: null, roleFor: null, loading: true, recovering: false, sessionRead: false, signedOutFrom: null })
  localStorage.clear()
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
})
