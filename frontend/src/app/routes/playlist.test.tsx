// @vitest-environment jsdom
import { screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { installFakeApi, renderApp, signIn } from '@/test/app'
import PlaylistPage from './playlist'

// /playlist shows the user's named playlists with their tracks in order, and
// the liked tracks apart.

const FAN = '00000000-0000-4000-8000-00000000f001'
const row = (id: string, title: string) => ({ id, title, artist_id: 'a-1', sponsor_id: null, is_sponsored: false, streams: 3, duration: 200, created_at: '2026-01-01' })

describe('the playlist page', () => {
  it('shows named playlists, not only liked tracks', async () => {
    signIn({ id: FAN })
    installFakeApi({
      tables: {
        playlists: [
          { id: 'p-1', user_id: FAN, name: 'Road trip', created_at: '2026-01-01' },
          { id: 'p-2', user_id: FAN, name: 'Chill', created_at: '2026-01-02' },
        ],
        playlist_tracks: [
          { playlist_id: 'p-1', track_id: 't-2', position: 2 },
          { playlist_id: 'p-1', track_id: 't-1', position: 1 },
        ],
        tracks: [row('t-1', 'Lagos Nights'), row('t-2', 'Harmattan'), row('t-3', 'Liked Only')],
        favorites: [{ user_id: FAN, track_id: 't-3', created_at: '2026-01-03' }],
        public_profiles: [{ id: 'a-1', display_name: 'Ada', username: 'ada', avatar_url: null }],
      },
      rpc: { get_app_bootstrap: () => ({ settings: { coming_soon: false, countdown_target: null }, user: null }) },
    })
    renderApp([{ path: '/playlist', element: <PlaylistPage /> }], '/playlist')
    const road = await screen.findByRole('region', { name: 'Road trip' })
    expect(within(road).getAllByTestId('playlist-track').map((li) => li.textContent?.split('·')[0].trim())).toEqual(['Lagos Nights', 'Harmattan'])
    expect(screen.getByRole('region', { name: 'Chill' })).toBeTruthy()
    expect(screen.getByRole('heading', { name: 'Liked tracks' })).toBeTruthy()
    await screen.findByText('Liked Only')
  })
})
