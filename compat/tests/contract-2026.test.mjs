// The Supabase contract as of late 2026, through supabase-js and fetch: the
// OpenAPI document for secret keys only, explicit grants on new tables, the
// new API keys on every service, asymmetric signing keys with states, and
// third-party auth.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { createClient } from '@supabase/supabase-js'

const url = process.env.SUPABASE_URL
const anonKey = process.env.SUPABASE_ANON_KEY
const serviceKey = process.env.SUPABASE_SERVICE_ROLE_KEY
const publishableKey = process.env.SUPABASE_PUBLISHABLE_KEY
const secretKey = process.env.SUPABASE_SECRET_KEY

const SCHEMA_FORBIDDEN = {
  message: 'Access to schema is forbidden',
  hint: 'Accessing the schema via the Data API is only allowed using a secret API key.',
}

test('the OpenAPI document at /rest/v1/ is for secret keys only', async () => {
  for (const key of [anonKey, publishableKey]) {
    for (const headers of [{ apikey: key }, { apikey: key, Authorization: `Bearer ${key}` }]) {
      const res = await fetch(`${url}/rest/v1/`, { headers })
      assert.equal(res.status, 401)
      assert.deepEqual(await res.json(), SCHEMA_FORBIDDEN)
    }
  }
  for (const key of [serviceKey, secretKey]) {
    const res = await fetch(`${url}/rest/v1/`, { headers: { apikey: key } })
    assert.equal(res.status, 200)
    const doc = await res.json()
    assert.equal(doc.swagger, '2.0')
  }
})

test('a new table in public is granted to nobody until a GRANT says so', async () => {
  const table = `c26_grants_${uniq()}`
  sql(`CREATE TABLE public.${table} (id int PRIMARY KEY, body text);
       INSERT INTO public.${table} VALUES (1, 'kept');`)
  const anon = client(anonKey)
  // Without privileges PostgREST answers 42501; the anon role gets 401.
  const refused = await until(async () => {
    const res = await anon.from(table).select('id')
    return res.error?.code === '42501' ? res : null
  }, 'the new table refused to anon')
  assert.equal(refused.status, 401)
  assert.equal(refused.error.message, `permission denied for table ${table}`)
  const { error: writeErr, status: writeStatus } = await client(serviceKey).from(table).insert({ id: 2, body: 'x' })
  assert.equal(writeStatus, 403)
  assert.equal(writeErr.code, '42501')

  sql(`GRANT SELECT ON public.${table} TO anon;`)
  const { data, error } = await anon.from(table).select('id, body')
  assert.equal(error, null)
  assert.deepEqual(data, [{ id: 1, body: 'kept' }])
})

// --- New API keys: several of each kind, on every service, created, rotated
// and revoked one at a time with `basalt keys api`.

const client = (key, base = url) => createClient(base, key, { auth: { persistSession: false, autoRefreshToken: false } })

function sql(statement) {
  execFileSync('psql', [process.env.SUPABASE_DB_URL, '-v', 'ON_ERROR_STOP=1', '-q', '-c', statement], { stdio: 'pipe' })
}

function basalt(...args) {
  return execFileSync(process.env.BASALT_BIN, args, { env: process.env, encoding: 'utf8' })
}

const uniq = () => randomUUID().slice(0, 8)

