// /rest/v1 through postgrest-js (supabase-js 2.119.0): reads with embeds and
// filters, writes with and without .select(), single/maybeSingle, counts,
// ranges, CSV, RPC by GET and POST, text search, schema switching, and RLS
// seen by two different signed-in users. The fixture is created with psql
// over SUPABASE_DB_URL; the REST schema cache picks it up via the DDL event
// trigger.
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
const anon = createClient(url, anonKey, opts)
const service = createClient(url, serviceKey, opts)

const ALICE = 'aaaaaaaa-0000-4000-8000-000000000001'
const BOB = 'bbbbbbbb-0000-4000-8000-000000000002'

function b64url(buf) {
  return Buffer.from(buf).toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')
}

// An HS256 access token for an authenticated user, signed with the project
// secret as GoTrue would.
function userToken(sub) {
  const now = Math.floor(Date.now() / 1000)
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))
  const body = b64url(JSON.stringify({ sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600 }))
  const sig = b64url(crypto.createHmac('sha256', jwtSecret).update(`${head}.${body}`).digest())
  return `${head}.${body}.${sig}`
}

const asUser = (sub) => createClient(url, anonKey, { ...opts, global: { headers: { Authorization: `Bearer ${userToken(sub)}` } } })

const fixture = `
DROP TABLE IF EXISTS compat_rest_messages, compat_rest_channels, compat_rest_notes, compat_rest_items CASCADE;
DROP FUNCTION IF EXISTS compat_rest_add(int, int), compat_rest_items_above(int), compat_rest_touch();
CREATE TABLE compat_rest_channels (id bigserial PRIMARY KEY, slug text UNIQUE NOT NULL);
CREATE TABLE compat_rest_messages (
  id bigserial PRIMARY KEY,
  channel_id bigint NOT NULL REFERENCES compat_rest_channels(id),
  body text NOT NULL,
  fts tsvector GENERATED ALWAYS AS (to_tsvector('english', body)) STORED
);
CREATE TABLE compat_rest_items (id int PRIMARY KEY, name text NOT NULL, qty int NOT NULL DEFAULT 1);
CREATE TABLE compat_rest_notes (
  id serial PRIMARY KEY,
  owner uuid NOT NULL DEFAULT auth.uid(),
  body text NOT NULL
);
ALTER TABLE compat_rest_notes ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_select ON compat_rest_notes FOR SELECT TO authenticated USING (owner = auth.uid());
CREATE POLICY own_insert ON compat_rest_notes FOR INSERT TO authenticated WITH CHECK (owner = auth.uid());
CREATE POLICY own_update ON compat_rest_notes FOR UPDATE TO authenticated USING (owner = auth.uid());
GRANT ALL ON compat_rest_channels, compat_rest_messages, compat_rest_items, compat_rest_notes TO anon, authenticated, service_role;
GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO anon, authenticated, service_role;
CREATE FUNCTION compat_rest_add(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + b $$;
CREATE FUNCTION compat_rest_items_above(min_qty int) RETURNS SETOF compat_rest_items LANGUAGE sql STABLE AS
  $$ SELECT * FROM compat_rest_items WHERE qty > min_qty ORDER BY id $$;
CREATE FUNCTION compat_rest_touch() RETURNS void LANGUAGE sql AS $$ UPDATE compat_rest_items SET qty = qty WHERE false $$;
INSERT INTO compat_rest_channels(slug) VALUES ('general'), ('random');
INSERT INTO compat_rest_messages(channel_id, body) VALUES
  (1, 'the quick brown fox'), (1, 'jumps over the lazy dog'), (2, 'lazy afternoons');
INSERT INTO compat_rest_items VALUES (1, 'apple', 5), (2, 'banana', 2), (3, 'cherry', 9), (4, 'date', 1);
INSERT INTO compat_rest_notes(owner, body) VALUES ('${ALICE}', 'alice note'), ('${BOB}', 'bob note');
DROP SCHEMA IF EXISTS compat_rest_extra CASCADE;
CREATE SCHEMA compat_rest_extra;
GRANT USAGE ON SCHEMA compat_rest_extra TO anon, authenticated, service_role;
CREATE TABLE compat_rest_extra.compat_rest_items (id int PRIMARY KEY, label text NOT NULL);
CREATE VIEW compat_rest_extra.item_labels AS SELECT id AS item_id, label AS tag FROM compat_rest_extra.compat_rest_items;
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA compat_rest_extra TO anon, authenticated, service_role;
CREATE FUNCTION compat_rest_extra.shout(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT upper(t) $$;
INSERT INTO compat_rest_extra.compat_rest_items VALUES (1, 'extra one'), (2, 'extra two');
`

