// @vitest-environment jsdom
import { act, render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { Track } from '@/types/api'
import { loadDeviceStores, useDataSaver, usePlayer, withPlayer } from './deferred'

const track = { id: 't-1', title: 'Last Last' } as Track

function Probe() {
  const title = usePlayer((s) => s.currentTrack?.title ?? 'nothing', 'not loaded')
  const saver = useDataSaver()
  return (
    <p>
      {title} / data saver {saver ? 'on' : 'off'}
    </p>
  )
}

// One test: the stores load once per module, so the order of what is seen matters.
describe('the device stores after the first paint', () => {
  it('stand in with the kept settings until loaded, then follow the stores; actions wait for the load', async () => {
    localStorage.setItem('backline-settings', JSON.stringify({ state: { dataSaver: true }, version: 0 }))
    render(<Probe />)
    expect(screen.getByText('not loaded / data saver on')).toBeTruthy()
    withPlayer((s) => s.playTrack(track))
    // The store's module loads on demand: on a busy machine that can take a while.
    await screen.findByText('Last Last / data saver on', {}, { timeout: 15_000 })
    const [player, settings] = await loadDeviceStores()
    act(() => settings.getState().setDataSaver(false))
    expect(screen.getByText('Last Last / data saver off')).toBeTruthy()
    // Loaded: an action runs at once.
    act(() => withPlayer((s) => s.clear()))
    expect(player.getState().currentTrack).toBeNull()
    expect(screen.getByText('nothing / data saver off')).toBeTruthy()
  })
})
