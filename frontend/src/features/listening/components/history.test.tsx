// @vitest-environment jsdom
import { fireEvent, render, screen, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { usePlayerStore } from '@/stores/player-store'
// The app's test set-up: its API configuration, and a clean player after each test.
import '@/test/app'
import { aTrack } from '@/test/track'
import { ListeningHistory, type HistoryEntry } from './history'

const entry = (over: Partial<HistoryEntry>): HistoryEntry => ({
  id: 's1',
  track_id: 't1',
  title: 'Lagos Nights',
  artist_name: 'Kola Ade',
  created_at: '2026-05-01T10:00:00Z',
  duration: 30,
  is_valid: true,
  invalid_reason: null,
  ...over,
})

describe('listening history', () => {
  const lagos = aTrack({ id: 't1', title: 'Lagos Nights', coverUrl: '/storage/v1/object/public/covers/lagos.jpg' })
  const tracks = new Map([[lagos.id, lagos]])

  it('shows each listen with its cover, how long it lasted and the verdict', () => {
    render(<ListeningHistory items={[entry({ listened: 42 }), entry({ id: 's2', track_id: 'gone', title: 'Deleted track', is_valid: false, invalid_reason: 'Duplicate stream prevented - allowance type: ip' })]} tracks={tracks} />)
    const [first, second] = screen.getAllByTestId('history-item')
    expect(within(first).getByText('· listened 0:42')).toBeTruthy()
    expect(within(first).getByText('Counted')).toBeTruthy()
    expect(first.querySelector('img')?.getAttribute('src')).toMatch(/render\/image\/public\/covers\/lagos\.jpg\?width=96&height=96&resize=cover$/)
    expect(within(second).getByText('Not counted: Duplicate stream prevented - allowance type: ip')).toBeTruthy()
    // A track that is gone cannot be played again.
    expect((within(second).getByRole('button', { name: 'Play Deleted track again' }) as HTMLButtonElement).disabled).toBe(true)
  })

  it('plays a listened track again from the start', () => {
    render(<ListeningHistory items={[entry({})]} tracks={tracks} />)
    fireEvent.click(screen.getByRole('button', { name: 'Play Lagos Nights again' }))
    expect(usePlayerStore.getState()).toMatchObject({ currentTrack: { id: 't1' }, isPlaying: true })
    // Playing it already: it starts over, it does not pause.
    usePlayerStore.getState().setProgress(50, 180)
    fireEvent.click(screen.getByRole('button', { name: 'Play Lagos Nights again' }))
    expect(usePlayerStore.getState()).toMatchObject({ isPlaying: true, seekRequest: 0 })
  })
})
