// @vitest-environment jsdom
import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { installFakeApi, renderApp } from '@/test/app'
import TrackPage from './track'

// /track/{id} is where a shared link lands: its cover is the page's largest
// paint, so it loads at once rather than lazily.

const TRACK = '00000000-0000-4000-9000-000000000001'

describe('the track page', () => {
  it('shows the shared track with its cover loaded eagerly', async () => {
    installFakeApi({
      tables: {
        tracks: [{ id: TRACK, title: 'Lagos Nights', artist_id: 'a-1', sponsor_id: null, is_sponsored: false, streams: 3, duration: 200, created_at: '2026-01-01', cover_url: '/storage/v1/object/public/covers/a.png' }],
        public_profiles: [{ id: 'a-1', display_name: 'Ada', username: 'ada', avatar_url: null }],
      },
      rpc: { get_app_bootstrap: () => ({ settings: { coming_soon: false, countdown_target: null }, user: null }) },
    })
    renderApp([{ path: '/track/:id', element: <TrackPage /> }], `/track/${TRACK}`)
    const cover = await screen.findByAltText('Lagos Nights cover')
    expect(cover.getAttribute('loading')).toBe('eager')
  })
})
