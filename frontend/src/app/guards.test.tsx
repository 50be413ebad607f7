// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { Outlet } from 'react-router'
import { describe, expect, it } from 'vitest'
import type { Role } from '@/config/nav'
import { useSuspensionUpdates } from '@/hooks/use-suspension'
import { useAuthStore } from '@/lib/auth'
import { Answer, type BackendSetup } from '@/test/fake-backend'
import { Location, renderApp, signIn, installFakeApi } from '@/test/app'
import { useSignOut } from '@/components/layouts/use-sign-out'
import { RequireAuth } from './guards'

const USER = '00000000-0000-4000-8000-0000000000f1'

/** Shell stands in for the app root: it mounts the suspension updates as Root does. */
function Shell() {
  useSuspensionUpdates(useAuthStore((s) => s.user?.id))
  return (
    <>
      <Location />
      <Outlet />
    </>
  )
}

const page = (path: string, title: string) => ({ path, element: <h1>{title}</h1> })

/** AccountPage is a signed-in page with the user menu's Sign out. */
function AccountPage() {
  const onSignOut = useSignOut()
  return (
    <>
      <h1>Your account</h1>
      <button type="button" onClick={() => void onSignOut()}>
        Sign out
      </button>
    </>
  )
}

const routes = [
  {
    element: <Shell />,
    children: [
      page('/', 'Home page'),
      page('/login', 'Login page'),
      { element: <RequireAuth />, children: [page('/profile', 'Your profile'), { path: '/account', element: <AccountPage /> }] },
      { element: <RequireAuth roles={['sponsor']} />, children: [page('/transactions', 'Transactions'), page('/dashboard/sponsor', 'Sponsor dashboard')] },
      { element: <RequireAuth roles={['fan']} />, children: [page('/dashboard/fan', 'Fan dashboard')] },
      { element: <RequireAuth roles={['admin']} />, children: [page('/dashboard/admin', 'Admin dashboard')] },
    ],
  },
]

/** bootstrap is get_app_bootstrap's answer for the signed-in user. */
const bootstrap = (role: Role, suspended = false, reason: string | null = null) => ({
  settings: { coming_soon: false, countdown_target: null },
  user: { id: USER, role, profile: null, role_profile: null, suspended, suspended_reason: reason, unread_notifications: 0, session_recorded: true },
})

function api(role: Role | null, over: { suspended?: boolean; reason?: string | null; rpc?: BackendSetup['rpc']; auth?: BackendSetup['auth'] } = {}) {
  if (role) signIn({ id: USER })
  return installFakeApi({
    tables: { public_profiles: [{ id: USER, suspended_reason: over.reason ?? null }], notifications: [] },
    rpc: {
      get_app_bootstrap: () => (role ? bootstrap(role, over.suspended, over.reason) : { settings: { coming_soon: false, countdown_target: null }, user: null }),
      is_user_suspended: () => over.suspended ?? false,
      remove_user_session: () => null,
      ...over.rpc,
    },
    auth: { logout: () => new Answer(204, null), ...over.auth },
  })
}

const heading = (name: string) => screen.findByRole('heading', { level: 1, name })
const location = () => screen.getByTestId('location').textContent

