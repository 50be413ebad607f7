// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { installFakeApi, renderApp, signIn } from '@/test/app'
import { pgError, type BackendSetup } from '@/test/fake-backend'
import { aTrack } from '@/test/track'
import { usePlayerStore } from '@/stores/player-store'
import { TrackCard } from './track-card'

// Any track goes into a playlist from its card, liked or not: the card asks
// the API the app talks to, which holds the rules.

const FAN = '00000000-0000-4000-8000-00000000f001'
const track = aTrack({ id: 't-9', title: 'Harmattan' })

function show(setup: BackendSetup = {}, signedIn = true) {
  if (signedIn) signIn({ id: FAN })
  const api = installFakeApi({
    ...setup,
    tables: {
      playlists: [
        { id: 'p-1', user_id: FAN, name: 'Road trip', created_at: '2026-01-01' },
        { id: 'p-2', user_id: FAN, name: 'Chill', created_at: '2026-01-02' },
      ],
      playlist_tracks: [{ playlist_id: 'p-1', track_id: 't-9', position: 1 }],
      favorites: [],
      ...setup.tables,
    },
    rpc: { get_app_bootstrap: () => ({ settings: { coming_soon: false, countdown_target: null }, user: null }), ...setup.rpc },
  })
  renderApp([{ path: '/', element: <TrackCard track={track} /> }], '/')
  return api
}

const openDialog = async () => {
  fireEvent.click(await screen.findByRole('button', { name: 'Add Harmattan to a playlist' }))
  return screen.findByRole('dialog')
}

describe('add to playlist from a track card', () => {
  it('lists the playlists, marks the one already holding the track, and adds it to another', async () => {
    const { backend } = show()
    const dialog = await openDialog()
    const road = await within(dialog).findByRole('button', { name: /Road trip/ })
    expect(road.hasAttribute('disabled')).toBe(true)
    expect(road.textContent).toContain('Added')
    fireEvent.click(within(dialog).getByRole('button', { name: /Chill/ }))
    await screen.findByText('Added to Chill')
    expect(backend.calls('playlist_tracks', 'POST').map((c) => c.body)).toEqual([{ playlist_id: 'p-2', track_id: 't-9' }])
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
  })

  it('creates a playlist named in the dialog and adds the track to it', async () => {
    const { backend } = show()
    const dialog = await openDialog()
    fireEvent.change(within(dialog).getByLabelText('New playlist name'), { target: { value: '  Late night  ' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create and add' }))
    await screen.findByText('Added to Late night')
    const [created] = backend.calls('playlists', 'POST')
    expect(created.body).toEqual({ name: 'Late night', user_id: FAN })
    const newId = backend.tables.playlists.find((p) => p.name === 'Late night')?.id
    expect(backend.calls('playlist_tracks', 'POST').map((c) => c.body)).toEqual([{ playlist_id: newId, track_id: 't-9' }])
  })

  it("shows the database's refusal", async () => {
    show({ onInsert: { playlist_tracks: () => pgError(409, '23505', 'This track is already in the playlist') } })
    const dialog = await openDialog()
    fireEvent.click(await within(dialog).findByRole('button', { name: /Chill/ }))
    await screen.findByText('Could not add the track')
    await screen.findByText('This track is already in the playlist')
  })

  it('is not offered to visitors', async () => {
    show({}, false)
    await screen.findByText('Harmattan')
    expect(screen.queryByRole('button', { name: 'Add Harmattan to a playlist' })).toBeNull()
  })
})

describe('playing from a list of cards', () => {
  const list = ['a', 'b', 'c'].map((id) => aTrack({ id, title: `Song ${id}` }))

  function showList() {
    installFakeApi({ tables: { favorites: [] }, rpc: { get_app_bootstrap: () => ({ settings: { coming_soon: false, countdown_target: null }, user: null }) } })
    renderApp([{ path: '/', element: <>{list.map((t) => <TrackCard key={t.id} track={t} list={list} />)}</> }], '/')
  }

  it('queues the rest of the list when a card plays', async () => {
    showList()
    fireEvent.click(await screen.findByRole('button', { name: 'Play Song b' }))
    // The player store loads after the first paint: the play waits for it.
    await vi.waitFor(() => expect(usePlayerStore.getState().currentTrack?.id).toBe('b'))
    expect(usePlayerStore.getState().queue.map((t) => t.id)).toEqual(['a', 'b', 'c'])
    await screen.findByRole('button', { name: 'Pause Song b' })
  })

  it('offers Play next and Add to queue in every card\'s menu', async () => {
    showList()
    fireEvent.click(await screen.findByRole('button', { name: 'Play Song a' }))
    fireEvent.click(screen.getByRole('button', { name: 'More options for Song c' }))
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Play next' }))
    await screen.findByText('Song c plays next')
    expect(usePlayerStore.getState().queue.map((t) => t.id)).toEqual(['a', 'c', 'b'])
    // Downloads are for a signed-in fan only.
    fireEvent.click(screen.getByRole('button', { name: 'More options for Song a' }))
    expect(screen.queryByRole('menuitem', { name: 'Download' })).toBeNull()
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Add to queue' }))
    expect(usePlayerStore.getState().currentTrack?.id).toBe('a')
  })
})

describe('the audio behind a card', () => {
  it('is signed with the screen\'s other tracks after the first paint, so Play does not wait for storage', async () => {
    const { backend } = installFakeApi({})
    const tracks = ['a', 'b', 'c'].map((n) => aTrack({ id: `t-${n}`, title: `Song ${n}`, audioUrl: `/storage/v1/object/public/tracks/u1/${n}.mp3` }))
    renderApp([{ path: '/', element: <>{tracks.map((t) => <TrackCard key={t.id} track={t} list={tracks} />)}</> }], '/')
    await screen.findByRole('button', { name: 'Play Song c' })
    expect(backend.calls('storage/sign-many/tracks')).toHaveLength(0)
    await waitFor(() => expect(backend.calls('storage/sign-many/tracks')).toHaveLength(1))
    expect(backend.calls('storage/sign-many/tracks')[0].body).toEqual({ paths: ['u1/a.mp3', 'u1/b.mp3', 'u1/c.mp3'] })
  })
})
