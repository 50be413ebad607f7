// @vitest-environment jsdom
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { Outlet } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { Role } from '@/config/nav'
import { usePlayerStore } from '@/stores/player-store'
import { Location, renderApp, signIn, installFakeApi } from '@/test/app'
import { Answer } from '@/test/fake-backend'
import { fakeMedia } from '@/test/media'
import { useSettingsStore } from '@/stores/settings-store'
import { OFFLINE_PLAY_NOTICE } from '../hooks/use-listen-rules'
import { FAN, SPONSOR, clientTrack, streamWorld, trackRow } from '../test/stream-world'
import { AUTO_COLLAPSE_MS, PlayerBar } from './player-bar'

// The player bar as the app shows it: on every page (a layout route), over
// the app's provider, with its listening rules talking to a fake API.

function Layout() {
  return (
    <>
      <Location />
      <Outlet />
      <PlayerBar />
    </>
  )
}

const routes = [
  {
    element: <Layout />,
    children: [
      { path: '/', element: <h1>Home page</h1> },
      { path: '/register', element: <h1>Register</h1> },
    ],
  },
]

const track = clientTrack({ title: 'Lagos Nights', artist: 'Ada' })
const sponsoredTrack = clientTrack({ title: 'Lagos Nights', artist: 'Ada', isSponsored: true, sponsorId: SPONSOR, sponsorName: 'Zenith Sounds' })

/** start signs role in (or nobody), renders the app and selects t, as a track card does. */
async function start(role: Role | null, t = track, over: Parameters<typeof streamWorld>[0] = {}, media = fakeMedia()) {
  if (role) signIn({ id: FAN })
  const api = installFakeApi(
    streamWorld({
      ...over,
      tables: { favorites: [], notifications: [], ...over.tables },
      rpc: {
        get_app_bootstrap: () => ({
          settings: { coming_soon: false, countdown_target: null },
          user: role && { id: FAN, role, profile: null, role_profile: null, suspended: false, suspended_reason: null, unread_notifications: 0, session_recorded: true },
        }),
        ...over.rpc,
      },
    }),
  )
  renderApp(routes, '/')
  await screen.findByRole('heading', { name: 'Home page' })
  if (role) await waitFor(() => expect(api.backend.calls('rpc/get_app_bootstrap')).toHaveLength(1))
  act(() => usePlayerStore.getState().playTrack(t))
  await screen.findByTestId('player-bar')
  return { ...api, media }
}

const audio = () => screen.getByTestId<HTMLAudioElement>('player-audio')
const buttons = (name: string) => screen.getAllByRole('button', { name })
/** seconds lets the clock run, one second at a time, as the audio plays. */
const seconds = (n: number) => act(() => vi.advanceTimersByTimeAsync(n * 1000))

