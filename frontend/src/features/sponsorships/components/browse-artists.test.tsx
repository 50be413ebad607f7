// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { installFakeApi, renderApp } from '@/test/app'
import { pgError } from '@/test/fake-backend'
import { BrowseArtists } from './browse-artists'

// A sponsor browses artists and their unsponsored tracks and invites one for
// a track chosen in the dialog, against a fake API.

const SPONSOR = '00000000-0000-4000-8000-00000000b001'
const ADA = '00000000-0000-4000-8000-00000000a001'

const world = (onInsert?: (row: Record<string, unknown>) => Record<string, unknown> | ReturnType<typeof pgError>) =>
  installFakeApi({
    tables: {
      artist_profiles: [{ id: ADA, name: 'Ada', stream_count: 120 }],
      tracks: [
        { id: 't-1', title: 'Lagos Nights', streams: 90, genre: 'Afrobeats', artist_id: ADA, is_sponsored: false },
        { id: 't-2', title: 'Harmattan', streams: 30, genre: 'Highlife', artist_id: ADA, is_sponsored: false },
        { id: 't-3', title: 'Taken', streams: 500, genre: 'Afrobeats', artist_id: ADA, is_sponsored: true },
      ],
      sponsor_artist_invites: [],
    },
    onInsert: onInsert && { sponsor_artist_invites: onInsert },
  })

async function open(name: string) {
  renderApp([{ path: '/', element: <BrowseArtists sponsorId={SPONSOR} /> }], '/')
  await screen.findByText('Ada')
  fireEvent.click(screen.getByRole('button', { name }))
  return screen.findByRole('dialog')
}

describe('the invite dialog', () => {
  it("requires a track, lists only the artist's unsponsored tracks, and sends the one chosen", async () => {
    const { backend } = world()
    const dialog = await open('Invite artist')
    const select = within(dialog).getByLabelText<HTMLSelectElement>('Track')
    expect([...select.options].filter((o) => !o.disabled).map((o) => o.textContent)).toEqual(['Lagos Nights · 90 streams', 'Harmattan · 30 streams'])
    const send = within(dialog).getByRole('button', { name: 'Send invitation' })
    expect(send.hasAttribute('disabled')).toBe(true)
    fireEvent.change(select, { target: { value: 't-2' } })
    fireEvent.change(within(dialog).getByLabelText('Your pitch'), { target: { value: 'Your highlife is timeless' } })
    expect(send.hasAttribute('disabled')).toBe(false)
    fireEvent.click(send)
    await screen.findByText('Invitation sent')
    expect(backend.calls('sponsor_artist_invites', 'POST').map((c) => c.body)).toEqual([
      { artist_id: ADA, sponsor_id: SPONSOR, track_id: 't-2', pitch: 'Your highlife is timeless' },
    ])
  })

  it("starts from the track whose Sponsor button was pressed", async () => {
    const { backend } = world()
    const dialog = await open('Invite for Lagos Nights')
    expect(within(dialog).getByLabelText<HTMLSelectElement>('Track').value).toBe('t-1')
    expect(within(dialog).getByText(/Offer to sponsor “Lagos Nights”/)).toBeTruthy()
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send invitation' }))
    await waitFor(() => expect(backend.calls('sponsor_artist_invites', 'POST')).toHaveLength(1))
    expect(backend.calls('sponsor_artist_invites', 'POST')[0].body).toMatchObject({ track_id: 't-1' })
  })

  it("shows the database's refusal", async () => {
    world(() => pgError(400, 'P0001', 'Track is already sponsored'))
    const dialog = await open('Invite for Harmattan')
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send invitation' }))
    await screen.findByText('Could not send the invitation')
    await screen.findByText('Track is already sponsored')
  })
})
