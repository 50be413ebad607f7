// Realtime through supabase-js (realtime-js 2.119.0, vsn 2.0.0 by default):
// postgres_changes for each event type and a filter, RLS per subscriber and
// setAuth after sign-in, broadcast with ack and self, binary broadcasts,
// the REST send fallback, and presence sync/join/leave. Tables are created
// with psql on SUPABASE_DB_URL and added to the supabase_realtime
// publication, as a Supabase project does.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { createClient } from '@supabase/supabase-js'

const url = process.env.SUPABASE_URL
const anonKey = process.env.SUPABASE_ANON_KEY
const serviceKey = process.env.SUPABASE_SERVICE_ROLE_KEY
const dbURL = process.env.SUPABASE_DB_URL

// A fresh client with its own session storage and socket.
function client(key = anonKey, realtime = {}) {
  const store = new Map()
  const storage = {
    getItem: (k) => (store.has(k) ? store.get(k) : null),
    setItem: (k, v) => void store.set(k, v),
    removeItem: (k) => void store.delete(k),
  }
  return createClient(url, key, {
    auth: { autoRefreshToken: false, persistSession: true, detectSessionInUrl: false, storage },
    realtime,
  })
}

function sql(statement) {
  execFileSync('psql', [dbURL, '-v', 'ON_ERROR_STOP=1', '-q', '-c', statement], { stdio: 'pipe' })
}

const uniq = () => randomUUID().slice(0, 8)

// within polls until check() is truthy and returns it, or false after ms.
async function within(check, ms) {
  const end = Date.now() + ms
  while (Date.now() < end) {
    const v = check()
    if (v) return v
    await new Promise((r) => setTimeout(r, 20))
  }
  return false
}

// waitFor polls until check() is truthy or fails after ms.
async function waitFor(check, what, ms = 10000) {
  return (await within(check, ms)) || assert.fail(`timed out waiting for ${what}`)
}

// subscribed subscribes channel and resolves once the server confirmed it
// (and, with postgres_changes, once the subscription is live).
function subscribed(channel, { postgres = false } = {}) {
  return new Promise((resolve, reject) => {
    let ready = !postgres
    let joined = false
    if (postgres) {
      channel.on('system', {}, (m) => {
        if (m.extension === 'postgres_changes' && m.status === 'ok') {
          ready = true
          if (joined) resolve(channel)
        } else if (m.status === 'error') reject(new Error(m.message))
      })
    }
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') {
        joined = true
        if (ready) resolve(channel)
      } else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(err ?? new Error(status))
    })
  })
}

function table() {
  const name = `rt_${uniq()}`
  sql(`CREATE TABLE public.${name} (id bigint PRIMARY KEY, owner uuid, body text, n int);
       ALTER TABLE public.${name} ENABLE ROW LEVEL SECURITY;
       CREATE POLICY "owners can read" ON public.${name} FOR SELECT TO authenticated USING (owner = auth.uid());
       ALTER PUBLICATION supabase_realtime ADD TABLE public.${name};`)
  return name
}

test('postgres_changes: INSERT, UPDATE, DELETE, * and a filter', async () => {
  const name = table()
  // The full old row is replicated, so a filter can match a DELETE.
  sql(`ALTER TABLE public.${name} REPLICA IDENTITY FULL`)
  const sb = client(serviceKey)
  const all = []
  const inserts = []
  const filtered = []
  const ch = sb
    .channel(`pg-${uniq()}`)
    .on('postgres_changes', { event: '*', schema: 'public', table: name }, (p) => all.push(p))
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: name }, (p) => inserts.push(p))
    .on('postgres_changes', { event: '*', schema: 'public', table: name, filter: 'n=gte.10' }, (p) => filtered.push(p))
  await subscribed(ch, { postgres: true })

  sql(`INSERT INTO public.${name} VALUES (1, NULL, 'one', 5), (2, NULL, 'two', 20)`)
  sql(`UPDATE public.${name} SET body = 'uno' WHERE id = 1`)
  sql(`DELETE FROM public.${name} WHERE id = 2`)
  await waitFor(() => all.length >= 4, 'four events on *')

  assert.deepEqual(all.map((p) => [p.eventType, p.new.id ?? p.old.id]), [['INSERT', 1], ['INSERT', 2], ['UPDATE', 1], ['DELETE', 2]])
  const [ins] = all
  assert.equal(ins.schema, 'public')
  assert.equal(ins.table, name)
  assert.match(ins.commit_timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  assert.deepEqual(ins.new, { id: 1, owner: null, body: 'one', n: 5 })
  assert.deepEqual(ins.old, {})
  assert.equal(ins.errors, null)
  assert.deepEqual(all[2].new.body, 'uno')
  assert.deepEqual(all[2].old, { id: 1, owner: null, body: 'one', n: 5 })
  // A DELETE on a table with RLS carries only the key, even with FULL.
  assert.deepEqual(all[3].old, { id: 2 })
  assert.deepEqual(all[3].new, {})

  assert.deepEqual(inserts.map((p) => p.new.id), [1, 2])
  // n=gte.10 holds for row 2 only: its insert and its delete.
  await waitFor(() => filtered.length >= 2, 'filtered events')
  assert.deepEqual(filtered.map((p) => [p.eventType, p.new.id ?? p.old.id]), [['INSERT', 2], ['DELETE', 2]])
  await sb.removeChannel(ch)
})

