// The OAuth 2.1 / OpenID Connect server through supabase-js: the admin
// registers a client with auth.admin.oauth, a third-party app (plain
// fetch, as any OAuth client) starts an authorization without a project
// key, the app's consent page answers it with auth.oauth.* as the signed-in
// user, the app exchanges the code with PKCE, and the user lists and
// revokes the grant. run.mjs turns the server on.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { createClient } from '@supabase/supabase-js'

const URL_ = process.env.SUPABASE_URL
const ANON = process.env.SUPABASE_ANON_KEY
const SERVICE = process.env.SUPABASE_SERVICE_ROLE_KEY
const issuer = `${URL_}/auth/v1`
const admin = createClient(URL_, SERVICE, { auth: { autoRefreshToken: false, persistSession: false } })
const redirect = 'http://127.0.0.1:9/cb'

function client() {
  const store = new Map()
  const storage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => void store.set(k, v), removeItem: (k) => void store.delete(k) }
  return createClient(URL_, ANON, { auth: { autoRefreshToken: false, persistSession: true, detectSessionInUrl: false, storage } })
}

const b64url = (b) => Buffer.from(b).toString('base64url')

/** authorize starts an authorization as a browser would (no apikey) and returns its id and PKCE verifier. */
async function authorize(clientId, scope, state) {
  const verifier = b64url(crypto.randomBytes(32))
  const q = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirect,
    response_type: 'code',
    scope,
    state,
    code_challenge: b64url(crypto.createHash('sha256').update(verifier).digest()),
    code_challenge_method: 'S256',
  })
  const res = await fetch(`${issuer}/oauth/authorize?${q}`, { redirect: 'manual' })
  assert.equal(res.status, 302)
  const to = new URL(res.headers.get('location'))
  assert.equal(to.pathname, '/oauth/consent', 'basalt dev sends the browser to the app\'s consent page')
  return { id: to.searchParams.get('authorization_id'), verifier }
}

test('a third-party app signs a user in through the OAuth server with supabase-js on the consent page', async () => {
  const meta = await fetch(`${URL_}/.well-known/oauth-authorization-server/auth/v1`)
  assert.equal(meta.status, 200, 'RFC 8414 metadata at the origin, without a key')
  const doc = await meta.json()
  assert.equal(doc.issuer, issuer)
  assert.equal(doc.registration_endpoint, `${issuer}/oauth/clients/register`)

  const { data: app, error } = await admin.auth.admin.oauth.createClient({ client_name: 'Compat App', redirect_uris: [redirect] })
  assert.equal(error, null)
  assert.ok(app.client_secret)
  const { data: listed } = await admin.auth.admin.oauth.listClients()
  assert.ok(listed.clients.some((c) => c.client_id === app.client_id))

  const user = client()
  const addr = `oauth-${crypto.randomBytes(6).toString('hex')}@example.com`
  assert.equal((await user.auth.signUp({ email: addr, password: 'secret-123' })).error, null)

  // Deny first: the app hears access_denied with its state.
  const denied = await authorize(app.client_id, 'openid email', 'deny-me')
  assert.equal((await user.auth.oauth.getAuthorizationDetails(denied.id)).error, null)
  const { data: no } = await user.auth.oauth.denyAuthorization(denied.id)
  const noURL = new URL(no.redirect_url)
  assert.equal(noURL.searchParams.get('error'), 'access_denied')
  assert.equal(noURL.searchParams.get('state'), 'deny-me')

  const { id, verifier } = await authorize(app.client_id, 'openid email', 'st-1')
  const { data: details, error: dErr } = await user.auth.oauth.getAuthorizationDetails(id)
  assert.equal(dErr, null)
  assert.equal(details.client.name, 'Compat App')
  assert.equal(details.scope, 'openid email')
  assert.equal(details.user.email, addr)
  const { data: yes, error: aErr } = await user.auth.oauth.approveAuthorization(id)
  assert.equal(aErr, null)
  const back = new URL(yes.redirect_url)
  assert.equal(back.origin + back.pathname, redirect)
  assert.equal(back.searchParams.get('state'), 'st-1')

  const tokenRes = await fetch(`${issuer}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code'), redirect_uri: redirect, code_verifier: verifier }),
  })
  const tokens = await tokenRes.json()
  assert.equal(tokenRes.status, 200, JSON.stringify(tokens))
  const idClaims = JSON.parse(Buffer.from(tokens.id_token.split('.')[1], 'base64url').toString())
  assert.equal(idClaims.email, addr)
  assert.deepEqual(idClaims.aud, [app.client_id])

  // The app's access token is a user token the project accepts.
  const { data: seen, error: gErr } = await admin.auth.getUser(tokens.access_token)
  assert.equal(gErr, null)
  assert.equal(seen.user.email, addr)

  const { data: grants } = await user.auth.oauth.listGrants()
  assert.deepEqual(grants.map((g) => [g.client.id, g.scopes]), [[app.client_id, ['openid', 'email']]])
  assert.equal((await user.auth.oauth.revokeGrant({ clientId: app.client_id })).error, null)
  assert.deepEqual((await user.auth.oauth.listGrants()).data, [])
  const { error: revoked } = await admin.auth.getUser(tokens.access_token)
  assert.ok(revoked, 'the revoked app is refused at once')
  const raw = await fetch(`${issuer}/user`, { headers: { apikey: ANON, authorization: `Bearer ${tokens.access_token}` } })
  assert.equal(raw.status, 403)
  assert.equal((await raw.json()).error_code, 'session_not_found')

  assert.equal((await admin.auth.admin.oauth.deleteClient(app.client_id)).error, null)
})

test('dynamic client registration (RFC 7591) needs no project key', async () => {
  const res = await fetch(`${issuer}/oauth/clients/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'MCP agent', redirect_uris: ['http://localhost:33418/callback'], token_endpoint_auth_method: 'none' }),
  })
  const body = await res.json()
  assert.equal(res.status, 201, JSON.stringify(body))
  assert.equal(body.client_type, 'public')
  assert.equal(body.registration_type, 'dynamic')
  assert.equal(body.client_secret, undefined)
})
