// The gateway as supabase-js sees it: API key checks and their error bodies,
// the new-format key swap, CORS for browsers (preflights and error
// responses), request ids, /health, /metrics and the JWKS document. These
// hold whichever services are mounted behind the gateway.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createClient } from '@supabase/supabase-js'

const url = process.env.SUPABASE_URL
const anonKey = process.env.SUPABASE_ANON_KEY
const serviceKey = process.env.SUPABASE_SERVICE_ROLE_KEY
const publishableKey = process.env.SUPABASE_PUBLISHABLE_KEY
const secretKey = process.env.SUPABASE_SECRET_KEY

const client = (key) => createClient(url, key, { auth: { persistSession: false, autoRefreshToken: false } })

// What PostgREST answers about a table that does not exist: the request got
// past the gateway's key check and reached the service.
const NO_TABLE = {
  code: 'PGRST205',
  details: null,
  hint: null,
  message: "Could not find the table 'public.compat_gateway_no_such_table' in the schema cache",
}

test('a request without an API key is refused with the gateway message', async () => {
  const res = await fetch(`${url}/rest/v1/anything`)
  assert.equal(res.status, 401)
  assert.deepEqual(await res.json(), { message: 'No API key found in request' })
})

test('supabase-js with an unknown key gets 401 Invalid API key', async () => {
  const { data, error, status } = await client('not-a-project-key').from('anything').select()
  assert.equal(data, null)
  assert.equal(status, 401)
  assert.equal(error.message, 'Invalid API key')
})

test('an unknown sb_publishable key is refused like any unknown key', async () => {
  const { error, status } = await client('sb_publishable_notours').from('anything').select()
  assert.equal(status, 401)
  assert.equal(error.message, 'Invalid API key')
})

for (const [name, key] of [['anon', anonKey], ['service_role', serviceKey], ['publishable', publishableKey], ['secret', secretKey]]) {
  test(`the ${name} key passes the gateway`, async () => {
    assert.ok(key, `${name} key is in the environment`)
    const { error, status } = await client(key).from('compat_gateway_no_such_table').select()
    // The key was accepted: the answer is PostgREST's about the table.
    assert.equal(status, 404, JSON.stringify(error))
    assert.deepEqual(error, NO_TABLE)
  })
}

test('an sb_ key in Authorization is swapped, an unknown one refused', async () => {
  const ok = await fetch(`${url}/rest/v1/compat_gateway_no_such_table`, {
    headers: { apikey: publishableKey, Authorization: `Bearer ${publishableKey}` },
  })
  assert.equal(ok.status, 404)
  assert.deepEqual(await ok.json(), NO_TABLE)
  const bad = await fetch(`${url}/rest/v1/compat_gateway_no_such_table`, {
    headers: { apikey: publishableKey, Authorization: 'Bearer sb_secret_forged' },
  })
  assert.equal(bad.status, 401)
  assert.deepEqual(await bad.json(), { message: 'Invalid API key' })
})