test('postgres_changes follow RLS per subscriber, and setAuth after sign-in', async () => {
  const name = table()
  const alice = client()
  const email = `rt-${uniq()}@example.com`
  const { data: signup, error } = await alice.auth.signUp({ email, password: 'password-123456' })
  assert.equal(error, null, error?.message)
  const aliceID = signup.user.id
  await alice.auth.signOut()

  const seen = []
  const ch = alice
    .channel(`rls-${uniq()}`)
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: name }, (p) => seen.push(p.new.id))
  await subscribed(ch, { postgres: true })

  // As anon the policy shows nothing.
  sql(`INSERT INTO public.${name} VALUES (1, '${aliceID}', 'hidden from anon', 1)`)
  // Signing in hands the new token to the socket (access_token push).
  const { error: signInError } = await alice.auth.signInWithPassword({ email, password: 'password-123456' })
  assert.equal(signInError, null)
  await waitFor(() => alice.realtime.accessTokenValue && alice.realtime.accessTokenValue !== anonKey, 'token on the socket')
  // The server takes the token when it handles that push: from then on
  // alice's rows reach her. Probe with rows of hers until one does.
  for (let probe = 100, end = Date.now() + 10000; ; probe++) {
    sql(`INSERT INTO public.${name} VALUES (${probe}, '${aliceID}', 'probe', 1)`)
    if (await within(() => seen.includes(probe), 500)) break
    assert.ok(Date.now() < end, 'the signed-in token never took effect')
  }
  sql(`INSERT INTO public.${name} VALUES (2, '${aliceID}', 'mine', 1), (3, '${randomUUID()}', 'not mine', 1)`)
  // Changes arrive in commit order: once alice's later row is in, row 3 was
  // decided on.
  sql(`INSERT INTO public.${name} VALUES (4, '${aliceID}', 'mine too', 1)`)
  await waitFor(() => seen.includes(4), "alice's rows")
  assert.deepEqual(seen.filter((id) => id < 100), [2, 4])
  await alice.removeChannel(ch)
})

test('broadcast: ack, self, binary payloads and the REST fallback', async () => {
  const topic = `room-${uniq()}`
  const a = client()
  const b = client()
  const got = []
  const chB = b.channel(topic).on('broadcast', { event: '*' }, (m) => got.push(m))
  await subscribed(chB)
  const own = []
  const chA = a.channel(topic, { config: { broadcast: { ack: true, self: true } } }).on('broadcast', { event: 'cursor' }, (m) => own.push(m))
  await subscribed(chA)

  assert.equal(await chA.send({ type: 'broadcast', event: 'cursor', payload: { x: 1, y: 2 } }), 'ok')
  await waitFor(() => got.length >= 1 && own.length >= 1, 'the broadcast')
  assert.deepEqual(got[0], { type: 'broadcast', event: 'cursor', payload: { x: 1, y: 2 } })
  assert.deepEqual(own[0].payload, { x: 1, y: 2 })

  const bytes = new Uint8Array([1, 2, 3, 250]).buffer
  assert.equal(await chA.send({ type: 'broadcast', event: 'blob', payload: bytes }), 'ok')
  await waitFor(() => got.length >= 2, 'the binary broadcast')
  assert.equal(got[1].event, 'blob')
  assert.deepEqual([...new Uint8Array(got[1].payload)], [1, 2, 3, 250])

  // httpSend goes through POST /api/broadcast/:topic/events/:event.
  const res = await chA.httpSend('http', { via: 'rest' })
  assert.deepEqual(res, { success: true })
  await waitFor(() => got.length >= 3, 'the REST broadcast')
  assert.deepEqual(got[2], { type: 'broadcast', event: 'http', payload: { via: 'rest' } })

  // send() on a channel that is not joined falls back to the batch endpoint.
  const c = client()
  const unjoined = c.channel(topic)
  assert.equal(await unjoined.send({ type: 'broadcast', event: 'batch', payload: { n: 1 } }), 'ok')
  await waitFor(() => got.length >= 4, 'the batch broadcast')
  assert.deepEqual(got[3], { type: 'broadcast', event: 'batch', payload: { n: 1 } })
  await a.removeAllChannels()
  await b.removeAllChannels()
  await c.removeAllChannels()
})

