import { describe, expect, it } from 'vitest'
import { joinOnline, presentIds, type OnlineClient } from './use-online-presence'

describe('presentIds', () => {
  it('lists the keys that have at least one presence', () => {
    expect(presentIds({ a: [{ online_at: 'x' }], b: [], c: [{}, {}] })).toEqual(new Set(['a', 'c']))
  })
  it('is empty for an empty channel', () => {
    expect(presentIds({})).toEqual(new Set())
  })
})

describe('joinOnline', () => {
  it("joins the private channel with the user's session, tracks once joined, and reports the keys", async () => {
    const events: string[] = []
    let sync = () => {}
    let status: (s: string) => void = () => {}
    let state: Record<string, unknown[]> = {}
    let authorize: () => void = () => {}
    const ch = {
      on: (_type: string, _filter: unknown, cb: () => void) => ((sync = cb), ch),
      subscribe: (cb: (s: string) => void) => ((status = cb), ch),
      presenceState: () => state,
      track: (payload: Record<string, unknown>) => (events.push(`track ${Object.keys(payload).join(',')}`), Promise.resolve('ok')),
    }
    const sb = {
      realtime: { setAuth: () => new Promise<void>((r) => (authorize = r)) },
      channel: (topic: string, opts: unknown) => (events.push(`channel ${topic} ${JSON.stringify(opts)}`), ch),
      removeChannel: () => (events.push('leave'), Promise.resolve('ok')),
    }
    const seen: Set<string>[] = []
    const leave = joinOnline(sb as unknown as OnlineClient, 'u1', (ids) => seen.push(ids))
    await Promise.resolve()
    expect(events).toEqual([]) // not before the session is handed over
    authorize()
    for (let i = 0; i < 5; i++) await Promise.resolve()
    expect(events).toEqual([`channel online-users {"config":{"private":true,"presence":{"key":"u1"}}}`])
    status('SUBSCRIBED')
    expect(events.at(-1)).toBe('track online_at')
    // A payload field naming someone else does not count: only keys do.
    state = { u1: [{ online_at: 'x' }], u2: [{ user_id: 'admin' }] }
    sync()
    expect(seen).toEqual([new Set(['u1', 'u2'])])
    leave()
    expect(events.at(-1)).toBe('leave')
  })
})
