// @vitest-environment jsdom
import { screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import type { Role } from '@/config/nav'
import { installFakeApi, renderApp, signIn } from '@/test/app'
import HomePage from './home'

const FAN = '00000000-0000-4000-8000-0000000000f1'
const KOLA = '00000000-0000-4000-8000-0000000000a1'
const ZARA = '00000000-0000-4000-8000-0000000000a2'

/** start renders home for a visitor, or signed in with a role. */
function start(role: Role | null) {
  if (role) signIn({ id: FAN })
  // jsdom loads no images: every image counts as loaded, as a photo that exists does in a browser.
  vi.spyOn(HTMLImageElement.prototype, 'complete', 'get').mockReturnValue(true)
  vi.spyOn(HTMLImageElement.prototype, 'naturalWidth', 'get').mockReturnValue(64)
  installFakeApi({
    tables: {
      tracks: [],
      artist_profiles: [
        { id: KOLA, name: 'Kola Ade', track_count: 3, stream_count: 40, avatar_url: '/storage/v1/object/public/avatars/kola.webp', created_at: '2026-01-02T00:00:00Z' },
        { id: ZARA, name: 'Zara Obi', track_count: 2, stream_count: 10, avatar_url: null, created_at: '2026-01-01T00:00:00Z' },
      ],
      public_profiles: [
        { id: KOLA, display_name: 'Kola Ade', username: 'kolaade', avatar_url: null, is_verified: false },
        { id: ZARA, display_name: 'Zara Obi', username: 'zaraobi', avatar_url: null, is_verified: false },
      ],
    },
    rpc: {
      get_app_bootstrap: () => ({
        settings: { coming_soon: false, countdown_target: null },
        user: role ? { id: FAN, role, profile: null, role_profile: null, suspended: false, suspended_reason: null, unread_notifications: 0, session_recorded: true } : null,
      }),
      get_platform_stats: () => ({}),
      get_online_users: () => [],
      get_top_fans: () => [
        { user_id: 'f1', display_name: 'Ada Nwosu', username: 'adanwosu', avatar_url: '/storage/v1/object/public/avatars/ada.webp', stream_count: 9 },
        { user_id: 'f2', display_name: 'Tunde Bello', username: 'tundebello', avatar_url: null, stream_count: 4 },
      ],
    },
  })
  renderApp([{ path: '/', element: <HomePage /> }], '/')
}

describe('home', () => {
  it('offers a visitor Get Started and Join Backline', async () => {
    start(null)
    expect((await screen.findByRole('link', { name: 'Get Started' })).getAttribute('href')).toBe('/register')
    // How It Works loads after the first paint.
    expect((await screen.findByRole('link', { name: 'Join Backline' })).getAttribute('href')).toBe('/register')
    expect(screen.queryByRole('link', { name: 'Go to Dashboard' })).toBeNull()
  })

  it('offers a signed-in user their dashboard, never the sign-up', async () => {
    start('fan')
    expect((await screen.findByRole('link', { name: 'Go to Dashboard' })).getAttribute('href')).toBe('/dashboard/fan')
    await screen.findAllByTestId('fan-card')
    await screen.findByRole('heading', { name: 'How It Works' })
    expect(screen.queryByRole('link', { name: 'Get Started' })).toBeNull()
    expect(screen.queryByRole('link', { name: 'Join Backline' })).toBeNull()
    expect(screen.queryByRole('link', { name: /register/i })).toBeNull()
  })

  it("shows a profile's photo in Top Artists and Top Fans, and initials without one, never the app's logo", async () => {
    start(null)
    const [kola, zara] = await screen.findAllByTestId('artist-card')
    await waitFor(() => expect(within(kola).getByRole('img', { name: 'Kola Ade' }).getAttribute('src')).toMatch(/\/storage\/v1\/render\/image\/public\/avatars\/kola\.webp\?width=160&height=160&resize=cover$/))
    expect(within(zara).queryByRole('img')).toBeNull()
    expect(within(zara).getByText('ZO')).toBeTruthy()
    const [ada, tunde] = await screen.findAllByTestId('fan-card')
    expect(within(ada).getByRole('img', { name: 'Ada Nwosu' }).getAttribute('src')).toMatch(/\/render\/image\/public\/avatars\/ada\.webp\?width=96&height=96&resize=cover$/)
    expect(within(tunde).getByText('TB')).toBeTruthy()
    expect(document.querySelector('img[src*="default-cover"]')).toBeNull()
  })
})
