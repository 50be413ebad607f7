// @vitest-environment jsdom
import { screen } from '@testing-library/react'
import { Outlet } from 'react-router'
import { describe, expect, it, vi } from 'vitest'
import { installFakeApi, renderApp } from '@/test/app'
import { ComingSoonGate } from './guards'

const routes = [
  {
    element: (
      <ComingSoonGate>
        <Outlet />
      </ComingSoonGate>
    ),
    children: [{ path: '/', element: <h1>Home page</h1> }],
  },
]

/**
 * start renders the gate for a visitor with every REST answer held back until
 * release is called: the settings come with the shell's bootstrap.
 */
function start(comingSoon: boolean) {
  const { backend } = installFakeApi({
    rpc: { get_app_bootstrap: () => ({ settings: { coming_soon: comingSoon, countdown_target: null }, user: null }) },
  })
  let release = () => {}
  const held = new Promise<void>((r) => (release = r))
  const sent: string[] = []
  const answered: string[] = []
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input)
    sent.push(url)
    if (url.includes('/rest/v1/')) await held
    const res = await backend.fetch(input, init)
    answered.push(url)
    return res
  })
  renderApp(routes, '/')
  return { release, sent, answered }
}

describe('coming-soon gate', () => {
  it('renders the page before the settings arrive, and gives way to the landing when they say coming soon', async () => {
    const { release, answered } = start(true)
    await screen.findByRole('heading', { name: 'Home page' })
    expect(answered.filter((u) => u.includes('/rest/v1/'))).toEqual([])
    release()
    await screen.findByTestId('coming-soon')
    expect(screen.queryByRole('heading', { name: 'Home page' })).toBeNull()
    expect(localStorage.getItem('backline-coming-soon')).toBe('1')
  })

  it('keeps the page when the settings say coming soon is off', async () => {
    const { release } = start(false)
    await screen.findByRole('heading', { name: 'Home page' })
    release()
    await vi.waitFor(() => expect(localStorage.getItem('backline-coming-soon')).toBeNull())
    expect(screen.queryByTestId('coming-soon')).toBeNull()
    expect(screen.getByRole('heading', { name: 'Home page' })).toBeTruthy()
  })

  it('waits for the settings on a device that last saw the landing, so the page never flashes', async () => {
    localStorage.setItem('backline-coming-soon', '1')
    const { release, sent } = start(true)
    // The bootstrap is asked and held: the page is not rendered meanwhile.
    await vi.waitFor(() => expect(sent.some((u) => u.includes('/rpc/get_app_bootstrap'))).toBe(true))
    expect(screen.queryByRole('heading', { name: 'Home page' })).toBeNull()
    release()
    await screen.findByTestId('coming-soon')
    expect(screen.queryByRole('heading', { name: 'Home page' })).toBeNull()
  })

  it('opens the page on a device that last saw the landing once the settings say it is over', async () => {
    localStorage.setItem('backline-coming-soon', '1')
    const { release } = start(false)
    release()
    await screen.findByRole('heading', { name: 'Home page' })
    expect(localStorage.getItem('backline-coming-soon')).toBeNull()
  })
})
