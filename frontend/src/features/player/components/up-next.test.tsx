// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest'
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { usePlayerStore } from '@/stores/player-store'
import { aTrack } from '@/test/track'
import { UpNext } from './up-next'

const titles = () => usePlayerStore.getState().queue.map((t) => t.title)

afterEach(() => {
  cleanup()
  usePlayerStore.getState().clear()
})

describe('queue editor', () => {
  it('moves and removes what comes next with its buttons; the playing track stays', () => {
    const [a, b, c] = ['A', 'B', 'C'].map((id) => aTrack({ id, title: `Song ${id}` }))
    act(() => usePlayerStore.getState().playQueue([a, b, c], 0))
    render(<UpNext />)
    expect((screen.getByRole('button', { name: 'Move Song B up' }) as HTMLButtonElement).disabled).toBe(true)
    expect((screen.getByRole('button', { name: 'Move Song C down' }) as HTMLButtonElement).disabled).toBe(true)
    fireEvent.click(screen.getByRole('button', { name: 'Move Song C up' }))
    expect(titles()).toEqual(['Song A', 'Song C', 'Song B'])
    fireEvent.click(screen.getByRole('button', { name: 'Move Song C down' }))
    expect(titles()).toEqual(['Song A', 'Song B', 'Song C'])
    fireEvent.click(screen.getByRole('button', { name: 'Remove Song B from the queue' }))
    expect(titles()).toEqual(['Song A', 'Song C'])
    expect(usePlayerStore.getState().currentTrack?.id).toBe('A')
    expect(screen.queryByRole('button', { name: 'Remove Song A from the queue' })).toBeNull()
  })
})
