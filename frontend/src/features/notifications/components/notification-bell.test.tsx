// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { pgError, type BackendSetup, type Row } from '@/test/fake-backend'
import { Location, renderApp, signIn, installFakeApi } from '@/test/app'
import { NotificationBell } from './notification-bell'

const ARTIST = '00000000-0000-4000-8000-0000000000a1'
const INVITE = '00000000-0000-4000-8000-0000000000e1'

let clock = Date.parse('2026-03-01T12:00:00Z')
const note = (id: string, over: Row = {}): Row => ({
  id,
  user_id: ARTIST,
  type: 'system_update',
  title: `Title ${id}`,
  message: `Message ${id}`,
  is_read: false,
  data: null,
  created_at: new Date((clock += 60_000)).toISOString(),
  ...over,
})

const invite = (over: Row = {}) =>
  note('inv', { type: 'sponsor_invite', title: 'New sponsorship request', message: 'Zenith Sounds wants to sponsor Lagos Nights', data: { invite_id: INVITE, pitch: 'Let us grow together' }, ...over })

/** start signs the artist in with unread notifications said by the bootstrap, and renders the bell. */
async function start(notifications: Row[], over: { unread?: number; rpc?: BackendSetup['rpc']; invites?: Row[] } = {}) {
  signIn({ id: ARTIST })
  const api = installFakeApi({
    tables: { notifications, sponsor_artist_invites: over.invites ?? [{ id: INVITE, status: 'pending' }] },
    rpc: {
      get_app_bootstrap: () => ({
        settings: { coming_soon: false, countdown_target: null },
        user: { id: ARTIST, role: 'artist', profile: null, role_profile: null, suspended: false, suspended_reason: null, unread_notifications: over.unread ?? notifications.filter((n) => !n.is_read).length, session_recorded: true },
      }),
      ...over.rpc,
    },
  })
  renderApp(
    [
      {
        path: '*',
        element: (
          <>
            <Location />
            <NotificationBell />
          </>
        ),
      },
    ],
    '/',
  )
  await screen.findByRole('button', { name: 'Notifications' })
  return api
}

const badge = () => screen.queryByTestId('unread-badge')?.textContent ?? null
// The open menu hides the rest of the page from assistive technology (no role, no name): the trigger is found by its label.
const bell = () => screen.getByLabelText('Notifications', { selector: 'button' })
const live = () => waitFor(() => expect(bell().getAttribute('data-live')).toBe('true'))
const open = async () => {
  fireEvent.keyDown(bell(), { key: 'Enter' })
  return screen.findByRole('menu')
}
/** item is the list entry whose title is given. */
const item = (title: string) => screen.getByText(title).closest('li') as HTMLElement
const listReads = (backend: ReturnType<typeof installFakeApi>['backend']) => backend.calls('notifications', 'GET').filter((c) => c.query.get('select') === '*')

