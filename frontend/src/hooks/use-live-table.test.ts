import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { openLiveTable, REFRESH_DELAY_MS, REJOIN_DELAY_MS, type LiveClient } from './use-live-table'

// A stand-in for supabase-js's channel API: records bindings, lets the test
// deliver changes and join statuses, and records removals.
class FakeChannel {
  bindings: { type: string; filter: Record<string, unknown> }[] = []
  deliver: (change: unknown) => void = () => {}
  status: (s: string) => void = () => {}
  constructor(
    readonly topic: string,
    readonly opts: unknown,
  ) {}
  on(type: string, filter: Record<string, unknown>, cb: (change: unknown) => void) {
    this.bindings.push({ type, filter })
    this.deliver = cb
    return this
  }
  subscribe(cb: (s: string) => void) {
    this.status = cb
    return this
  }
}

function fakeClient() {
  const channels: FakeChannel[] = []
  const removed: FakeChannel[] = []
  let authorize: () => void = () => {}
  const session = new Promise<void>((r) => (authorize = r))
  const sb = {
    realtime: { setAuth: () => session },
    channel: (topic: string, opts: unknown) => {
      const ch = new FakeChannel(topic, opts)
      channels.push(ch)
      return ch
    },
    removeChannel: (ch: FakeChannel) => {
      removed.push(ch)
      return Promise.resolve('ok')
    },
  }
  return { sb: sb as unknown as LiveClient, channels, removed, authorize: () => authorize() }
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve()
}

const spec = { table: 'wallets', filter: 'user_id=eq.u1' }