describe('route guards', () => {
  it('asks a visitor to sign in, and Go to Login goes there', async () => {
    api(null)
    renderApp(routes, '/profile')
    await heading('Authentication Required')
    expect(screen.getByText('Please sign in to access this page.')).toBeTruthy()
    expect(screen.queryByRole('heading', { name: 'Your profile' })).toBeNull()
    fireEvent.click(screen.getByRole('link', { name: 'Go to Login' }))
    await heading('Login page')
    expect(location()).toBe('/login')
  })

  it('lets a signed-in user through to a page any role may open', async () => {
    api('fan')
    renderApp(routes, '/profile')
    await heading('Your profile')
  })

  it.each([
    ['fan', '/transactions', '/dashboard/fan', 'Fan dashboard'],
    ['sponsor', '/dashboard/fan', '/dashboard/sponsor', 'Sponsor dashboard'],
    ['fan', '/dashboard/admin', '/dashboard/fan', 'Fan dashboard'],
  ] as const)("denies a %s %s, and Go to Dashboard leads to their own", async (role, path, own, ownTitle) => {
    api(role)
    renderApp(routes, path)
    await heading('Access Denied')
    expect(screen.getByText("You don't have permission to access this page.")).toBeTruthy()
    fireEvent.click(screen.getByRole('link', { name: 'Go to Dashboard' }))
    await heading(ownTitle)
    expect(location()).toBe(own)
  })

  it.each([
    ['/dashboard/fan', 'Fan dashboard'],
    ['/dashboard/sponsor', 'Sponsor dashboard'],
    ['/transactions', 'Transactions'],
    ['/dashboard/admin', 'Admin dashboard'],
  ])('lets an admin open %s', async (path, title) => {
    api('admin')
    renderApp(routes, path)
    await heading(title)
  })

  it('shows a suspended user the reason instead of the page, and Go Home leaves', async () => {
    api('fan', { suspended: true, reason: 'Repeated chargebacks' })
    renderApp(routes, '/dashboard/fan')
    await heading('Account Suspended')
    expect(screen.getByText('Your account has been suspended.')).toBeTruthy()
    expect(screen.getByText('Reason: Repeated chargebacks')).toBeTruthy()
    expect(screen.queryByRole('heading', { name: 'Fan dashboard' })).toBeNull()
    fireEvent.click(screen.getByRole('link', { name: 'Go Home' }))
    await heading('Home page')
    expect(location()).toBe('/')
  })

  it('says so when a suspension has no reason', async () => {
    api('sponsor', { suspended: true })
    renderApp(routes, '/transactions')
    await heading('Account Suspended')
    expect(screen.getByText('Reason: No reason provided')).toBeTruthy()
  })

  it('signs a suspended user out from the suspension screen', async () => {
    const { backend } = api('fan', { suspended: true, reason: 'Fraud' })
    renderApp(routes, '/profile')
    await heading('Account Suspended')
    fireEvent.click(screen.getByRole('button', { name: 'Sign Out' }))
    await heading('Home page')
    expect(location()).toBe('/')
    await screen.findByText('Signed out successfully')
    expect(backend.calls('rpc/remove_user_session')).toHaveLength(1)
    expect(backend.calls('auth/logout', 'POST')).toHaveLength(1)
    expect(useAuthStore.getState().user).toBeNull()
    expect(localStorage.getItem('sb-backend-auth-token')).toBeNull()
  })

  it('goes home on sign-out without showing Authentication Required on the way', async () => {
    api('fan')
    renderApp(routes, '/account')
    await heading('Your account')
    // Everything the page shows from the click to home, however briefly.
    const seen: string[] = []
    const watch = new MutationObserver(() => seen.push(document.body.textContent ?? ''))
    watch.observe(document.body, { childList: true, subtree: true, characterData: true })
    fireEvent.click(screen.getByRole('button', { name: 'Sign out' }))
    await heading('Home page')
    watch.disconnect()
    expect(location()).toBe('/')
    expect(useAuthStore.getState().user).toBeNull()
    expect(seen.filter((t) => t.includes('Authentication Required') || t.includes('Go to Login'))).toEqual([])
  })

  it('keeps the user on the screen with the spec text when signing out fails', async () => {
    api('fan', { suspended: true, reason: 'Fraud', auth: { logout: () => new Answer(500, { code: 500, error_code: 'unexpected_failure', msg: 'Unexpected failure' }) } })
    renderApp(routes, '/profile')
    await heading('Account Suspended')
    fireEvent.click(screen.getByRole('button', { name: 'Sign Out' }))
    await screen.findByText('Error signing out. Please try again.')
    expect(location()).toBe('/profile')
    expect(screen.getByRole('heading', { name: 'Account Suspended' })).toBeTruthy()
  })

  it("switches an open page to Account Suspended when the admin's notice arrives, without a reload", async () => {
    let suspended = false
    const { backend, realtime } = api('fan', { rpc: { is_user_suspended: () => suspended } })
    renderApp(routes, '/dashboard/fan')
    await heading('Fan dashboard')
    await waitFor(() => expect(realtime.joined('notifications')).toBe(true))
    suspended = true
    backend.tables.public_profiles[0].suspended_reason = 'Spam uploads'
    realtime.insert('notifications', { id: 'n1', user_id: USER, type: 'account_suspended', title: 'Account suspended', message: 'Spam uploads', is_read: false })
    const screenHeading = await heading('Account Suspended')
    expect(within(screenHeading.parentElement!).getByText('Reason: Spam uploads')).toBeTruthy()
    expect(location()).toBe('/dashboard/fan')
  })
})
