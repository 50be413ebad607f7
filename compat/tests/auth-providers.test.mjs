// External sign-in providers through supabase-js: signInWithOAuth (PKCE and
// implicit), signInWithIdToken, linkIdentity, getUserIdentities and
// unlinkIdentity, against a real OpenID Connect provider on this machine
// (auth/testidp, mockoidc). Provider settings are read at start, so this file
// runs a second Basalt node (`basalt serve`) on the compat database and keys,
// configured for that provider; everything else is the node `basalt dev`
// already serves.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { fileURLToPath } from 'node:url'
import { createClient } from '@supabase/supabase-js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const site = 'http://localhost:3000'
let tmp, idp, idpInfo, node, apiURL

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

function build(pkg, out) {
  // The go build cache makes this a link step after run.mjs's own build.
  const r = spawnSync('go', ['build', '-o', out, pkg], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) throw new Error(`go build ${pkg} failed`)
}

// startIdP runs the test provider and reads the issuer and client from its
// first line of output.
async function startIdP() {
  const bin = path.join(tmp, 'testidp')
  build('./auth/testidp/cmd/testidp', bin)
  idp = spawn(bin, ['-addr', '127.0.0.1:0'], { stdio: ['pipe', 'pipe', 'inherit'] })
  const line = await new Promise((resolve, reject) => {
    const rl = readline.createInterface({ input: idp.stdout })
    rl.once('line', resolve)
    idp.once('exit', (code) => reject(new Error(`testidp exited (${code})`)))
  })
  return JSON.parse(line)
}

async function startNode() {
  const bin = process.env.BASALT_BIN || path.join(tmp, 'basalt')
  if (!process.env.BASALT_BIN) build('./cmd/basalt', bin)
  const port = await freePort()
  const provider = (name) => ({
    [`BASALT_AUTH_EXTERNAL_${name}_ENABLED`]: 'true',
    [`BASALT_AUTH_EXTERNAL_${name}_CLIENT_ID`]: idpInfo.client_id,
    [`BASALT_AUTH_EXTERNAL_${name}_SECRET`]: idpInfo.client_secret,
    [`BASALT_AUTH_EXTERNAL_${name}_ISSUER`]: idpInfo.issuer,
  })
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? os.tmpdir(),
    DATABASE_URL: process.env.SUPABASE_DB_URL,
    BASALT_AUTHENTICATOR_PASSWORD: randomBytes(12).toString('hex'),
    BASALT_KEYS_FILE: path.join(process.env.BASALT_DATA_DIR, 'keys.json'),
    BASALT_HOST: '127.0.0.1',
    BASALT_API_PORT: String(port),
    BASALT_APP_PORT: '0',
    STORAGE_FILE_DIR: path.join(tmp, 'storage'),
    BASALT_AUTH_SITE_URL: site,
    BASALT_AUTH_MAILER_AUTOCONFIRM: 'true',
    BASALT_AUTH_SECURITY_MANUAL_LINKING_ENABLED: 'true',
    BASALT_AUTH_EXTERNAL_CUSTOM_PROVIDERS: 'corp',
    BASALT_AUTH_SAML_ENABLED: 'true',
    BASALT_AUTH_SAML_PRIVATE_KEY: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'der' }).toString('base64'),
    ...provider('GOOGLE'),
    ...provider('CORP'),
  }
  const log = fs.openSync(path.join(tmp, 'node.log'), 'a')
  node = spawn(bin, ['serve'], { cwd: root, env, stdio: ['ignore', log, log] })
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (node.exitCode !== null) throw new Error(fs.readFileSync(path.join(tmp, 'node.log'), 'utf8'))
    try {
      if ((await fetch(`${url}/health`)).ok) return url
    } catch {}
    if (Date.now() > deadline) throw new Error('basalt serve did not become healthy')
    await new Promise((r) => setTimeout(r, 200))
  }
}

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-providers-'))
  idpInfo = await startIdP()
  apiURL = await startNode()
})

// stop signals a child and waits (up to 30 s) for it to exit, so the node
// has closed its database connections before run.mjs stops the cluster.
function stop(child) {
  if (!child || child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  return Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))])
}

after(async () => {
  idp?.stdin.end()
  await Promise.all([stop(node), stop(idp)])
  if (!process.env.KEEP_DATA) fs.rmSync(tmp, { recursive: true, force: true })
})

function client(flowType = 'pkce') {
  return createClient(apiURL, process.env.SUPABASE_ANON_KEY, {
    auth: { flowType, autoRefreshToken: false, persistSession: true, detectSessionInUrl: false },
  })
}

async function control(what, body) {
  const res = await fetch(`${idpInfo.control}/control/${what}`, { method: 'POST', body: JSON.stringify(body ?? {}) })
  assert.ok(res.ok, `control ${what}: ${res.status}`)
  return res.status === 204 ? null : res.json()
}

