// @vitest-environment jsdom
import { fireEvent, screen, within } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { installFakeApi, renderApp } from '@/test/app'
import { usePlayerStore } from '@/stores/player-store'
import SearchPage from './search'

// /search asks the database once the text has two letters, shows the
// results grouped by kind, plays a track in place (the other results
// queued after it) and keeps the search on the device.

const track = { id: 't-1', title: 'Last Last', artist_id: 'a-1', sponsor_id: null, is_sponsored: false, streams: 9, duration: 200, created_at: '2026-01-01' }
const second = { ...track, id: 't-2', title: 'Ye', streams: 7 }

beforeEach(() => localStorage.clear())

describe('the search page', () => {
  it('groups the results, plays a track where it is found and remembers the search', async () => {
    const api = installFakeApi({
      rpc: {
        get_app_bootstrap: () => ({ settings: { coming_soon: false, countdown_target: null }, user: null }),
        search_catalog: (args) => ({
          query: args.p_query,
          tracks: [track, second],
          people: [{ id: 'a-1', display_name: 'Burna Boy', username: 'burnaboy', avatar_url: null }],
          artists: [{ id: 'a-1', name: 'Burna Boy', username: 'burnaboy', avatar_url: null, is_verified: true, follower_count: 1200 }],
          sponsors: [],
          playlists: [{ id: 'p-1', name: 'Lagos Nights', cover_url: null, owner_name: 'Ada', track_count: 3 }],
        }),
      },
    })
    renderApp([{ path: '/search', element: <SearchPage /> }], '/search?q=burna%20boi')
    const tracks = await screen.findByTestId('search-tracks')
    expect(api.backend.calls('rpc/search_catalog').at(-1)?.body).toMatchObject({ p_query: 'burna boi' })
    expect(screen.getByRole('heading', { name: 'Artists' })).toBeTruthy()
    expect(screen.getByRole('link', { name: /Burna Boy.*1.2K followers/ }).getAttribute('href')).toBe('/profiles/burnaboy')
    expect(screen.getByRole('link', { name: /Lagos Nights/ }).getAttribute('href')).toBe('/playlists/p-1')
    expect(screen.queryByRole('heading', { name: 'Sponsors' })).toBeNull()

    fireEvent.click(within(tracks).getByRole('button', { name: 'Play Last Last' }))
    // The player store loads after the first paint: the play waits for it.
    await vi.waitFor(() => expect(usePlayerStore.getState().currentTrack?.id).toBe('t-1'))
    // The rest of the results is the queue, as from any list.
    expect(usePlayerStore.getState().queue.map((t) => t.id)).toEqual(['t-1', 't-2'])
    expect(JSON.parse(localStorage.getItem('backline:recent-searches') ?? '[]')).toEqual(['burna boi'])
  })

  it('asks nothing under two letters and lists recent searches instead', async () => {
    localStorage.setItem('backline:recent-searches', JSON.stringify(['tems']))
    const api = installFakeApi({ rpc: { get_app_bootstrap: () => ({ settings: { coming_soon: false, countdown_target: null }, user: null }) } })
    renderApp([{ path: '/search', element: <SearchPage /> }], '/search?q=b')
    await screen.findByRole('list', { name: 'Recent searches' })
    expect(screen.getByRole('button', { name: 'tems' })).toBeTruthy()
    expect(api.backend.calls('rpc/search_catalog')).toEqual([])
  })
})