test('a secret key sent from a browser is refused', async () => {
  const res = await fetch(`${url}/rest/v1/anything`, {
    headers: { apikey: secretKey, 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0' },
  })
  assert.equal(res.status, 401)
  assert.deepEqual(await res.json(), { message: 'Forbidden use of secret API key in browser' })
})

test('websocket-style apikey query parameter is checked', async () => {
  const bad = await fetch(`${url}/realtime/v1/websocket?apikey=wrong&vsn=1.0.0`)
  assert.equal(bad.status, 401)
  assert.deepEqual(await bad.json(), { message: 'Invalid API key' })
  const missing = await fetch(`${url}/realtime/v1/websocket?vsn=1.0.0`)
  assert.equal(missing.status, 401)
  assert.deepEqual(await missing.json(), { message: 'No API key found in request' })
})

test('CORS preflight allows every header supabase-js sends, without a key', async () => {
  const res = await fetch(`${url}/rest/v1/anything`, {
    method: 'OPTIONS',
    headers: {
      Origin: 'http://localhost:5173',
      'Access-Control-Request-Method': 'PATCH',
      'Access-Control-Request-Headers': 'authorization,apikey,x-client-info,content-type,prefer,accept-profile',
    },
  })
  // As Kong's cors plugin answers a preflight: 200, no body.
  assert.equal(res.status, 200)
  assert.equal(await res.text(), '')
  assert.equal(res.headers.get('access-control-allow-origin'), '*')
  assert.match(res.headers.get('access-control-allow-methods'), /PATCH/)
  const allowed = res.headers.get('access-control-allow-headers').split(',').map((h) => h.trim().toLowerCase())
  for (const h of ['authorization', 'apikey', 'x-client-info', 'content-type', 'prefer', 'range', 'accept-profile',
    'content-profile', 'x-upsert', 'x-supabase-api-version', 'cache-control', 'x-retry-count']) {
    assert.ok(allowed.includes(h), `${h} allowed`)
  }
})

test('error responses carry CORS headers so browser code can read them', async () => {
  const res = await fetch(`${url}/rest/v1/anything`, { headers: { Origin: 'http://localhost:5173' } })
  assert.equal(res.status, 401)
  assert.equal(res.headers.get('access-control-allow-origin'), '*')
  const exposed = res.headers.get('access-control-expose-headers').split(',').map((h) => h.trim().toLowerCase())
  for (const h of ['content-range', 'content-location', 'location', 'preference-applied', 'x-total-count', 'link',
    'x-sb-error-code', 'x-supabase-api-version']) {
    assert.ok(exposed.includes(h), `${h} exposed`)
  }
})

test('every response has a request id, and an incoming one is kept', async () => {
  const a = await fetch(`${url}/health`)
  assert.match(a.headers.get('x-request-id'), /^[0-9a-f-]{36}$/)
  const b = await fetch(`${url}/health`, { headers: { 'X-Request-Id': 'compat-trace-42' } })
  assert.equal(b.headers.get('x-request-id'), 'compat-trace-42')
})

test('/health answers without a key', async () => {
  const res = await fetch(`${url}/health`)
  assert.equal(res.status, 200)
  assert.equal((await res.json()).status, 'ok')
})

test('the JWKS document is public and holds the ES256 verification key', async () => {
  const res = await fetch(process.env.SUPABASE_JWKS_URL ?? `${url}/auth/v1/.well-known/jwks.json`)
  assert.equal(res.status, 200)
  const { keys } = await res.json()
  const ec = keys.find((k) => k.kty === 'EC')
  assert.ok(ec, 'an EC key is published')
  assert.equal(ec.crv, 'P-256')
  assert.equal(ec.alg, 'ES256')
  assert.ok(ec.kid)
  assert.equal(ec.d, undefined, 'no private part')
  assert.ok(!keys.some((k) => k.kty === 'oct'), 'the HS256 secret is never published')
})

test('public routes pass without a key', async () => {
  // An email link reaches GoTrue's verify, which sends the browser to the
  // site with the error in the fragment.
  const verify = await fetch(`${url}/auth/v1/verify?type=signup&token=x`, { redirect: 'manual' })
  assert.equal(verify.status, 303, await verify.text())
  assert.equal(
    verify.headers.get('location'),
    `${process.env.BASALT_APP_URL}#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=`,
  )
  // A public object URL reaches storage, which answers for the bucket.
  const object = await fetch(`${url}/storage/v1/object/public/compat-bucket/none.txt`)
  assert.equal(object.status, 400)
  assert.deepEqual(await object.json(), { statusCode: '404', code: 'NoSuchBucket', error: 'Bucket not found', message: 'Bucket not found' })
})

test('/metrics exposes request counters per service and status', async () => {
  await fetch(`${url}/rest/v1/anything`)
  const text = await (await fetch(`${url}/metrics`)).text()
  assert.match(text, /basalt_http_requests_total\{method="GET",service="rest",status="401"\} \d+/)
  assert.match(text, /basalt_http_request_duration_seconds_bucket\{service="rest",status="401",le="[^"]+"\}/)
})

test('the app server hands a frontend build its supabase-js configuration', async () => {
  const appUrl = process.env.BASALT_APP_URL
  assert.ok(appUrl, 'BASALT_APP_URL is set by the runner')
  const res = await fetch(`${appUrl}/config.json`)
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('cache-control'), 'no-store')
  const cfg = await res.json()
  assert.equal(cfg.SUPABASE_URL, url)
  assert.equal(cfg.SUPABASE_ANON_KEY, anonKey)
  const js = await (await fetch(`${appUrl}/env.js`)).text()
  assert.equal(js, `window.__BASALT_ENV__ = ${JSON.stringify(cfg)};\n`)
  // A client built only from the runtime config gets through the gateway.
  const { status, error } = await createClient(cfg.SUPABASE_URL, cfg.SUPABASE_ANON_KEY, { auth: { persistSession: false } })
    .from('compat_gateway_no_such_table').select()
  assert.equal(status, 404)
  assert.deepEqual(error, NO_TABLE)
})