// browse follows redirects as a browser does while they stay on Basalt's
// auth routes or the provider, and returns where the browser lands.
async function browse(url) {
  for (let i = 0; i < 10; i++) {
    const res = await fetch(url, { redirect: 'manual' })
    const loc = res.headers.get('location')
    assert.ok(res.status === 302 || res.status === 303, `${url}: ${res.status} ${await res.text()}`)
    const next = new URL(loc, url)
    const onAuth = next.origin === apiURL && next.pathname.startsWith('/auth/v1/')
    if (!onAuth && next.origin !== idpInfo.origin) return next
    url = next.href
  }
  throw new Error('too many redirects')
}

const sha256 = (s) => createHash('sha256').update(s).digest('hex')
let seq = 0
const person = (verified = true) => {
  seq++
  return { sub: `sub-${Date.now()}-${seq}`, email: `p${Date.now()}${seq}@providers.test`, email_verified: verified, name: `Person ${seq}` }
}

test('signInWithOAuth (PKCE): provider round trip, then exchangeCodeForSession', async () => {
  const sb = client('pkce')
  const who = person()
  await control('next', who)
  const { data, error } = await sb.auth.signInWithOAuth({
    provider: 'google',
    options: { redirectTo: `${site}/auth/callback`, skipBrowserRedirect: true, queryParams: { prompt: 'consent' } },
  })
  assert.equal(error, null)
  const landed = await browse(data.url)
  assert.equal(landed.origin + landed.pathname, `${site}/auth/callback`)
  const code = landed.searchParams.get('code')
  assert.ok(code)
  const { data: ex, error: exErr } = await sb.auth.exchangeCodeForSession(code)
  assert.equal(exErr, null)
  assert.equal(ex.user.email, who.email)
  assert.ok(ex.session.provider_token, 'provider token handed to the app')
  assert.equal(ex.user.app_metadata.provider, 'google')
  const { data: ids } = await sb.auth.getUserIdentities()
  assert.deepEqual(ids.identities.map((i) => [i.provider, i.id]), [['google', who.sub]])
  assert.equal(ids.identities[0].identity_data.full_name ?? ids.identities[0].identity_data.name, who.name)

  // The code is single use.
  const again = await fetch(`${apiURL}/auth/v1/token?grant_type=pkce`, {
    method: 'POST',
    headers: { apikey: process.env.SUPABASE_ANON_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ auth_code: code, code_verifier: 'x'.repeat(43) }),
  })
  assert.equal(again.status, 404)
})

test('signInWithOAuth (implicit): the session arrives in the URL fragment', async () => {
  const sb = client('implicit')
  const who = person()
  await control('next', who)
  const { data } = await sb.auth.signInWithOAuth({ provider: 'custom:corp', options: { redirectTo: `${site}/in`, skipBrowserRedirect: true } })
  const landed = await browse(data.url)
  const frag = new URLSearchParams(landed.hash.slice(1))
  assert.equal(frag.get('token_type'), 'bearer')
  assert.ok(frag.get('provider_token'))
  const { data: set, error } = await sb.auth.setSession({ access_token: frag.get('access_token'), refresh_token: frag.get('refresh_token') })
  assert.equal(error, null)
  assert.equal(set.user.email, who.email)
  assert.equal(set.user.identities[0].provider, 'custom:corp')
})

test('provider errors come back to the app as error parameters', async () => {
  const sb = client('pkce')
  await control('refuse')
  const { data } = await sb.auth.signInWithOAuth({ provider: 'google', options: { redirectTo: `${site}/in`, skipBrowserRedirect: true } })
  const landed = await browse(data.url)
  assert.equal(landed.searchParams.get('error'), 'access_denied')
  assert.equal(landed.searchParams.get('error_description'), 'The user denied the request')
  // An unknown or replayed state sends the browser to the site URL.
  const bad = await browse(`${apiURL}/auth/v1/callback?code=x&state=${crypto.randomUUID()}`)
  assert.equal(bad.origin, site)
  assert.equal(bad.searchParams.get('error_code'), 'bad_oauth_state')
  // A redirect_to outside the allow-list is not followed.
  await control('next', person())
  const { data: evil } = await sb.auth.signInWithOAuth({ provider: 'google', options: { redirectTo: 'https://evil.example/x', skipBrowserRedirect: true } })
  assert.equal((await browse(evil.url)).origin, site)
  // An unverified provider address never joins an existing account.
  const owner = client()
  const email = `owner${Date.now()}@providers.test`
  assert.equal((await owner.auth.signUp({ email, password: 'owner-pass-1' })).error, null)
  await control('next', { ...person(false), email })
  const { data: take } = await sb.auth.signInWithOAuth({ provider: 'google', options: { redirectTo: `${site}/in`, skipBrowserRedirect: true } })
  const refused = await browse(take.url)
  assert.equal(refused.searchParams.get('error_code'), 'provider_email_needs_verification')
  assert.equal((await owner.auth.getUserIdentities()).data.identities.length, 1)
})