// until polls check (async) until it returns truthy, or fails after ms.
async function until(check, what, ms = 10000) {
  for (const end = Date.now() + ms; ; ) {
    const v = await check()
    if (v) return v
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

// joined subscribes a broadcast channel, resolves with its status and
// closes the client's socket.
async function joined(sb, topic) {
  const status = await new Promise((resolve) => {
    sb.channel(topic).subscribe((status, err) => {
      if (status !== 'SUBSCRIBED' && !err && status !== 'CHANNEL_ERROR' && status !== 'TIMED_OUT') return
      resolve(err ? `${status}: ${err.message}` : status)
    })
  })
  await sb.removeAllChannels()
  sb.realtime.disconnect()
  return status
}

test('publishable and secret keys work on REST, storage, realtime, functions and auth', async () => {
  const table = `c26_keys_${uniq()}`
  sql(`CREATE TABLE public.${table} (id int PRIMARY KEY, body text);
       GRANT SELECT ON public.${table} TO anon;
       GRANT ALL ON public.${table} TO service_role;
       INSERT INTO public.${table} VALUES (1, 'hello');`)
  const pub = client(publishableKey)
  // The schema cache reloads after DDL (event trigger + NOTIFY).
  const rows = await until(async () => (await pub.from(table).select('id, body')).data, 'the new table in the schema cache')
  assert.deepEqual(rows, [{ id: 1, body: 'hello' }])
  const { error: storageErr } = await pub.storage.listBuckets()
  assert.equal(storageErr, null)
  // supabase-js sends a function no Authorization with an sb_ key; the key
  // stands for the anon JWT, which passes the function's JWT check.
  const { data: echo, error: fnErr } = await pub.functions.invoke('client-ip')
  assert.equal(fnErr, null, fnErr?.message)
  assert.ok(echo.ip)
  const { error: authErr } = await pub.auth.signUp({ email: `c26-${uniq()}@example.com`, password: 'password-123456' })
  assert.equal(authErr, null)
  // realtime-js puts the key in the socket's apikey parameter.
  assert.equal(await joined(client(publishableKey), `c26-${uniq()}`), 'SUBSCRIBED')

  const sec = client(secretKey)
  const { error: insErr } = await sec.from(table).insert({ id: 2, body: 'by the secret key' })
  assert.equal(insErr, null)
  const { error: adminErr } = await sec.auth.admin.listUsers()
  assert.equal(adminErr, null)
  const bucket = `c26-${uniq()}`
  const { error: bucketErr } = await sec.storage.createBucket(bucket)
  assert.equal(bucketErr, null)
  assert.equal(await joined(client(secretKey), `c26-${uniq()}`), 'SUBSCRIBED')
})

test('keys are created, rotated and revoked one at a time, and a revoked key is refused', async () => {
  const name = `compat_${uniq()}`
  const created = JSON.parse(basalt('keys', 'api', 'create', 'secret', '--name', name, '--json'))
  assert.equal(created.type, 'secret')
  assert.equal(created.name, name)
  assert.match(created.api_key, /^sb_secret_/)
  const extraPub = JSON.parse(basalt('keys', 'api', 'create', 'publishable', '--name', name, '--json')).api_key

  // The default secret key and the new one work side by side.
  for (const key of [created.api_key, secretKey]) {
    const { error } = await client(key).auth.admin.listUsers()
    assert.equal(error, null)
  }
  for (const key of [extraPub, publishableKey]) {
    const { error, status } = await client(key).from('c26_no_such_table').select()
    assert.equal(status, 404, JSON.stringify(error))
  }

  // Rotation: a new key under the name, the old one refused.
  const rotated = JSON.parse(basalt('keys', 'api', 'rotate', 'secret', name, '--json'))
  assert.notEqual(rotated.api_key, created.api_key)
  const refused = async (key) => {
    const res = await fetch(`${url}/rest/v1/c26_no_such_table`, { headers: { apikey: key } })
    return res.status === 401 && JSON.stringify(await res.json()) === JSON.stringify({ message: 'Invalid API key' })
  }
  await until(() => refused(created.api_key), 'the rotated key to be refused')
  const { error: rotatedErr } = await client(rotated.api_key).auth.admin.listUsers()
  assert.equal(rotatedErr, null)

  // Revocation of one publishable key leaves the other.
  basalt('keys', 'api', 'revoke', 'publishable', name)
  await until(() => refused(extraPub), 'the revoked key to be refused')
  const ws = await fetch(`${url}/realtime/v1/websocket?apikey=${extraPub}&vsn=1.0.0`)
  assert.equal(ws.status, 401)
  const { status } = await client(publishableKey).from('c26_no_such_table').select()
  assert.equal(status, 404)

  const list = JSON.parse(basalt('keys', 'api', 'list', '--json'))
  const mine = list.filter((k) => k.name === name)
  assert.deepEqual(mine.map((k) => [k.type, k.revoked_at === null]).sort(), [['publishable', false], ['secret', false], ['secret', true]].sort())
  assert.ok(!JSON.stringify(list).includes(rotated.api_key), 'the list never shows a key')
})

test('a secret key sent from a browser gets 401 on every service', async () => {
  const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36'
  const want = { message: 'Forbidden use of secret API key in browser' }
  for (const path of ['/rest/v1/anything', '/auth/v1/admin/users', '/storage/v1/bucket', '/functions/v1/client-ip']) {
    const res = await fetch(`${url}${path}`, { headers: { apikey: secretKey, Authorization: `Bearer ${secretKey}`, 'User-Agent': browser } })
    assert.equal(res.status, 401, path)
    assert.deepEqual(await res.json(), want)
  }
  const ws = await fetch(`${url}/realtime/v1/websocket?apikey=${secretKey}&vsn=1.0.0`, { headers: { 'User-Agent': browser } })
  assert.equal(ws.status, 401)
  assert.deepEqual(await ws.json(), want)
  // The same key from a server runtime passes.
  const ok = await fetch(`${url}/rest/v1/`, { headers: { apikey: secretKey } })
  assert.equal(ok.status, 200)
})

// --- Asymmetric signing keys with states, walked with `basalt keys signing`
// on a basalt dev of this test's own (a server reads its keys at start).

// devWith starts a private basalt dev on dir's data, with env.
async function devWith(dir, env = {}) {
  const { startBasalt } = await import('../lib/basalt.mjs')
  return startBasalt({ bin: process.env.BASALT_BIN, dir, env })
}

function keysCmd(dataDir, ...args) {
  return execFileSync(process.env.BASALT_BIN, ['keys', 'signing', ...args, '--data-dir', dataDir], { encoding: 'utf8' })
}

const header = (tok) => JSON.parse(Buffer.from(tok.split('.')[0], 'base64url').toString())

test('signing keys rotate without signing anyone out; a revoked key is refused', async () => {
  const { tempDir } = await import('../lib/basalt.mjs')
  const dir = tempDir('basalt-c26-keys-')
  let dev = await devWith(dir)
  try {
    const email = `keys-${uniq()}@example.com`
    const user = client(dev.info.anon_key, dev.info.api_url)
    const { data: signup, error } = await user.auth.signUp({ email, password: 'password-123456' })
    assert.equal(error, null, error?.message)
    const before = signup.session
    const legacyKid = header(before.access_token).kid
    assert.equal(header(before.access_token).alg, 'ES256')
    await dev.stop()

    // A standby RS256 key, then the rotation to it, then a new standby.
    const added = JSON.parse(keysCmd(dev.dataDir, 'add', '--alg', 'RS256', '--json'))
    assert.equal(added.status, 'standby')
    keysCmd(dev.dataDir, 'rotate')
    const standby = JSON.parse(keysCmd(dev.dataDir, 'add', '--alg', 'ES256', '--json'))
    dev = await devWith(dir)

    const jwks = await (await fetch(`${dev.info.api_url}/auth/v1/.well-known/jwks.json`)).json()
    assert.deepEqual(jwks.keys.map((k) => [k.kid, k.alg]), [[added.kid, 'RS256'], [standby.kid, 'ES256'], [legacyKid, 'ES256']])

    // The session signed before the rotation still works everywhere.
    const old = createClient(dev.info.api_url, dev.info.anon_key, {
      accessToken: async () => before.access_token,
    })
    const { error: restErr, status } = await old.from('c26_no_such_table').select()
    assert.equal(status, 404, JSON.stringify(restErr))
    const { error: storageErr } = await old.storage.listBuckets()
    assert.equal(storageErr, null)
    assert.equal(await joined(createClient(dev.info.api_url, dev.info.anon_key, { accessToken: async () => before.access_token }), `c26-${uniq()}`), 'SUBSCRIBED')

    // Refreshing gives a token of the new key, which verifies against the JWKS.
    const fresh = client(dev.info.anon_key, dev.info.api_url)
    const { error: setErr } = await fresh.auth.setSession(before)
    assert.equal(setErr, null, setErr?.message)
    const { data: refreshed, error: refreshErr } = await fresh.auth.refreshSession()
    assert.equal(refreshErr, null, refreshErr?.message)
    assert.deepEqual([header(refreshed.session.access_token).alg, header(refreshed.session.access_token).kid], ['RS256', added.kid])
    const { data: claims, error: claimsErr } = await fresh.auth.getClaims()
    assert.equal(claimsErr, null, claimsErr?.message)
    assert.equal(claims.claims.email, email)
    await dev.stop()

    // Revoked: the old key's tokens are refused, the new ones still pass.
    keysCmd(dev.dataDir, 'revoke', legacyKid)
    dev = await devWith(dir)
    const revoked = await fetch(`${dev.info.api_url}/rest/v1/c26_no_such_table`, {
      headers: { apikey: dev.info.anon_key, Authorization: `Bearer ${before.access_token}` },
    })
    assert.equal(revoked.status, 401)
    assert.equal((await revoked.json()).code, 'PGRST301')
    const kept = await fetch(`${dev.info.api_url}/rest/v1/c26_no_such_table`, {
      headers: { apikey: dev.info.anon_key, Authorization: `Bearer ${refreshed.session.access_token}` },
    })
    assert.equal(kept.status, 404)
    const after = await (await fetch(`${dev.info.api_url}/auth/v1/.well-known/jwks.json`)).json()
    assert.ok(!after.keys.some((k) => k.kid === legacyKid), 'the revoked key is not published')
  } finally {
    await dev.stop()
  }
})

// --- Third-party auth: a tiny OIDC issuer (discovery and JWKS) of this
// test's own, trusted by a basalt dev started with THIRD_PARTY_AUTH_ISSUERS.

async function startIssuer() {
  const { generateKeyPairSync, sign } = await import('node:crypto')
  const http = await import('node:http')
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const kid = `kid-${uniq()}`
  const server = http.createServer((req, res) => {
    const base = `http://127.0.0.1:${server.address().port}`
    res.setHeader('Content-Type', 'application/json')
    if (req.url === '/.well-known/openid-configuration') return res.end(JSON.stringify({ issuer: base, jwks_uri: `${base}/jwks` }))
    if (req.url === '/jwks') return res.end(JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }] }))
    res.statusCode = 404
    res.end('{}')
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${server.address().port}`
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const token = (claims) => {
    const now = Math.floor(Date.now() / 1000)
    const input = `${b64({ alg: 'ES256', typ: 'JWT', kid })}.${b64({ iss: issuer, iat: now, exp: now + 3600, ...claims })}`
    return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`
  }
  return { issuer, token, close: () => server.close() }
}

