// @vitest-environment jsdom
import { fireEvent, screen, within } from '@testing-library/react'
import { describe, expect, it, vi } from 'vitest'
import { installFakeApi, renderApp } from '@/test/app'
import { MyTracks, SPONSORED_PITCH_TOOLTIP, type StudioTrack } from './my-tracks'

const ARTIST = '00000000-0000-4000-8000-0000000000a1'
const SPONSOR = '00000000-0000-4000-8000-0000000000b1'

const track = (over: Partial<StudioTrack>): StudioTrack => ({
  id: 't1',
  title: 'Lagos Nights',
  genre: 'Afrobeats',
  duration: 95,
  release_date: null,
  description: null,
  is_explicit: false,
  is_sponsored: false,
  sponsor_id: null,
  sponsor_name: null,
  streams_valid: 12,
  streams_all: 15,
  earnings: 600,
  ...over,
})

const tracks = [track({}), track({ id: 't2', title: 'Owambe', is_sponsored: true, sponsor_id: SPONSOR, sponsor_name: 'Lagoon Telecom', earnings: 50 })]

/** show renders the artist's tracks on a screen of the given width. */
function show(width: number) {
  vi.stubGlobal('innerWidth', width)
  installFakeApi({ tables: { sponsor_profiles: [] }, rpc: { get_app_bootstrap: () => ({ settings: { coming_soon: false, countdown_target: null }, user: null }) } })
  renderApp([{ path: '*', element: <MyTracks userId={ARTIST} tracks={tracks} /> }], '/')
}

describe("the artist's tracks on a phone", () => {
  it('shows every track as a card with its sponsor, earnings and the Pitch, edit and delete actions', async () => {
    show(360)
    const cards = await screen.findAllByTestId('artist-track-row')
    expect(cards).toHaveLength(2)
    expect(screen.queryByRole('table')).toBeNull()
    const owambe = within(cards[1])
    expect(owambe.getByText('Owambe')).toBeTruthy()
    expect(owambe.getByRole('link', { name: 'Lagoon Telecom' }).getAttribute('href')).toBe(`/profile/${SPONSOR}`)
    expect(owambe.getByText('₦50')).toBeTruthy()
    expect(owambe.getByText('12 / 15')).toBeTruthy()
    // A sponsored track's Pitch is there, disabled, with the reason.
    expect(owambe.getByLabelText(SPONSORED_PITCH_TOOLTIP)).toBeTruthy()
    expect(owambe.getByRole('button', { name: 'Edit Owambe', hidden: true })).toBeTruthy()
    const lagos = within(cards[0])
    fireEvent.click(lagos.getByRole('button', { name: 'Pitch' }))
    await screen.findByRole('heading', { name: 'Pitch "Lagos Nights"' })
  })

  it('opens the delete question from a card', async () => {
    show(390)
    const [card] = await screen.findAllByTestId('artist-track-row')
    fireEvent.click(within(card).getByRole('button', { name: 'Delete Lagos Nights' }))
    await screen.findByRole('heading', { name: 'Delete "Lagos Nights"?' })
  })
})

describe("the artist's tracks on a desktop", () => {
  it('is a table with every column', async () => {
    show(1440)
    const table = await screen.findByRole('table')
    const headers = within(table)
      .getAllByRole('columnheader')
      .map((h) => h.textContent)
    expect(headers).toEqual(['Track', 'Streams (valid / all)', 'Earnings', 'Sponsor', 'Actions'])
    expect(within(table).getAllByTestId('artist-track-row')).toHaveLength(2)
    expect(within(table).getByRole('button', { name: 'Edit Lagos Nights' })).toBeTruthy()
  })
})