describe('player bar', () => {
  beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }))
  afterEach(() => vi.useRealTimers())

  it('shows nothing until a track is selected', async () => {
    installFakeApi(streamWorld())
    renderApp(routes, '/')
    await screen.findByRole('heading', { name: 'Home page' })
    expect(screen.queryByTestId('player-bar')).toBeNull()
  })

  it('plays the selected track and pauses and resumes it from the bar', async () => {
    const { media } = await start('fan')
    expect(screen.getAllByText('Lagos Nights').length).toBeGreaterThan(0)
    expect(screen.getAllByText('Ada').length).toBeGreaterThan(0)
    await waitFor(() => expect(audio().src).toBe('http://backend.test/storage/v1/object/sign/tracks/x.mp3?token=signed-x.mp3'))
    await waitFor(() => expect(media.play).toHaveBeenCalledTimes(1))
    expect(audio().paused).toBe(false)

    fireEvent.click(buttons('Pause')[0])
    expect(audio().paused).toBe(true)
    expect(screen.queryAllByRole('button', { name: 'Pause' })).toHaveLength(0)

    fireEvent.click(buttons('Play')[0])
    expect(media.play).toHaveBeenCalledTimes(2)
    expect(audio().paused).toBe(false)
  })

  it('says the track cannot play and stops when the browser refuses it', async () => {
    const media = fakeMedia()
    media.refuse('NotSupportedError')
    installFakeApi(streamWorld())
    renderApp(routes, '/')
    await screen.findByRole('heading', { name: 'Home page' })
    act(() => usePlayerStore.getState().playTrack(track))
    await screen.findByText('Playback error - Could not play this track')
    expect(usePlayerStore.getState().isPlaying).toBe(false)
    expect(buttons('Play').length).toBeGreaterThan(0)
  })

  it('says the track cannot play when its file fails to load', async () => {
    await start('fan')
    fireEvent.error(audio())
    await screen.findByText('Playback error - Could not play this track')
    expect(buttons('Play').length).toBeGreaterThan(0)
  })

  it('mutes and unmutes', async () => {
    await start('fan')
    fireEvent.click(buttons('Mute')[0])
    expect(audio().volume).toBe(0)
    fireEvent.click(buttons('Unmute')[0])
    expect(audio().volume).toBeGreaterThan(0)
  })

  it('expands to Now Playing with the sponsor named, and minimizes back', async () => {
    await start('fan', sponsoredTrack)
    expect(screen.getByRole('link', { name: 'Sponsored' }).getAttribute('href')).toBe(`/profile/${SPONSOR}`)
    fireEvent.click(buttons('Expand player')[0])
    expect(screen.getByText('Now Playing')).toBeTruthy()
    expect(screen.getByText('by Ada')).toBeTruthy()
    expect(screen.getByText('This track is sponsored by Zenith Sounds')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Minimize' }))
    expect(screen.queryByText('Now Playing')).toBeNull()
    expect(screen.getByTestId('player-bar')).toBeTruthy()
  })

  it('collapses the expanded player after 5 s without interaction, counted from the last one', async () => {
    await start('fan')
    fireEvent.click(buttons('Expand player')[0])
    await act(() => vi.advanceTimersByTimeAsync(AUTO_COLLAPSE_MS - 1000))
    fireEvent.mouseMove(screen.getByTestId('player-expanded'))
    await act(() => vi.advanceTimersByTimeAsync(AUTO_COLLAPSE_MS - 1000))
    expect(screen.getByText('Now Playing')).toBeTruthy()
    await act(() => vi.advanceTimersByTimeAsync(1000))
    expect(screen.queryByText('Now Playing')).toBeNull()
  })

  it('adds the playing track to a playlist from the expanded player, which stays expanded meanwhile', async () => {
    const { backend } = await start('fan', track, { tables: { playlists: [{ id: 'p-1', user_id: FAN, name: 'Chill', created_at: '2026-01-01' }], playlist_tracks: [] } })
    fireEvent.click(buttons('Expand player')[0])
    fireEvent.click(within(screen.getByTestId('player-expanded')).getByRole('button', { name: 'Add Lagos Nights to a playlist' }))
    const dialog = await screen.findByRole('dialog')
    const chill = await within(dialog).findByRole('button', { name: /Chill/ })
    // Longer than the auto-collapse, and a press inside the dialog: still expanded.
    await act(() => vi.advanceTimersByTimeAsync(AUTO_COLLAPSE_MS + 1000))
    fireEvent.mouseDown(chill)
    fireEvent.click(chill)
    await screen.findByText('Added to Chill')
    expect(screen.getByText('Now Playing')).toBeTruthy()
    expect(backend.calls('playlist_tracks', 'POST').map((c) => c.body)).toEqual([{ playlist_id: 'p-1', track_id: track.id }])
  })

  it('asks a visitor to sign in to like', async () => {
    const { backend } = await start(null)
    fireEvent.click(buttons('Like')[0])
    await screen.findByText('Sign in to like tracks')
    expect(backend.calls('favorites', 'POST')).toHaveLength(0)
  })

  it("likes the track for a signed-in user, and unlikes it", async () => {
    const { backend } = await start('fan')
    fireEvent.click(buttons('Like')[0])
    await waitFor(() => expect(buttons('Liked')[0].getAttribute('aria-pressed')).toBe('true'))
    expect(backend.tables.favorites).toEqual([expect.objectContaining({ track_id: track.id, user_id: FAN })])
    fireEvent.click(buttons('Liked')[0])
    await waitFor(() => expect(buttons('Like')[0].getAttribute('aria-pressed')).toBe('false'))
    expect(backend.tables.favorites).toEqual([])
  })

  it('stops a visitor after the 10-second preview and sends them to sign up', async () => {
    await start(null)
    await seconds(9)
    expect(screen.queryByText('Preview limit reached - Create an account to enjoy full songs!')).toBeNull()
    await seconds(1)
    await screen.findByText('Preview limit reached - Create an account to enjoy full songs!')
    expect(audio().paused).toBe(true)
    await act(() => vi.advanceTimersByTimeAsync(500))
    await screen.findByRole('heading', { name: 'Register' })
    expect(screen.getByTestId('location').textContent).toBe('/register')
    expect(screen.queryByTestId('player-bar')).toBeNull()
  })

  it('ends a preview track after 10 s for a signed-in fan', async () => {
    await start('fan', clientTrack({ isPreview: true }))
    await seconds(10)
    await screen.findByText('Preview ended - 10-second preview has finished')
    expect(audio().paused).toBe(true)
  })

  it('ends a queued preview after 10 s and goes on to the next track, a play of its own', async () => {
    const preview = clientTrack({ isPreview: true })
    const after = clientTrack({ id: '00000000-0000-4000-8000-00000000c003', title: 'Enugu Rain' })
    const { backend } = await start('fan', preview, { tables: { tracks: [trackRow(), trackRow({ id: after.id })] } })
    act(() => usePlayerStore.getState().playQueue([preview, after], 0))
    await seconds(10)
    await screen.findByText('Preview ended - 10-second preview has finished')
    await seconds(1)
    await waitFor(() => expect(screen.getAllByText('Enugu Rain').length).toBeGreaterThan(0))
    await waitFor(() => expect((backend.calls('rpc/start_play').at(-1)?.body as { p_track_id: string }).p_track_id).toBe(after.id))
    expect(audio().paused).toBe(false)
  })

  it("counts a fan's stream once 30 s have really played, pauses not included", async () => {
    const { backend } = await start('fan')
    await waitFor(() => expect(backend.calls('rpc/start_play')).toHaveLength(1))
    await seconds(20)
    fireEvent.click(buttons('Pause')[0])
    await seconds(60)
    fireEvent.click(buttons('Play')[0])
    await seconds(9)
    // 29 s played: the clock has moved 89 s, and nothing was recorded.
    expect(backend.calls('rpc/finish_play')).toHaveLength(0)
    await seconds(1)
    await screen.findByText('Stream counted!')
    expect(backend.calls('rpc/finish_play').map((c) => c.body)).toEqual([{ p_play_id: 'play-1', p_duration: 30 }])
    expect(backend.tables.streams).toEqual([expect.objectContaining({ track_id: track.id, is_valid: true, duration: 30 })])
    // One stream per play: another minute records nothing more.
    await seconds(60)
    expect(backend.calls('rpc/finish_play')).toHaveLength(1)
    expect(backend.calls('rpc/start_play')).toHaveLength(1)
  })

  it('does not count the seconds the audio spends loading', async () => {
    const media = fakeMedia()
    media.hold()
    const { backend } = await start('fan', track, {}, media)
    await seconds(40)
    expect(audio().paused).toBe(true)
    await act(async () => media.release())
    expect(audio().paused).toBe(false)
    await seconds(29)
    // 29 s played, 69 s since the track was selected: nothing recorded yet.
    expect(backend.calls('rpc/finish_play')).toHaveLength(0)
    await seconds(1)
    await screen.findByText('Stream counted!')
  })

  it('stops a fan with no streams left as the track starts, and clears it after 1 s', async () => {
    const { backend } = await start('fan', track, { refuse: 'Daily stream limit reached! You have 0 streams remaining today.' })
    await screen.findByText('Daily stream limit reached! You have 0 streams remaining today.')
    expect(audio().paused).toBe(true)
    await act(() => vi.advanceTimersByTimeAsync(1000))
    expect(screen.queryByTestId('player-bar')).toBeNull()
    expect(backend.calls('rpc/finish_play')).toHaveLength(0)
  })

  it('stops a fan when the play cannot be started at all (a failed limit check means none left)', async () => {
    await start('fan', track, { rpc: { start_play: () => new Answer(503, { code: 'PGRST002', details: null, hint: null, message: 'Could not query the database for the schema cache. Retrying.' }) } })
    await screen.findByText('Daily stream limit reached! You have 0 streams remaining today.')
    expect(audio().paused).toBe(true)
  })

  it('sends the sponsored toasts of one play from its two requests', async () => {
    const { backend } = await start('fan', sponsoredTrack, { tables: { tracks: [{ id: sponsoredTrack.id, artist_id: sponsoredTrack.artistId, is_sponsored: true, sponsor_id: SPONSOR, streams: 7 }] } })
    await seconds(30)
    await screen.findByText('Sponsored stream counted!')
    await seconds(1)
    await screen.findByText('₦50 credited to artist from sponsor!')
    await seconds(3)
    await screen.findByText("₦50 was automatically transferred from the sponsor to the artist's wallet.")
    expect(backend.sent.filter((s) => /^rpc\/(start_play|finish_play)$|^functions\/|^streams$/.test(s.target)).map((s) => s.target)).toEqual(['rpc/start_play', 'rpc/finish_play'])
  })

  it("reports a recorded play's whole listen when it pauses and when the next track starts, never a play without a stream", async () => {
    const { backend } = await start('fan')
    await seconds(42)
    expect(backend.calls('rpc/finish_play')).toHaveLength(1)
    expect(backend.calls('rpc/record_listen')).toHaveLength(0)
    fireEvent.click(buttons('Pause')[0])
    await waitFor(() => expect(backend.calls('rpc/record_listen').map((c) => c.body)).toEqual([{ p_play_id: 'play-1', p_seconds: 42 }]))
    // Nothing more heard: nothing more to say.
    fireEvent.click(buttons('Play')[0])
    fireEvent.click(buttons('Pause')[0])
    fireEvent.click(buttons('Play')[0])
    await seconds(5)
    act(() => usePlayerStore.getState().playTrack(clientTrack({ id: '00000000-0000-4000-8000-0000000000c9', title: 'Abuja Mornings', artist: 'Ada' })))
    await waitFor(() => expect(backend.calls('rpc/record_listen').map((c) => c.body)).toEqual([{ p_play_id: 'play-1', p_seconds: 42 }, { p_play_id: 'play-1', p_seconds: 47 }]))
    expect(backend.tables.play_sessions.find((p) => p.id === 'play-1')?.listened_seconds).toBe(47)
    // The next play has no stream before 30 s: its pause reports nothing.
    await waitFor(() => expect(backend.calls('rpc/start_play')).toHaveLength(2))
    await seconds(10)
    fireEvent.click(buttons('Pause')[0])
    await seconds(2)
    expect(backend.calls('rpc/record_listen')).toHaveLength(2)
  })

  it('makes each track of a queue its own play: Next and autoplay each open one, repeat one replays as a new play', async () => {
    const second = clientTrack({ id: '00000000-0000-4000-8000-00000000c002', title: 'Abuja Mornings' })
    const { backend } = await start('fan', track, { tables: { tracks: [trackRow(), trackRow({ id: second.id })] } })
    await waitFor(() => expect(backend.calls('rpc/start_play')).toHaveLength(1))
    act(() => usePlayerStore.getState().playQueue([track, second], 0))
    await waitFor(() => expect(backend.calls('rpc/start_play')).toHaveLength(2))
    // The expanded player lists what comes next.
    fireEvent.click(buttons('Expand player')[0])
    expect(within(await screen.findByTestId('up-next')).getByRole('button', { name: 'Abuja Mornings · Ada' })).toBeTruthy()
    fireEvent.click(buttons('Next')[0])
    await waitFor(() => expect(screen.getAllByText('Abuja Mornings').length).toBeGreaterThan(0))
    expect(screen.queryByTestId('up-next')).toBeNull()
    await waitFor(() => expect(backend.calls('rpc/start_play').map((c) => (c.body as { p_track_id: string }).p_track_id)).toEqual([track.id, track.id, second.id]))
    // At the end of the last track, repeat off: the player stops and asks nothing more.
    fireEvent.ended(audio())
    await waitFor(() => expect(buttons('Play').length).toBeGreaterThan(0))
    fireEvent.click(buttons('Repeat: off')[0])
    fireEvent.click(buttons('Repeat: all')[0])
    fireEvent.click(buttons('Play')[0])
    fireEvent.ended(audio())
    await waitFor(() => expect(backend.calls('rpc/start_play')).toHaveLength(4))
    expect((backend.calls('rpc/start_play')[3].body as { p_track_id: string }).p_track_id).toBe(second.id)
  })

  it('asks nothing for a track restored from the device until it plays', async () => {
    fakeMedia()
    signIn({ id: FAN })
    const api = installFakeApi(streamWorld({ tables: { favorites: [], notifications: [] }, rpc: { get_app_bootstrap: () => ({ settings: { coming_soon: false, countdown_target: null }, user: { id: FAN, role: 'fan', profile: null, role_profile: null, suspended: false, suspended_reason: null, unread_notifications: 0, session_recorded: true } }) } }))
    usePlayerStore.setState({ currentTrack: track, queue: [track], index: 0, isPlaying: false })
    renderApp(routes, '/')
    await screen.findByTestId('player-bar')
    await waitFor(() => expect(api.backend.calls('rpc/get_app_bootstrap')).toHaveLength(1))
    await seconds(3)
    expect(api.backend.calls('rpc/start_play')).toHaveLength(0)
    fireEvent.click(buttons('Play')[0])
    await waitFor(() => expect(api.backend.calls('rpc/start_play')).toHaveLength(1))
  })

  describe('offline', () => {
    beforeEach(() => {
      useSettingsStore.setState({ offlineNoticeShown: false })
      vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false)
    })
    afterEach(() => vi.restoreAllMocks())

    it('never starts or finishes a play on the server, and says so once', async () => {
      const { backend } = await start('fan')
      await screen.findByText(OFFLINE_PLAY_NOTICE)
      await seconds(40)
      expect(backend.calls('rpc/start_play')).toHaveLength(0)
      expect(backend.calls('rpc/finish_play')).toHaveLength(0)
      expect(backend.tables.streams).toEqual([])
      // The notice has gone; the next offline play does not bring it back.
      expect(screen.queryByText(OFFLINE_PLAY_NOTICE)).toBeNull()
      act(() => usePlayerStore.getState().playTrack(clientTrack({ id: 'other', title: 'Kano Dusk' })))
      await waitFor(() => expect(screen.getAllByText('Kano Dusk').length).toBeGreaterThan(0))
      await seconds(2)
      expect(screen.queryByText(OFFLINE_PLAY_NOTICE)).toBeNull()
      expect(useSettingsStore.getState().offlineNoticeShown).toBe(true)
      expect(backend.calls('rpc/start_play')).toHaveLength(0)
    })
  })
})