test('third-party auth: an external issuer\'s users on REST, storage and realtime under RLS', async () => {
  const idp = await startIssuer()
  const { tempDir } = await import('../lib/basalt.mjs')
  const dev = await devWith(tempDir('basalt-c26-tpa-'), { THIRD_PARTY_AUTH_ISSUERS: idp.issuer })
  try {
    const db = (statement) => execFileSync('psql', [dev.info.db_url, '-v', 'ON_ERROR_STOP=1', '-q', '-c', statement], { stdio: 'pipe' })
    const table = `c26_tpa_${uniq()}`
    // A UUID sub, as AWS Cognito's: Backline's own storage policies (on
    // every object) read auth.uid(), which casts the sub to uuid. The Go
    // test covers ids that are no UUID (Clerk's, Firebase's).
    const me = randomUUID()
    db(`CREATE TABLE public.${table} (id int PRIMARY KEY, owner text NOT NULL, body text);
        GRANT SELECT ON public.${table} TO anon, authenticated;
        ALTER TABLE public.${table} ENABLE ROW LEVEL SECURITY;
        CREATE POLICY "own rows" ON public.${table} FOR SELECT TO authenticated USING (owner = auth.jwt()->>'sub');
        ALTER PUBLICATION supabase_realtime ADD TABLE public.${table};
        INSERT INTO public.${table} VALUES (1, '${me}', 'mine'), (2, 'user_other', 'theirs');
        INSERT INTO storage.buckets (id, name) VALUES ('${table}', '${table}');
        CREATE POLICY "${table} uploads" ON storage.objects FOR INSERT TO authenticated
          WITH CHECK (bucket_id = '${table}' AND owner_id = auth.jwt()->>'sub');`)
    const userToken = idp.token({ sub: me, role: 'authenticated', email: 'tpa@example.com' })
    const sb = createClient(dev.info.api_url, dev.info.publishable_key, { accessToken: async () => userToken })

    const rows = await until(async () => (await sb.from(table).select('id, body')).data, 'the table in the schema cache')
    assert.deepEqual(rows, [{ id: 1, body: 'mine' }])

    const { data: up, error: upErr } = await sb.storage.from(table).upload('hello.txt', new Blob(['hi']), { contentType: 'text/plain' })
    assert.equal(upErr, null, upErr?.message)
    assert.equal(up.path, 'hello.txt')

    // postgres_changes: the user's rows reach them, others' do not.
    const seen = []
    const ch = sb.channel(`tpa-${uniq()}`).on('postgres_changes', { event: 'INSERT', schema: 'public', table }, (p) => seen.push(p.new.id))
    await new Promise((resolve, reject) =>
      ch.subscribe((status, err) => (status === 'SUBSCRIBED' ? resolve() : (err || status === 'CHANNEL_ERROR') && reject(err ?? new Error(status)))),
    )
    for (let probe = 100, end = Date.now() + 10000; ; probe++) {
      db(`INSERT INTO public.${table} VALUES (${probe}, '${me}', 'probe')`)
      if (await until(async () => seen.includes(probe), 'x', 500).catch(() => false)) break
      assert.ok(Date.now() < end, 'the subscription never delivered')
    }
    db(`INSERT INTO public.${table} VALUES (3, 'user_other', 'not mine'), (4, '${me}', 'mine too')`)
    await until(async () => seen.includes(4), 'the user\'s row')
    assert.ok(!seen.includes(3), 'another user\'s row was delivered')
    await sb.removeAllChannels()
    sb.realtime.disconnect()

    // Without a role claim the token is anon (the policy shows anon nothing).
    const anonish = createClient(dev.info.api_url, dev.info.publishable_key, { accessToken: async () => idp.token({ sub: me }) })
    const { data: none, error: noneErr } = await anonish.from(table).select('id')
    assert.equal(noneErr, null)
    assert.deepEqual(none, [])

    // Auth trusts its own tokens only.
    const res = await fetch(`${dev.info.api_url}/auth/v1/user`, { headers: { apikey: dev.info.anon_key, Authorization: `Bearer ${userToken}` } })
    assert.equal(res.status, 403)
    assert.equal(res.headers.get('x-sb-error-code'), 'bad_jwt')
  } finally {
    await dev.stop()
    idp.close()
  }
})