describe('notification bell', () => {
  it("shows the bootstrap's unread count without reading the list, and reads it when opened", async () => {
    const { backend } = await start([note('a'), note('b'), note('c', { is_read: true })])
    await waitFor(() => expect(badge()).toBe('2'))
    expect(backend.calls('notifications')).toHaveLength(0)
    const menu = await open()
    await within(menu).findByText('Title a')
    expect(within(menu).getByText('Message b')).toBeTruthy()
    expect(within(menu).getByText('Title c')).toBeTruthy()
    expect(listReads(backend)).toHaveLength(1)
    // Newest first.
    expect(within(menu).getAllByText(/^Title /).map((e) => e.textContent)).toEqual(['Title c', 'Title b', 'Title a'])
  })

  it('shows no badge when nothing is unread', async () => {
    await start([note('a', { is_read: true })])
    await open()
    await screen.findByText('Title a')
    expect(badge()).toBeNull()
  })

  it('marks one as read: the database is told, the badge counts one less', async () => {
    const { backend } = await start([note('a'), note('b')])
    await open()
    await screen.findByText('Title a')
    expect(badge()).toBe('2')
    fireEvent.click(within(item('Title a')).getByRole('button', { name: 'Mark as read' }))
    await waitFor(() => expect(badge()).toBe('1'))
    expect(backend.tables.notifications.find((n) => n.id === 'a')?.is_read).toBe(true)
    expect(backend.calls('notifications', 'PATCH')[0].query.get('id')).toBe('eq.a')
    expect(within(item('Title a')).queryByRole('button', { name: 'Mark as read' })).toBeNull()
  })

  it('marks all read and the badge goes', async () => {
    const { backend } = await start([note('a'), note('b'), note('c')])
    await open()
    await screen.findByText('Title a')
    fireEvent.click(screen.getByRole('button', { name: 'Mark all read' }))
    await waitFor(() => expect(badge()).toBeNull())
    expect(backend.tables.notifications.every((n) => n.is_read)).toBe(true)
    expect((screen.getByRole('button', { name: 'Mark all read' }) as HTMLButtonElement).disabled).toBe(true)
  })

  it('deletes a read notification, and offers no delete for an unread one', async () => {
    const { backend } = await start([note('a', { is_read: true }), note('b')])
    await open()
    await screen.findByText('Title a')
    expect(within(item('Title b')).queryByRole('button', { name: 'Delete notification' })).toBeNull()
    fireEvent.click(within(item('Title a')).getByRole('button', { name: 'Delete notification' }))
    await waitFor(() => expect(screen.queryByText('Title a')).toBeNull())
    expect(backend.tables.notifications.map((n) => n.id)).toEqual(['b'])
  })

  it('lists only the unread ones in the Unread tab', async () => {
    await start([note('a', { is_read: true }), note('b')])
    await open()
    await screen.findByText('Title a')
    const unread = screen.getByRole('tab', { name: 'Unread' })
    fireEvent.mouseDown(unread)
    fireEvent.click(unread)
    await waitFor(() => expect(screen.queryByText('Title a')).toBeNull())
    expect(screen.getByText('Title b')).toBeTruthy()
  })

  it('says so when there are none', async () => {
    await start([])
    await open()
    await screen.findByText('No notifications')
  })

  it('pages the list five at a time', async () => {
    await start(Array.from({ length: 7 }, (_, i) => note(`n${i}`)))
    await open()
    await screen.findByText('Title n6')
    expect(screen.getAllByText(/^Title /)).toHaveLength(5)
    expect(screen.queryByText('Title n1')).toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'Next' }))
    await screen.findByText('Title n1')
    expect(screen.getAllByText(/^Title /).map((e) => e.textContent)).toEqual(['Title n1', 'Title n0'])
  })

  it('counts a new notification on the badge as it arrives, panel closed, without reading the list', async () => {
    const { backend, realtime } = await start([note('a')])
    await waitFor(() => expect(badge()).toBe('1'))
    await live()
    realtime.insert('notifications', note('b'))
    await waitFor(() => expect(badge()).toBe('2'))
    // Another user's notification is not delivered to this one.
    realtime.insert('notifications', note('x', { user_id: 'someone-else' }))
    realtime.insert('notifications', note('c'))
    await waitFor(() => expect(badge()).toBe('3'))
    expect(listReads(backend)).toHaveLength(0)
  })

  it('puts a new notification at the top of the open panel', async () => {
    const { realtime } = await start([note('a')])
    await open()
    await screen.findByText('Title a')
    await live()
    realtime.insert('notifications', note('new', { title: 'Cash-out completed', type: 'cashout_completed', message: '₦2,500.00 has been paid', data: { amount: 2500 } }))
    await screen.findByText('Cash-out completed')
    expect(screen.getAllByText(/^(Title |Cash-out)/).map((e) => e.textContent)).toEqual(['Cash-out completed', 'Title a'])
    expect(within(item('Cash-out completed')).getByText('₦2,500')).toBeTruthy()
    expect(badge()).toBe('2')
  })

  it('accepts a sponsorship invite: the database answers it, the spec toast shows, the item says Accepted', async () => {
    const { backend } = await start([invite()], {
      rpc: {
        respond_to_invite: (args, b) => {
          b.tables.sponsor_artist_invites[0].status = args.p_accept ? 'accepted' : 'rejected'
          return { success: true, invite_id: args.p_invite_id, status: b.tables.sponsor_artist_invites[0].status }
        },
      },
    })
    await open()
    await screen.findByText('Let us grow together')
    fireEvent.click(within(item('New sponsorship request')).getByRole('button', { name: 'Accept' }))
    await screen.findByText('Invitation Accepted')
    expect(screen.getByText('You have successfully accepted the sponsorship request')).toBeTruthy()
    expect(backend.calls('rpc/respond_to_invite').map((c) => c.body)).toEqual([{ p_invite_id: INVITE, p_accept: true }])
    await waitFor(() => expect(within(item('New sponsorship request')).getByTestId('invite-state').textContent).toBe('Accepted'))
    expect(within(item('New sponsorship request')).queryByRole('button', { name: 'Accept' })).toBeNull()
    expect(backend.tables.notifications[0].is_read).toBe(true)
  })

  it('declines a sponsorship invite with the spec toast', async () => {
    const { backend } = await start([invite()], {
      rpc: {
        respond_to_invite: (args, b) => {
          b.tables.sponsor_artist_invites[0].status = 'rejected'
          return { success: true, invite_id: args.p_invite_id, status: 'rejected' }
        },
      },
    })
    await open()
    await screen.findByText('Let us grow together')
    fireEvent.click(within(item('New sponsorship request')).getByRole('button', { name: 'Decline' }))
    await screen.findByText('Invitation Declined')
    expect(screen.getByText('You have declined the sponsorship request')).toBeTruthy()
    expect(backend.calls('rpc/respond_to_invite').map((c) => c.body)).toEqual([{ p_invite_id: INVITE, p_accept: false }])
    await waitFor(() => expect(within(item('New sponsorship request')).getByTestId('invite-state').textContent).toBe('Declined'))
  })

  it.each([
    ['an invite without its id', invite({ data: { pitch: 'Let us grow together' } }), () => null, 'Invalid invitation data', 0],
    ['an invite answered already', invite(), () => pgError(400, 'P0001', 'This invitation has already been answered'), 'This invitation has already been answered', 1],
    ['an invite the database fails on', invite(), () => pgError(500, 'XX000', 'boom'), 'Failed to process the invitation', 1],
  ])('says what went wrong for %s', async (_case, n, respond, description, calls) => {
    const { backend } = await start([n], { rpc: { respond_to_invite: respond } })
    await open()
    await screen.findByText('Let us grow together')
    fireEvent.click(within(item('New sponsorship request')).getByRole('button', { name: 'Accept' }))
    await screen.findByText(description)
    expect(screen.getByText('Error')).toBeTruthy()
    expect(backend.calls('rpc/respond_to_invite')).toHaveLength(calls)
    expect(backend.tables.notifications[0].is_read).toBe(false)
  })
})