before(async () => {
  assert.ok(dbUrl, 'SUPABASE_DB_URL is set')
  const r = spawnSync('psql', [dbUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-c', fixture], { encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  // The schema cache reloads after DDL (event trigger + NOTIFY); wait for it.
  for (let i = 0; i < 100; i++) {
    const { error } = await anon.from('compat_rest_notes').select('id').limit(1)
    const { error: fnErr } = await anon.rpc('compat_rest_add', { a: 1, b: 1 })
    const { error: extraErr } = await anon.schema('compat_rest_extra').rpc('shout', { t: 'x' })
    if (!error && !fnErr && !extraErr) return
    await new Promise((res) => setTimeout(res, 100))
  }
  throw new Error('fixture never became visible through /rest/v1')
})

test('select with filters, order and many-to-one / one-to-many embeds', async () => {
  const { data, error, status } = await anon
    .from('compat_rest_messages')
    .select('id, body, channel:compat_rest_channels(slug)')
    .eq('channel_id', 1)
    .order('id', { ascending: false })
  assert.equal(error, null)
  assert.equal(status, 200)
  assert.deepEqual(data, [
    { id: 2, body: 'jumps over the lazy dog', channel: { slug: 'general' } },
    { id: 1, body: 'the quick brown fox', channel: { slug: 'general' } },
  ])
  const nested = await anon
    .from('compat_rest_channels')
    .select('slug, compat_rest_messages(id)')
    .order('id')
    .order('id', { referencedTable: 'compat_rest_messages', ascending: false })
    .limit(1, { referencedTable: 'compat_rest_messages' })
  assert.deepEqual(nested.data, [
    { slug: 'general', compat_rest_messages: [{ id: 2 }] },
    { slug: 'random', compat_rest_messages: [{ id: 3 }] },
  ])
  const inner = await anon.from('compat_rest_channels').select('slug, compat_rest_messages!inner(id)').eq('compat_rest_messages.id', 3)
  assert.deepEqual(inner.data, [{ slug: 'random', compat_rest_messages: [{ id: 3 }] }])
})

test('filter operators: in, like, or, not, is, gte/lt', async () => {
  const q = (b) => b.then(({ data, error }) => { assert.equal(error, null); return data.map((r) => r.id) })
  assert.deepEqual(await q(anon.from('compat_rest_items').select('id').in('name', ['apple', 'date']).order('id')), [1, 4])
  assert.deepEqual(await q(anon.from('compat_rest_items').select('id').ilike('name', '%AN%')), [2])
  assert.deepEqual(await q(anon.from('compat_rest_items').select('id').or('qty.gte.9,name.eq.banana').order('id')), [2, 3])
  assert.deepEqual(await q(anon.from('compat_rest_items').select('id').not('name', 'in', '(apple,banana)').order('id')), [3, 4])
  assert.deepEqual(await q(anon.from('compat_rest_items').select('id').gte('qty', 2).lt('qty', 9).order('id')), [1, 2])
  assert.deepEqual(await q(anon.from('compat_rest_items').select('id').is('name', null)), [])
})

test('textSearch on a tsvector column', async () => {
  const { data, error } = await anon.from('compat_rest_messages').select('id').textSearch('fts', "'lazy'").order('id')
  assert.equal(error, null)
  assert.deepEqual(data, [{ id: 2 }, { id: 3 }])
  const web = await anon.from('compat_rest_messages').select('id').textSearch('fts', 'quick fox', { type: 'websearch', config: 'english' })
  assert.deepEqual(web.data, [{ id: 1 }])
})

test('counts, head and range', async () => {
  const page = await anon.from('compat_rest_items').select('id', { count: 'exact' }).order('id').range(1, 2)
  assert.equal(page.error, null)
  assert.equal(page.status, 206)
  assert.equal(page.count, 4)
  assert.deepEqual(page.data, [{ id: 2 }, { id: 3 }])
  const head = await anon.from('compat_rest_items').select('*', { count: 'exact', head: true })
  assert.equal(head.status, 200)
  assert.equal(head.count, 4)
  assert.equal(head.data, null)
})

test('single and maybeSingle', async () => {
  const one = await anon.from('compat_rest_items').select('name').eq('id', 1).single()
  assert.deepEqual(one.data, { name: 'apple' })
  const none = await anon.from('compat_rest_items').select('name').eq('id', 99).single()
  assert.equal(none.status, 406)
  assert.equal(none.error.code, 'PGRST116')
  assert.equal(none.error.details, 'The result contains 0 rows')
  const maybe = await anon.from('compat_rest_items').select('name').eq('id', 99).maybeSingle()
  assert.equal(maybe.error, null)
  assert.equal(maybe.data, null)
})

test('csv output', async () => {
  const { data, error } = await anon.from('compat_rest_items').select('id,name').order('id').limit(2).csv()
  assert.equal(error, null)
  assert.equal(data, 'id,name\n1,apple\n2,banana')
})

test('geojson() with PostGIS', async (t) => {
  const psql = (sql) => spawnSync('psql', [dbUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-At', '-c', sql], { encoding: 'utf8' })
  const avail = psql(`SELECT count(*) FROM pg_available_extensions WHERE name = 'postgis'`)
  assert.equal(avail.status, 0, avail.stderr)
  if (avail.stdout.trim() !== '1') {
    assert.ok(!process.env.CI, 'PostGIS is installed in CI')
    t.skip('PostGIS is not installed')
    return
  }
  const r = psql(`CREATE EXTENSION IF NOT EXISTS postgis WITH SCHEMA extensions;
    DROP TABLE IF EXISTS compat_rest_places;
    CREATE TABLE compat_rest_places (id int PRIMARY KEY, name text NOT NULL, geom extensions.geometry(Point, 4326) NOT NULL);
    INSERT INTO compat_rest_places VALUES (1, 'Lagos', 'SRID=4326;POINT(3.3792 6.5244)'), (2, 'Abuja', 'SRID=4326;POINT(7.4951 9.0579)');
    GRANT SELECT ON compat_rest_places TO anon;`)
  assert.equal(r.status, 0, r.stderr)
  let res
  for (let i = 0; i < 100; i++) {
    res = await anon.from('compat_rest_places').select('name, geom').eq('id', 1).geojson()
    if (!res.error) break
    await new Promise((ok) => setTimeout(ok, 100))
  }
  assert.equal(res.error, null)
  assert.equal(res.status, 200)
  assert.deepEqual(res.data, {
    type: 'FeatureCollection',
    features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [3.3792, 6.5244] }, properties: { name: 'Lagos' } }],
  })
})

test('insert, upsert, update and delete with and without select()', async () => {
  const plain = await service.from('compat_rest_items').insert({ id: 10, name: 'kiwi' })
  assert.equal(plain.status, 201)
  assert.equal(plain.data, null)
  const bulk = await service.from('compat_rest_items').insert([{ id: 11, name: 'lime', qty: 6 }, { id: 12, name: 'mango', qty: 3 }]).select()
  assert.equal(bulk.status, 201)
  assert.deepEqual(bulk.data, [{ id: 11, name: 'lime', qty: 6 }, { id: 12, name: 'mango', qty: 3 }])
  // Without defaultToNull: false a missing key is NULL, which NOT NULL refuses.
  const nulls = await service.from('compat_rest_items').insert([{ id: 13, name: 'nut' }, { id: 14, name: 'olive', qty: 4 }])
  assert.equal(nulls.status, 400)
  assert.equal(nulls.error.code, '23502')
  const dflt = await service.from('compat_rest_items').insert([{ id: 13, name: 'nut' }, { id: 14, name: 'olive', qty: 4 }], { defaultToNull: false }).select('id, qty')
  assert.deepEqual(dflt.data, [{ id: 13, qty: 1 }, { id: 14, qty: 4 }])
  const dup = await service.from('compat_rest_items').insert({ id: 10, name: 'again' })
  assert.equal(dup.status, 409)
  assert.equal(dup.error.code, '23505')
  const up = await service.from('compat_rest_items').upsert({ id: 10, name: 'kiwi2', qty: 2 }).select('name').single()
  assert.equal(up.status, 200)
  assert.deepEqual(up.data, { name: 'kiwi2' })
  const ign = await service.from('compat_rest_items').upsert([{ id: 10, name: 'x' }, { id: 15, name: 'pear' }], { ignoreDuplicates: true }).select('id')
  assert.deepEqual(ign.data, [{ id: 15 }])
  const upd = await service.from('compat_rest_items').update({ qty: 7 }).eq('id', 15).select('id, qty')
  assert.deepEqual(upd.data, [{ id: 15, qty: 7 }])
  const updNoSelect = await service.from('compat_rest_items').update({ qty: 8 }).eq('id', 15)
  assert.equal(updNoSelect.status, 204)
  const del = await service.from('compat_rest_items').delete({ count: 'exact' }).in('id', [10, 11, 12, 13, 14, 15])
  assert.equal(del.status, 204)
  assert.equal(del.count, 6)
  const noFilter = await service.from('compat_rest_items').delete()
  assert.equal(noFilter.status, 400)
  assert.equal(noFilter.error.code, '21000')
})

test('rpc by POST and GET, set-returning with filters, void', async () => {
  const post = await anon.rpc('compat_rest_add', { a: 2, b: 3 })
  assert.deepEqual([post.status, post.data], [200, 5])
  const get = await anon.rpc('compat_rest_add', { a: 4, b: 5 }, { get: true })
  assert.deepEqual([get.status, get.data], [200, 9])
  const set = await anon.rpc('compat_rest_items_above', { min_qty: 1 }).select('name').lt('qty', 9).order('name', { ascending: false })
  assert.equal(set.error, null)
  assert.deepEqual(set.data, [{ name: 'banana' }, { name: 'apple' }])
  const counted = await anon.rpc('compat_rest_items_above', { min_qty: 0 }, { count: 'exact' }).range(0, 1)
  assert.equal(counted.count, 4)
  assert.equal(counted.data.length, 2)
  const v = await anon.rpc('compat_rest_touch')
  assert.equal(v.status, 204)
  assert.equal(v.data, null)
  const missing = await anon.rpc('compat_rest_nope', { x: 1 })
  assert.equal(missing.status, 404)
  assert.equal(missing.error.code, 'PGRST202')
})

test('schema switching between two exposed schemas: reads, writes, views and rpc', async () => {
  // The same table name in both schemas: each profile sees its own rows.
  const pub = await anon.from('compat_rest_items').select('id, name').eq('id', 1)
  assert.deepEqual(pub.data, [{ id: 1, name: 'apple' }])
  const extra = anon.schema('compat_rest_extra')
  const other = await extra.from('compat_rest_items').select('id, label').order('id')
  assert.equal(other.error, null)
  assert.deepEqual(other.data, [{ id: 1, label: 'extra one' }, { id: 2, label: 'extra two' }])
  // A write goes to the schema named by Content-Profile.
  const ins = await extra.from('compat_rest_items').insert({ id: 3, label: 'extra three' }).select('id, label').single()
  assert.equal(ins.status, 201)
  assert.deepEqual(ins.data, { id: 3, label: 'extra three' })
  const same = await anon.from('compat_rest_items').select('id, name').eq('id', 3)
  assert.deepEqual(same.data, [{ id: 3, name: 'cherry' }], 'the public table is untouched')
  const view = await extra.from('item_labels').select('item_id, tag').eq('item_id', 3)
  assert.deepEqual(view.data, [{ item_id: 3, tag: 'extra three' }])
  const rpc = await extra.rpc('shout', { t: 'naira' })
  assert.equal(rpc.error, null)
  assert.equal(rpc.data, 'NAIRA')
  // The function lives only in the other schema.
  const wrong = await anon.rpc('shout', { t: 'naira' })
  assert.equal(wrong.status, 404)
  assert.equal(wrong.error.code, 'PGRST202')
})

test('schema switching: public works, an unexposed schema is 406 PGRST106', async () => {
  const ok = await anon.schema('public').from('compat_rest_items').select('id').eq('id', 1)
  assert.deepEqual(ok.data, [{ id: 1 }])
  const bad = await anon.schema('compat_rest_hidden').from('compat_rest_items').select('id')
  assert.equal(bad.status, 406)
  assert.equal(bad.error.code, 'PGRST106')
  assert.equal(bad.error.message, 'Invalid schema: compat_rest_hidden')
  assert.equal(bad.error.hint, 'Only the following schemas are exposed: public, compat_rest_extra, pgmq_public')
})

test('RLS through two signed-in users', async () => {
  const alice = asUser(ALICE)
  const bob = asUser(BOB)
  const a = await alice.from('compat_rest_notes').select('body')
  const b = await bob.from('compat_rest_notes').select('body')
  assert.deepEqual(a.data, [{ body: 'alice note' }])
  assert.deepEqual(b.data, [{ body: 'bob note' }])
  const mine = await alice.from('compat_rest_notes').insert({ body: 'alice second' }).select('owner, body').single()
  assert.deepEqual(mine.data, { owner: ALICE, body: 'alice second' })
  const forged = await alice.from('compat_rest_notes').insert({ body: 'x', owner: BOB })
  assert.equal(forged.status, 403)
  assert.equal(forged.error.code, '42501')
  const hijack = await bob.from('compat_rest_notes').update({ body: 'pwned' }).eq('body', 'alice note').select()
  assert.deepEqual(hijack.data, [])
  const anonRead = await anon.from('compat_rest_notes').select('body')
  assert.deepEqual(anonRead.data, [])
  const anonWrite = await anon.from('compat_rest_notes').insert({ body: 'anon' })
  assert.equal(anonWrite.status, 401)
})
