import { vi } from 'vitest'

// A stand-in for the realtime server at the WebSocket boundary, speaking the
// Phoenix protocol supabase-js's realtime client uses (serializer 2.0.0:
// [join_ref, ref, topic, event, payload] text frames). It accepts joins,
// answers heartbeats and leaves, and delivers postgres_changes to the
// subscriptions whose table and eq filter match a row, as the server does.

interface Subscription {
  topic: string
  id: number
  event: string
  table: string
  filter?: string
}

type Frame = [string | null, string | null, string, string, Record<string, unknown>]

/** FakeRealtime is the realtime server one test talks to; install() makes it the page's WebSocket. */
export class FakeRealtime {
  readonly subscriptions: Subscription[] = []
  private sockets: FakeSocket[] = []
  private nextId = 1

  /** current is the server new sockets reach: supabase-js keeps the WebSocket class it found when the client was made. */
  static current: FakeRealtime | null = null

  install() {
    FakeRealtime.current = this
    vi.stubGlobal('WebSocket', FakeSocket)
  }

  /** joined reports whether a channel on the table is subscribed. */
  joined(table: string) {
    return this.subscriptions.some((s) => s.table === table)
  }

  /** insert delivers an INSERT of row to every subscription it matches. */
  insert(table: string, row: Record<string, unknown>) {
    for (const s of this.subscriptions) {
      if (s.table !== table || (s.event !== '*' && s.event !== 'INSERT') || !matches(s.filter, row)) continue
      const data = { schema: 'public', table, commit_timestamp: new Date().toISOString(), type: 'INSERT', columns: [], record: row, old_record: null, errors: null }
      for (const socket of this.sockets) socket.push([null, null, s.topic, 'postgres_changes', { ids: [s.id], data }])
    }
  }

  /** @internal */
  attach(socket: FakeSocket) {
    this.sockets.push(socket)
  }

  /** @internal */
  detach(socket: FakeSocket) {
    this.sockets = this.sockets.filter((s) => s !== socket)
  }

  /** @internal */
  receive(socket: FakeSocket, [joinRef, ref, topic, event, payload]: Frame) {
    const reply = (response: Record<string, unknown>) => socket.push([joinRef, ref, topic, 'phx_reply', { status: 'ok', response }])
    if (event === 'phx_join') {
      const config = (payload.config ?? {}) as { postgres_changes?: { event: string; schema: string; table: string; filter?: string }[] }
      const changes = (config.postgres_changes ?? []).map((c) => {
        const sub = { topic, id: this.nextId++, event: c.event, table: c.table, filter: c.filter }
        this.subscriptions.push(sub)
        return { ...c, id: sub.id }
      })
      reply({ postgres_changes: changes })
    } else if (event === 'phx_leave') {
      for (let i = this.subscriptions.length - 1; i >= 0; i--) if (this.subscriptions[i].topic === topic) this.subscriptions.splice(i, 1)
      reply({})
    } else if (event === 'heartbeat') {
      reply({})
    }
  }
}

function matches(filter: string | undefined, row: Record<string, unknown>) {
  if (!filter) return true
  const m = filter.match(/^(\w+)=eq\.(.*)$/)
  if (!m) throw new Error(`fake realtime: filter ${filter} is not implemented`)
  return String(row[m[1]]) === m[2]
}

class FakeSocket {
  static readonly CONNECTING = 0
  static readonly OPEN = 1
  static readonly CLOSING = 2
  static readonly CLOSED = 3
  readyState = FakeSocket.CONNECTING
  binaryType = 'arraybuffer'
  bufferedAmount = 0
  onopen: (() => void) | null = null
  onclose: ((e: { code: number; reason: string; wasClean: boolean }) => void) | null = null
  onerror: ((e: unknown) => void) | null = null
  onmessage: ((e: { data: string }) => void) | null = null

  private readonly server: FakeRealtime

  constructor(readonly url: string) {
    if (!FakeRealtime.current) throw new Error('fake realtime: no server installed')
    this.server = FakeRealtime.current
    this.server.attach(this)
    queueMicrotask(() => {
      if (this.readyState !== FakeSocket.CONNECTING) return
      this.readyState = FakeSocket.OPEN
      this.onopen?.()
    })
  }

  send(data: string) {
    if (typeof data !== 'string') return
    const frame = JSON.parse(data) as Frame
    queueMicrotask(() => this.server.receive(this, frame))
  }

  push(frame: Frame) {
    if (this.readyState !== FakeSocket.OPEN) return
    this.onmessage?.({ data: JSON.stringify(frame) })
  }

  close(code = 1000, reason = '') {
    if (this.readyState === FakeSocket.CLOSED) return
    this.readyState = FakeSocket.CLOSED
    this.server.detach(this)
    queueMicrotask(() => this.onclose?.({ code, reason, wasClean: true }))
  }
}
