// TypeScript edge functions on Deno, through supabase-js: a function of
// compat/supabase/functions written as Supabase's examples are (a client
// acting as the caller, RLS, a call to another API), and a function
// deployed with `basalt functions deploy`, rolled back and deleted while
// basalt dev runs.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { createClient } from '@supabase/supabase-js'

const url = process.env.SUPABASE_URL
const anonKey = process.env.SUPABASE_ANON_KEY
const jwtSecret = process.env.SUPABASE_JWT_SECRET
const dbUrl = process.env.SUPABASE_DB_URL
const bin = process.env.BASALT_BIN
const dataDir = process.env.BASALT_DATA_DIR
const opts = { auth: { persistSession: false, autoRefreshToken: false } }
const anon = createClient(url, anonKey, opts)

const ALICE = 'aaaaaaaa-0000-4000-8000-0000000000f1'
const BOB = 'bbbbbbbb-0000-4000-8000-0000000000f2'

const b64url = (buf) => Buffer.from(buf).toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')
function userToken(sub) {
  const now = Math.floor(Date.now() / 1000)
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))
  const body = b64url(JSON.stringify({ sub, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600 }))
  const sig = b64url(crypto.createHmac('sha256', jwtSecret).update(`${head}.${body}`).digest())
  return `${head}.${body}.${sig}`
}
const asUser = (sub) => createClient(url, anonKey, { ...opts, global: { headers: { Authorization: `Bearer ${userToken(sub)}` } } })

let quoteServer
let quoteUrl
before(async () => {
  const r = spawnSync('psql', [dbUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-c', `
    DROP TABLE IF EXISTS compat_fn_notes;
    CREATE TABLE compat_fn_notes (owner uuid NOT NULL, body text NOT NULL);
    ALTER TABLE compat_fn_notes ENABLE ROW LEVEL SECURITY;
    CREATE POLICY own_select ON compat_fn_notes FOR SELECT TO authenticated USING (owner = auth.uid());
    GRANT SELECT ON compat_fn_notes TO anon, authenticated;
    INSERT INTO compat_fn_notes VALUES ('${ALICE}', 'alice 1'), ('${ALICE}', 'alice 2'), ('${BOB}', 'bob 1');
    NOTIFY pgrst, 'reload schema';`], { encoding: 'utf8' })
  assert.equal(r.status, 0, r.stderr)
  quoteServer = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ text: 'no wahala' }))
  })
  await new Promise((resolve) => quoteServer.listen(0, '127.0.0.1', resolve))
  quoteUrl = `http://127.0.0.1:${quoteServer.address().port}/quote`
})
after(() => quoteServer?.close())

test('a Supabase example function runs unchanged: RLS as the caller, another API, JSON', async () => {
  const { data, error } = await asUser(ALICE).functions.invoke('notes', { body: { quoteUrl } })
  assert.equal(error, null, error && (await error.context?.text?.()))
  assert.deepEqual(data, { notes: ['alice 1', 'alice 2'], quote: 'no wahala' })

  const bob = await asUser(BOB).functions.invoke('notes', { body: { quoteUrl } })
  assert.deepEqual(bob.data, { notes: ['bob 1'], quote: 'no wahala' })

  // The anon key passes verify_jwt; RLS then shows nothing.
  const guest = await anon.functions.invoke('notes', { body: { quoteUrl } })
  assert.deepEqual(guest.data, { notes: [], quote: 'no wahala' })
})

test('verify_jwt: a bad token is refused before the function runs', async () => {
  const res = await fetch(`${url}/functions/v1/notes`, {
    method: 'POST',
    headers: { apikey: anonKey, Authorization: 'Bearer not.a.jwt', 'Content-Type': 'application/json' },
    body: JSON.stringify({ quoteUrl }),
  })
  assert.equal(res.status, 401)
  assert.deepEqual(await res.json(), { code: 401, message: 'Invalid JWT' })
})

// `basalt functions` against this basalt dev (its state file gives the URL
// and the service_role key).
function basalt(args, cwd) {
  const r = spawnSync(bin, [...args, '--data-dir', dataDir], { cwd, encoding: 'utf8' })
  return { code: r.status, out: `${r.stdout}${r.stderr}` }
}

test('deploy, serve on the next call, roll back, delete: without a rebuild', async () => {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-deploy-'))
  const fnDir = path.join(project, 'supabase', 'functions', 'greeting')
  fs.mkdirSync(fnDir, { recursive: true })
  const write = (v) => fs.writeFileSync(path.join(fnDir, 'index.ts'),
    `Deno.serve(() => Response.json({ version: ${v}, secret: Deno.env.get("COMPAT_GREETING") ?? null }))`)
  try {
    let r = basalt(['secrets', 'set', 'COMPAT_GREETING=hello from a secret'], project)
    assert.equal(r.code, 0, r.out)
    write(1)
    r = basalt(['functions', 'deploy', 'greeting'], project)
    assert.equal(r.code, 0, r.out)
    assert.match(r.out, /Deployed greeting version \d+/)
    let res = await anon.functions.invoke('greeting')
    assert.deepEqual(res.data, { version: 1, secret: 'hello from a secret' })

    write(2)
    r = basalt(['functions', 'deploy', 'greeting'], project)
    assert.equal(r.code, 0, r.out)
    res = await anon.functions.invoke('greeting')
    assert.deepEqual(res.data, { version: 2, secret: 'hello from a secret' })

    r = basalt(['functions', 'rollback', 'greeting'], project)
    assert.equal(r.code, 0, r.out)
    res = await anon.functions.invoke('greeting')
    assert.equal(res.data.version, 1)

    r = basalt(['functions', 'list'], project)
    assert.match(r.out, /greeting\s+1\s+\*/)

    // Logs are written in batches: wait for the invocation to show.
    for (let i = 0; i < 50; i++) {
      r = basalt(['functions', 'logs', 'greeting'], project)
      assert.equal(r.code, 0, r.out)
      if (/POST \/greeting 200/.test(r.out)) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.match(r.out, /POST \/greeting 200/)

    r = basalt(['functions', 'delete', 'greeting'], project)
    assert.equal(r.code, 0, r.out)
    res = await anon.functions.invoke('greeting')
    assert.equal(res.error?.context?.status, 404)
  } finally {
    basalt(['secrets', 'unset', 'COMPAT_GREETING'], project)
    fs.rmSync(project, { recursive: true, force: true })
  }
})

test('the functions admin API refuses the anon key', async () => {
  const res = await fetch(`${url}/functions/v1/_admin/functions`, { headers: { apikey: anonKey, Authorization: `Bearer ${anonKey}` } })
  assert.equal(res.status, 401)
  assert.equal((await res.json()).code, 'unauthorized')
})