test('presence: sync, join and leave', async () => {
  const topic = `lobby-${uniq()}`
  const a = client()
  const b = client()
  const events = []
  const chB = b
    .channel(topic, { config: { presence: { key: 'bob' } } })
    .on('presence', { event: 'sync' }, () => events.push(['sync']))
    .on('presence', { event: 'join' }, ({ key, newPresences }) => events.push(['join', key, newPresences.map((p) => p.status)]))
    .on('presence', { event: 'leave' }, ({ key }) => events.push(['leave', key]))
  await subscribed(chB)
  await waitFor(() => events.some((e) => e[0] === 'sync'), 'the first sync')

  const chA = a.channel(topic, { config: { presence: { key: 'alice' } } })
  await subscribed(chA)
  assert.equal(await chA.track({ status: 'online' }), 'ok')
  await waitFor(() => events.some((e) => e[0] === 'join' && e[1] === 'alice'), "alice's join")
  assert.deepEqual(events.find((e) => e[1] === 'alice'), ['join', 'alice', ['online']])
  const state = chB.presenceState()
  assert.equal(state.alice.length, 1)
  assert.equal(state.alice[0].status, 'online')
  assert.equal(typeof state.alice[0].presence_ref, 'string')

  await a.removeChannel(chA)
  await waitFor(() => events.some((e) => e[0] === 'leave' && e[1] === 'alice'), "alice's leave")
  assert.equal(chB.presenceState().alice, undefined)
  await b.removeAllChannels()
})

for (const vsn of ['1.0.0', '2.0.0']) {
  test(`private channel after sign-up, ack and self (vsn ${vsn})`, async () => {
    sql(`DO $$ BEGIN
           IF NOT EXISTS (SELECT 1 FROM pg_policies WHERE schemaname = 'realtime' AND policyname = 'compat read') THEN
             CREATE POLICY "compat read" ON realtime.messages FOR SELECT TO authenticated
               USING (realtime.topic() LIKE '%channel%' AND realtime.messages.extension IN ('broadcast', 'presence'));
             CREATE POLICY "compat write" ON realtime.messages FOR INSERT TO authenticated
               WITH CHECK (realtime.topic() LIKE '%channel%');
           END IF;
         END $$`)
    const sb = client(anonKey, { vsn })
    const topic = `private-channel-${uniq()}`

    // Before signing in, the policies refuse the join.
    const refused = sb.channel(topic, { config: { private: true } })
    const err = await new Promise((resolve) =>
      refused.subscribe((status, e) => status === 'CHANNEL_ERROR' && resolve(e)),
    )
    assert.match(err.message, /Unauthorized: You do not have permissions to read from this Channel topic/)
    await sb.removeChannel(refused)

    const { error } = await sb.auth.signUp({ email: `rt-${uniq()}@example.com`, password: 'password-123456' })
    assert.equal(error, null, error?.message)
    await sb.realtime.setAuth()
    const got = []
    const ch = sb
      .channel(topic, { config: { private: true, broadcast: { ack: true, self: true } } })
      .on('broadcast', { event: 'note' }, (m) => got.push(m.payload))
    await subscribed(ch)
    assert.equal(await ch.send({ type: 'broadcast', event: 'note', payload: { vsn } }), 'ok')
    await waitFor(() => got.length === 1, 'own private broadcast')
    assert.deepEqual(got[0], { vsn })

    // A database broadcast to the same private topic.
    sql(`SELECT realtime.send('{"from":"sql"}', 'note', '${topic}', true)`)
    await waitFor(() => got.length === 2, 'the realtime.send message')
    assert.equal(got[1].from, 'sql')
    await sb.removeAllChannels()
  })
}