describe('openLiveTable', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it("joins with the user's session, on a topic of its own, for the table and filter", async () => {
    const f = fakeClient()
    openLiveTable(f.sb, spec, { refresh: () => {} })
    openLiveTable(f.sb, { ...spec, event: 'UPDATE', name: 'mine' }, { refresh: () => {} })
    await settle()
    expect(f.channels).toHaveLength(0) // not before the session is handed over
    f.authorize()
    await settle()
    expect(f.channels.map((c) => c.topic)).toEqual([expect.stringMatching(/^live:wallets:\d+$/), expect.stringMatching(/^live:mine:\d+$/)])
    expect(f.channels[1].bindings).toEqual([{ type: 'postgres_changes', filter: { event: 'UPDATE', schema: 'public', table: 'wallets', filter: 'user_id=eq.u1' } }])
    expect(f.channels[0].bindings[0].filter.event).toBe('*')
    // Private: only signed-in users who are not suspended join (sql/app/0030).
    expect(f.channels.map((c) => c.opts)).toEqual([{ config: { private: true } }, { config: { private: true } }])
  })

  it('refetches once per burst of changes, and hands each change over', async () => {
    const f = fakeClient()
    const refresh = vi.fn()
    const onChange = vi.fn()
    openLiveTable(f.sb, spec, { refresh, onChange })
    f.authorize()
    await settle()
    const ch = f.channels[0]
    ch.status('SUBSCRIBED')
    ch.deliver({ eventType: 'UPDATE', new: { balance: 50 } })
    ch.deliver({ eventType: 'UPDATE', new: { balance: 100 } })
    expect(onChange).toHaveBeenCalledTimes(2)
    expect(refresh).not.toHaveBeenCalled()
    vi.advanceTimersByTime(REFRESH_DELAY_MS)
    expect(refresh).toHaveBeenCalledTimes(1)
    ch.deliver({ eventType: 'UPDATE', new: { balance: 150 } })
    vi.advanceTimersByTime(REFRESH_DELAY_MS)
    expect(refresh).toHaveBeenCalledTimes(2)
  })

  it('waits for a fetch in flight, which may have read the row before the change', async () => {
    const f = fakeClient()
    const refresh = vi.fn()
    let busy = true
    openLiveTable(f.sb, spec, { refresh, busy: () => busy })
    f.authorize()
    await settle()
    f.channels[0].deliver({ eventType: 'UPDATE' })
    vi.advanceTimersByTime(REFRESH_DELAY_MS * 4)
    expect(refresh).not.toHaveBeenCalled()
    busy = false
    vi.advanceTimersByTime(REFRESH_DELAY_MS)
    expect(refresh).toHaveBeenCalledTimes(1)
  })

  it('only hands changes over when the caller patches the cache itself', async () => {
    const f = fakeClient()
    const refresh = vi.fn()
    const onChange = vi.fn()
    openLiveTable(f.sb, spec, { refresh, onChange }, false)
    f.authorize()
    await settle()
    f.channels[0].deliver({ eventType: 'INSERT' })
    vi.advanceTimersByTime(REFRESH_DELAY_MS)
    expect(onChange).toHaveBeenCalledTimes(1)
    expect(refresh).not.toHaveBeenCalled()
  })

  it('reports whether it is joined, and catches up after a rejoin (missed changes are not replayed)', async () => {
    const f = fakeClient()
    const refresh = vi.fn()
    const live: boolean[] = []
    openLiveTable(f.sb, spec, { refresh, onLive: (v) => live.push(v) }, false)
    f.authorize()
    await settle()
    const ch = f.channels[0]
    ch.status('SUBSCRIBED')
    vi.advanceTimersByTime(REFRESH_DELAY_MS)
    expect(refresh).not.toHaveBeenCalled() // the first join follows the first fetch
    ch.status('CHANNEL_ERROR')
    ch.status('TIMED_OUT')
    ch.status('SUBSCRIBED')
    vi.advanceTimersByTime(REFRESH_DELAY_MS)
    expect(refresh).toHaveBeenCalledTimes(1)
    expect(live).toEqual([true, false, true])
  })

  it('opens a new channel when the server closed it (a suspension), and catches up once joined', async () => {
    const f = fakeClient()
    const refresh = vi.fn()
    const live: boolean[] = []
    openLiveTable(f.sb, spec, { refresh, onLive: (v) => live.push(v) }, false)
    f.authorize()
    await settle()
    const first = f.channels[0]
    first.status('SUBSCRIBED')
    first.status('CLOSED')
    expect(f.removed).toEqual([first])
    expect(live).toEqual([true, false])
    vi.advanceTimersByTime(REJOIN_DELAY_MS - 1)
    await settle()
    expect(f.channels).toHaveLength(1)
    vi.advanceTimersByTime(1)
    await settle()
    expect(f.channels).toHaveLength(2)
    const second = f.channels[1]
    expect(second.topic).not.toBe(first.topic)
    first.status('SUBSCRIBED') // the old channel is not listened to any more
    expect(live).toEqual([true, false])
    second.status('SUBSCRIBED')
    vi.advanceTimersByTime(REFRESH_DELAY_MS)
    expect(refresh).toHaveBeenCalledTimes(1)
    expect(live).toEqual([true, false, true])
  })

  it('leaves its channel on close, and nothing fires after', async () => {
    const f = fakeClient()
    const refresh = vi.fn()
    const onLive = vi.fn()
    const close = openLiveTable(f.sb, spec, { refresh, onLive })
    f.authorize()
    await settle()
    const ch = f.channels[0]
    ch.status('SUBSCRIBED')
    ch.deliver({ eventType: 'UPDATE' })
    close()
    expect(f.removed).toEqual([ch])
    ch.status('CLOSED')
    ch.deliver({ eventType: 'UPDATE' })
    vi.advanceTimersByTime(REFRESH_DELAY_MS * 2)
    expect(refresh).not.toHaveBeenCalled()
    expect(onLive.mock.calls).toEqual([[true]])
  })

  it('joins nothing when closed before the session was handed over', async () => {
    const f = fakeClient()
    const close = openLiveTable(f.sb, spec, { refresh: () => {} })
    close()
    f.authorize()
    await settle()
    expect(f.channels).toEqual([])
    expect(f.removed).toEqual([])
  })
})