test('signInWithIdToken checks the nonce and accepts a token once', async () => {
  const who = person()
  const nonce = randomBytes(16).toString('hex')
  const { id_token: token } = await control('id_token', { user: who, nonce: sha256(nonce) })
  const sb = client()
  const wrong = await sb.auth.signInWithIdToken({ provider: 'google', token, nonce: 'not-it' })
  assert.equal(wrong.error.message, 'Nonces mismatch')
  const { data, error } = await sb.auth.signInWithIdToken({ provider: 'google', token, nonce })
  assert.equal(error, null)
  assert.equal(data.user.email, who.email)
  assert.equal(data.user.identities[0].provider, 'google')
  const replay = await client().auth.signInWithIdToken({ provider: 'google', token, nonce })
  assert.equal(replay.error.message, 'ID token has already been used')
})

test('linkIdentity, getUserIdentities and unlinkIdentity', async () => {
  const sb = client('pkce')
  const email = `linker${Date.now()}@providers.test`
  assert.equal((await sb.auth.signUp({ email, password: 'linker-pass-1' })).error, null)
  const { data: before } = await sb.auth.getUserIdentities()
  assert.deepEqual(before.identities.map((i) => i.provider), ['email'])
  const { error: single } = await sb.auth.unlinkIdentity(before.identities[0])
  assert.equal(single.code, 'single_identity_not_deletable')

  // Through the provider (OAuth): back with a code for the same user.
  await control('next', person())
  const { data: link, error } = await sb.auth.linkIdentity({ provider: 'google', options: { redirectTo: `${site}/settings` } })
  assert.equal(error, null)
  const landed = await browse(link.url)
  const { data: ex, error: exErr } = await sb.auth.exchangeCodeForSession(landed.searchParams.get('code'))
  assert.equal(exErr, null)
  assert.equal(ex.user.email, email)

  // With an ID token.
  const { id_token: token } = await control('id_token', { user: person(), nonce: '' })
  const { error: tokErr } = await sb.auth.linkIdentity({ provider: 'custom:corp', token })
  assert.equal(tokErr, null)

  const { data: all } = await sb.auth.getUserIdentities()
  assert.deepEqual(all.identities.map((i) => i.provider).sort(), ['custom:corp', 'email', 'google'])
  const google = all.identities.find((i) => i.provider === 'google')
  assert.equal((await sb.auth.unlinkIdentity(google)).error, null)
  const { error: gone } = await sb.auth.unlinkIdentity(google)
  assert.equal(gone.code, 'identity_not_found')
  await sb.auth.refreshSession()
  const { data: after } = await sb.auth.getUser()
  assert.deepEqual(after.user.app_metadata.providers.sort(), ['custom:corp', 'email'])
})

test('signInWithSSO by domain and by provider id', async () => {
  const domain = `sso${Date.now()}.example`
  const idp = `https://idp.${domain}`
  const metadata =
    `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${idp}/metadata">` +
    '<IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">' +
    `<SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${idp}/sso"/>` +
    '</IDPSSODescriptor></EntityDescriptor>'
  const service = process.env.SUPABASE_SERVICE_ROLE_KEY
  const res = await fetch(`${apiURL}/auth/v1/admin/sso/providers`, {
    method: 'POST',
    headers: { apikey: service, authorization: `Bearer ${service}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'saml', metadata_xml: metadata, domains: [domain] }),
  })
  assert.equal(res.status, 201)
  const provider = await res.json()
  assert.deepEqual(provider.domains, [{ domain }])

  const sb = client('pkce')
  for (const params of [{ domain }, { providerId: provider.id }]) {
    const { data, error } = await sb.auth.signInWithSSO({ ...params, options: { redirectTo: `${site}/sso` } })
    assert.equal(error, null)
    const url = new URL(data.url)
    assert.equal(url.origin + url.pathname, `${idp}/sso`)
    assert.ok(url.searchParams.get('SAMLRequest'))
    assert.match(url.searchParams.get('RelayState'), /^[0-9a-f-]{36}$/)
  }
  const { error } = await sb.auth.signInWithSSO({ domain: 'nobody.example' })
  assert.equal(error.code, 'sso_provider_not_found')

  // The service provider metadata identity providers import, without a key.
  const md = await fetch(`${apiURL}/auth/v1/sso/saml/metadata`)
  assert.equal(md.status, 200)
  assert.match(await md.text(), new RegExp(`entityID="${apiURL}/auth/v1/sso/saml/metadata"`))
})
