import { useEffect, useRef, useState } from 'react'
import { useMutation, useQuery } from '@tanstack/react-query'
import { RealtimeClient, type RealtimeChannel } from '@supabase/realtime-js'
import { Radio, Send } from 'lucide-react'
import { api } from '@/lib/api'
import { formatBytes } from '@/lib/utils'
import { Button } from '@/components/ui/button'
import { Input, Label, Select, Textarea } from '@/components/ui/input'
import { Badge, Card, ErrorText } from '@/components/ui/misc'
import { SIDE_END, SPLIT, SPLIT_MAIN } from '@/lib/layout'
import { cn } from '@/lib/utils'

type Token = { access_token: string; anon_key: string; api_url: string; role: string; user_id: string; email: string }
type Status = {
  sockets: number
  nodes: { node: string; sockets: number; self: boolean }[]
  api_url: string
  slots: { slot_name: string; plugin: string; active: boolean; wal_status: string; lag_bytes: number | null }[]
}
type Event = { at: Date; kind: 'broadcast' | 'presence' | 'postgres_changes' | 'system'; summary: string; payload: unknown }
type User = { id: string; email?: string }

const maxEvents = 500

/** Realtime joins a channel as a chosen role or user and shows what arrives on it live. */
export default function Realtime() {
  const [topic, setTopic] = useState('room-1')
  const [as, setAs] = useState<'anon' | 'authenticated' | 'user'>('anon')
  const [userQuery, setUserQuery] = useState('')
  const [userId, setUserId] = useState('')
  const [changes, setChanges] = useState('public.*')
  const [presenceKey, setPresenceKey] = useState('studio')
  const [joined, setJoined] = useState<{ channel: RealtimeChannel; client: RealtimeClient; who: string } | null>(null)
  const [state, setState] = useState('')
  const [events, setEvents] = useState<Event[]>([])
  const [presence, setPresence] = useState<Record<string, unknown[]>>({})
  const [event, setEvent] = useState('message')
  const [body, setBody] = useState('{ "text": "hello from Studio" }')
  const joinedRef = useRef(joined)
  joinedRef.current = joined
  const status = useQuery({ queryKey: ['realtime-status'], queryFn: () => api<Status>('/api/realtime'), refetchInterval: 5000 })
  const users = useQuery({
    queryKey: ['auth-users-pick', userQuery],
    queryFn: () => api<{ users: User[] }>(`/auth/v1/admin/users?per_page=10&filter=${encodeURIComponent(userQuery)}`),
    enabled: as === 'user',
  })
  const add = (e: Omit<Event, 'at'>) => setEvents((l) => [{ ...e, at: new Date() }, ...l].slice(0, maxEvents))

  useEffect(() => () => void leave(joinedRef.current), [])

  const join = useMutation({
    mutationFn: async () => {
      await leave(joined)
      const t = await api<Token>('/api/realtime/token', { method: 'POST', json: as === 'user' ? { user_id: userId } : { role: as } })
      const client = new RealtimeClient(`${t.api_url}/realtime/v1`, { params: { apikey: t.anon_key }, accessToken: async () => t.access_token })
      const channel = client.channel(topic, { config: { broadcast: { self: true, ack: true }, presence: { key: presenceKey } } })
      channel.on('broadcast', { event: '*' }, (m) => add({ kind: 'broadcast', summary: `broadcast ${m.event}`, payload: m.payload }))
      channel.on('presence', { event: 'sync' }, () => setPresence({ ...channel.presenceState() }))
      channel.on('presence', { event: 'join' }, (p) => add({ kind: 'presence', summary: `join ${p.key}`, payload: p.newPresences }))
      channel.on('presence', { event: 'leave' }, (p) => add({ kind: 'presence', summary: `leave ${p.key}`, payload: p.leftPresences }))
      for (const spec of changes.split(',').map((s) => s.trim()).filter(Boolean)) {
        const [schema, table = '*'] = spec.split('.')
        const filter = table === '*' ? { event: '*' as const, schema } : { event: '*' as const, schema, table }
        channel.on('postgres_changes', filter, (c) =>
          add({ kind: 'postgres_changes', summary: `${c.eventType} ${c.schema}.${c.table}`, payload: c.new && Object.keys(c.new).length ? c.new : c.old }),
        )
      }
      channel.on('system', {}, (m) => add({ kind: 'system', summary: `system ${m.status ?? ''} ${m.message ?? ''}`.trim(), payload: m }))
      const who = t.role === 'anon' ? 'anon' : t.email ? `${t.email}` : t.role
      setJoined({ channel, client, who })
      setState('joining')
      channel.subscribe((s, err) => {
        setState(s)
        if (err) add({ kind: 'system', summary: `${s}: ${err.message}`, payload: null })
        if (s === 'SUBSCRIBED') void channel.track({ studio: true, online_at: new Date().toISOString() })
      })
    },
  })
  const send = useMutation({
    mutationFn: async () => {
      if (!joined) throw new Error('Join a channel first.')
      let payload: unknown
      try {
        payload = JSON.parse(body)
      } catch {
        throw new Error('The payload is not JSON.')
      }
      const r = await joined.channel.send({ type: 'broadcast', event, payload })
      if (r !== 'ok') throw new Error(`The broadcast was not sent: ${r}`)
    },
  })
  return (
    <div className={SPLIT}>
      <div className={cn(SPLIT_MAIN, 'gap-3 p-4')}>
        <h1 className="text-base font-semibold">Realtime inspector</h1>
        <Card className="flex flex-wrap items-end gap-3">
          <Label className="flex flex-col gap-1">
            Channel
            <Input className="w-44" value={topic} onChange={(e) => setTopic(e.target.value)} />
          </Label>
          <Label className="flex flex-col gap-1">
            Join as
            <Select className="w-40" value={as} onChange={(e) => setAs(e.target.value as typeof as)}>
              <option value="anon">anon</option>
              <option value="authenticated">authenticated (no user)</option>
              <option value="user">a user…</option>
            </Select>
          </Label>
          {as === 'user' && (
            <Label className="flex flex-col gap-1">
              User
              <div className="flex gap-1">
                <Input className="w-40" placeholder="search" aria-label="Search users" value={userQuery} onChange={(e) => setUserQuery(e.target.value)} />
                <Select className="w-56" aria-label="User to join as" value={userId} onChange={(e) => setUserId(e.target.value)}>
                  <option value="">choose…</option>
                  {(users.data?.users ?? []).map((u) => (
                    <option key={u.id} value={u.id}>
                      {u.email || u.id}
                    </option>
                  ))}
                </Select>
              </div>
            </Label>
          )}
          <Label className="flex flex-col gap-1">
            Postgres changes (schema.table, comma-separated)
            <Input className="w-64" value={changes} onChange={(e) => setChanges(e.target.value)} />
          </Label>
          <Label className="flex flex-col gap-1">
            Presence key
            <Input className="w-28" value={presenceKey} onChange={(e) => setPresenceKey(e.target.value)} />
          </Label>
          <Button onClick={() => join.mutate()} disabled={join.isPending || (as === 'user' && !userId)}>
            <Radio /> {joined ? 'Rejoin' : 'Join channel'}
          </Button>
          {joined && (
            <Button variant="outline" onClick={() => (void leave(joined), setJoined(null), setState(''), setPresence({}))}>
              Leave
            </Button>
          )}
        </Card>
        <ErrorText error={join.error} />
        {joined && (
          <div className="flex items-center gap-2 text-sm" data-testid="channel-state">
            <Badge tone={state === 'SUBSCRIBED' ? 'ok' : state === 'joining' ? 'warn' : 'bad'}>{state}</Badge>
            <span>
              {joined.channel.topic} as {joined.who}
            </span>
          </div>
        )}
        <Card className="flex flex-wrap items-end gap-2">
          <Label className="flex flex-col gap-1">
            Event
            <Input className="w-36" aria-label="Broadcast event" value={event} onChange={(e) => setEvent(e.target.value)} />
          </Label>
          <Label className="flex flex-1 flex-col gap-1">
            Payload (JSON)
            <Textarea className="min-h-8" rows={1} aria-label="Broadcast payload" value={body} onChange={(e) => setBody(e.target.value)} />
          </Label>
          <Button onClick={() => send.mutate()} disabled={!joined || state !== 'SUBSCRIBED' || send.isPending}>
            <Send /> Send broadcast
          </Button>
        </Card>
        <ErrorText error={send.error} />
        <div className="grid-scroll flex-1 rounded-md border border-border">
          <ul aria-label="Channel events" className="font-mono text-xs">
            {events.map((e, i) => (
              <li key={events.length - i} className="flex gap-3 border-b border-border px-3 py-1.5" data-testid="channel-event">
                <span className="shrink-0 text-muted-foreground">{e.at.toLocaleTimeString('en-GB')}</span>
                <Badge tone={e.kind === 'broadcast' ? 'ok' : e.kind === 'postgres_changes' ? 'warn' : 'muted'}>{e.kind}</Badge>
                <span className="shrink-0">{e.summary}</span>
                <span className="truncate text-muted-foreground">{JSON.stringify(e.payload)}</span>
              </li>
            ))}
            {events.length === 0 && <li className="px-3 py-4 text-center font-sans text-muted-foreground">{joined ? 'Waiting for messages…' : 'Join a channel to watch it.'}</li>}
          </ul>
        </div>
      </div>
      <aside className={cn(SIDE_END, 'grid-scroll flex flex-col gap-3 p-4 text-sm md:w-72')}>
        <section>
          <h2 className="mb-1 text-xs font-semibold uppercase text-muted-foreground">Presence</h2>
          <ul className="flex flex-col gap-1 text-xs" aria-label="Presence">
            {Object.entries(presence).map(([k, v]) => (
              <li key={k}>
                <span className="font-medium">{k}</span> <span className="text-muted-foreground">×{v.length}</span>
              </li>
            ))}
            {Object.keys(presence).length === 0 && <li className="text-muted-foreground">Nobody tracked.</li>}
          </ul>
        </section>
        <section>
          <h2 className="mb-1 text-xs font-semibold uppercase text-muted-foreground">This node</h2>
          <div className="text-xs" data-testid="realtime-sockets">
            {status.data ? `${status.data.sockets} open socket${status.data.sockets === 1 ? '' : 's'}` : '…'}
          </div>
        </section>
        <section>
          <h2 className="mb-1 text-xs font-semibold uppercase text-muted-foreground">Nodes</h2>
          <ul className="flex flex-col gap-1 text-xs" aria-label="Nodes">
            {(status.data?.nodes ?? []).map((n) => (
              <li key={n.node} className="flex items-baseline justify-between gap-2" data-testid="realtime-node">
                <span className="truncate font-mono" title={n.node}>
                  {n.node.slice(0, 8)}
                  {n.self && <span className="font-sans text-muted-foreground"> (this node)</span>}
                </span>
                <span>{`${n.sockets} in channels`}</span>
              </li>
            ))}
          </ul>
          {(status.data?.nodes.length ?? 0) > 0 && (
            <div className="mt-1 text-xs text-muted-foreground">{`${(status.data?.nodes ?? []).reduce((a, n) => a + n.sockets, 0)} across the project`}</div>
          )}
        </section>
        <section>
          <h2 className="mb-1 text-xs font-semibold uppercase text-muted-foreground">Replication slots</h2>
          <ErrorText error={status.error} />
          <ul className="flex flex-col gap-1 text-xs" aria-label="Replication slots">
            {(status.data?.slots ?? []).map((s) => (
              <li key={s.slot_name} className="flex flex-col">
                <span className="font-mono">{s.slot_name}</span>
                <span className="text-muted-foreground">
                  {s.plugin} · {s.active ? 'active' : 'inactive'} · lag {s.lag_bytes == null ? '—' : formatBytes(s.lag_bytes)}
                </span>
              </li>
            ))}
            {status.data?.slots.length === 0 && <li className="text-muted-foreground">No slot yet: one is made when a client first asks for postgres_changes.</li>}
          </ul>
        </section>
      </aside>
    </div>
  )
}

async function leave(j: { channel: RealtimeChannel; client: RealtimeClient } | null) {
  if (!j) return
  await j.client.removeChannel(j.channel).catch(() => {})
  j.client.disconnect()
}
