// Queues through supabase-js as Supabase documents them:
// supabase.schema('pgmq_public').rpc('send' | 'send_batch' | 'read' | 'pop' |
// 'archive' | 'delete', ...). The runner exposes pgmq_public
// (REST_DB_SCHEMAS), as a self-hosted Supabase adds it to PGRST_DB_SCHEMAS.
// The queues are created with psql over SUPABASE_DB_URL; anon and
// authenticated reach a queue only once its tables are granted to them.
import { test, before } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import { createClient } from '@supabase/supabase-js'

const url = process.env.SUPABASE_URL
const anonKey = process.env.SUPABASE_ANON_KEY
const serviceKey = process.env.SUPABASE_SERVICE_ROLE_KEY
const jwtSecret = process.env.SUPABASE_JWT_SECRET
const dbUrl = process.env.SUPABASE_DB_URL

const opts = { auth: { persistSession: false, autoRefreshToken: false } }
const queues = (client) => client.schema('pgmq_public')
const service = queues(createClient(url, serviceKey, opts))
const anon = queues(createClient(url, anonKey, opts))

function b64url(buf) {
  return Buffer.from(buf).toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')
}

// An access token for a signed-in user, signed with the project's secret.
function userToken(sub) {
  const now = Math.floor(Date.now() / 1000)
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))
  const body = b64url(JSON.stringify({ sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600 }))
  const sig = b64url(crypto.createHmac('sha256', jwtSecret).update(`${head}.${body}`).digest())
  return `${head}.${body}.${sig}`
}
const user = queues(
  createClient(url, anonKey, {
    ...opts,
    global: { headers: { Authorization: `Bearer ${userToken('cccccccc-0000-4000-8000-000000000003')}` } },
  }),
)

const fixture = `
SELECT pgmq.drop_queue(q) FROM unnest(ARRAY['compat_jobs', 'compat_user_jobs']) AS q;
SELECT pgmq.create('compat_jobs');
SELECT pgmq.create('compat_user_jobs');
GRANT SELECT, INSERT, UPDATE, DELETE ON pgmq.q_compat_user_jobs TO authenticated;
GRANT INSERT ON pgmq.a_compat_user_jobs TO authenticated;
`

before(() => {
  assert.ok(dbUrl, 'SUPABASE_DB_URL is set')
  const r = spawnSync('psql', [dbUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-c', fixture], { encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
})

test('service_role: send, read under a visibility timeout, archive, pop, delete', async () => {
  const sent = await service.rpc('send', { queue_name: 'compat_jobs', message: { hello: 'world' } })
  assert.equal(sent.error, null)
  assert.equal(sent.data.length, 1)
  const [id] = sent.data

  const read = await service.rpc('read', { queue_name: 'compat_jobs', sleep_seconds: 2, n: 5 })
  assert.equal(read.error, null)
  assert.equal(read.data.length, 1)
  const msg = read.data[0]
  assert.equal(msg.msg_id, id)
  assert.equal(msg.read_ct, 1)
  assert.deepEqual(msg.message, { hello: 'world' })
  for (const key of ['enqueued_at', 'last_read_at', 'vt', 'headers']) assert.ok(key in msg, `message has ${key}`)
  const readAt = Date.now()

  // Invisible inside its visibility timeout, visible again after it.
  const hidden = await service.rpc('read', { queue_name: 'compat_jobs', sleep_seconds: 30, n: 5 })
  assert.deepEqual(hidden.data, [])
  let again
  for (let i = 0; i < 100; i++) {
    again = await service.rpc('read', { queue_name: 'compat_jobs', sleep_seconds: 30, n: 5 })
    if (again.data.length > 0) break
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.equal(again.data.length, 1, 'the message came back after its visibility timeout')
  assert.ok(Date.now() - readAt >= 1500, 'not before the visibility timeout ran out')
  assert.equal(again.data[0].read_ct, 2)

  const archived = await service.rpc('archive', { queue_name: 'compat_jobs', message_id: id })
  assert.deepEqual([archived.error, archived.data], [null, true])
  const twice = await service.rpc('archive', { queue_name: 'compat_jobs', message_id: id })
  assert.deepEqual([twice.error, twice.data], [null, false])

  const batch = await service.rpc('send_batch', { queue_name: 'compat_jobs', messages: [{ n: 1 }, { n: 2 }] })
  assert.equal(batch.error, null)
  assert.equal(batch.data.length, 2)
  const popped = await service.rpc('pop', { queue_name: 'compat_jobs' })
  assert.equal(popped.error, null)
  assert.deepEqual(popped.data.map((m) => [m.msg_id, m.message]), [[batch.data[0], { n: 1 }]])
  const deleted = await service.rpc('delete', { queue_name: 'compat_jobs', message_id: batch.data[1] })
  assert.deepEqual([deleted.error, deleted.data], [null, true])
  const empty = await service.rpc('pop', { queue_name: 'compat_jobs' })
  assert.deepEqual(empty.data, [])
})

test('anon is refused by default', async () => {
  const { data, error, status } = await anon.rpc('send', { queue_name: 'compat_jobs', message: { from: 'anon' } })
  assert.equal(data, null)
  assert.equal(status, 401)
  assert.equal(error.code, '42501')
  const read = await anon.rpc('read', { queue_name: 'compat_user_jobs', sleep_seconds: 30, n: 1 })
  assert.equal(read.status, 401)
  assert.equal(read.error.code, '42501')
})

test('a signed-in user once granted a queue: send, read, archive; other queues refused', async () => {
  const sent = await user.rpc('send', { queue_name: 'compat_user_jobs', message: { task: 1 }, sleep_seconds: 0 })
  assert.equal(sent.error, null)
  const read = await user.rpc('read', { queue_name: 'compat_user_jobs', sleep_seconds: 30, n: 1 })
  assert.equal(read.error, null)
  assert.deepEqual(read.data.map((m) => m.message), [{ task: 1 }])
  const archived = await user.rpc('archive', { queue_name: 'compat_user_jobs', message_id: sent.data[0] })
  assert.deepEqual([archived.error, archived.data], [null, true])

  const other = await user.rpc('send', { queue_name: 'compat_jobs', message: { task: 2 } })
  assert.equal(other.status, 403)
  assert.equal(other.error.code, '42501')
})

test('a queue name that is not an identifier is refused', async () => {
  const { error, status } = await service.rpc('send', { queue_name: 'x; drop table pgmq.meta', message: {} })
  assert.equal(status, 400)
  assert.equal(error.code, '22023')
})
