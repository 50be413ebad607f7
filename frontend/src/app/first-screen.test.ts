import { describe, expect, it } from 'vitest'
import type { TrackRow } from '@/types/api'
import { fanSections } from './first-screen'

const row = (id: string, artist: string, sponsor: string | null = null): TrackRow => ({
  id,
  title: `Song ${id}`,
  artist_id: artist,
  sponsor_id: sponsor,
  is_sponsored: !!sponsor,
  streams: 3,
  cover_url: null,
  audio_url: `/a/${id}.mp3`,
  duration: 180,
  created_at: '2026-01-01T00:00:00Z',
  release_date: null,
  description: null,
  genre: null,
  is_explicit: false,
})

describe('fanSections', () => {
  it('keeps the playlist order and the likes newest first, with their people, and leaves out tracks the fan cannot see', () => {
    const s = fanSections({
      playlists: [{ id: 'p1', name: 'Road trip', track_ids: ['t2', 'hidden', 't1'] }],
      favorites: ['t1', 't2'],
      tracks: [row('t1', 'a1'), row('t2', 'a1', 's1')],
      people: [
        { id: 'a1', display_name: 'Ada', username: 'ada', avatar_url: null },
        { id: 's1', display_name: 'Sam Sponsor', username: 'sam', avatar_url: null },
      ],
    })
    expect(s.playlists).toHaveLength(1)
    expect(s.playlists[0].tracks.map((t) => t.id)).toEqual(['t2', 't1'])
    expect(s.playlists[0].tracks[0]).toMatchObject({ artist: 'Ada', sponsorName: 'Sam Sponsor', isSponsored: true, releaseYear: 2026 })
    expect(s.favorites.map((t) => t.id)).toEqual(['t1', 't2'])
  })
})
