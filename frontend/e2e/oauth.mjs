// "Sign in with Backline", end to end in the browser: a third-party app (a
// tiny web app on loopback, written here as any OAuth client would be:
// authorization code with PKCE, a client secret, state and nonce) sends a
// signed-in fan to Backline; Basalt's OAuth server hands the fan to the
// consent page, which says which app asks and for what; the fan allows, the
// app exchanges its code and reads the fan's email from the ID token and
// userinfo. Then the fan revokes the app under Connected apps on the profile
// page, and the app's refresh token stops working. The journey needs the
// OAuth server on (with-basalt.mjs turns it on); against a Basalt without it
// the journey is left out.
import assert from 'node:assert/strict'
import { createHash, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'

const b64url = (b) => Buffer.from(b).toString('base64url')

/**
 * startClientApp runs the third-party app: GET /start begins an
 * authorization, GET /cb receives the code, exchanges it and shows who
 * signed in. It records what it got for the test to check.
 */
async function startClientApp(issuer) {
  const app = { tokens: null, claims: null, userinfo: null, error: null }
  let pending
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, app.origin)
    if (url.pathname === '/start') {
      const verifier = b64url(randomBytes(32))
      pending = { state: b64url(randomBytes(16)), nonce: b64url(randomBytes(16)), verifier }
      const q = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: `${app.origin}/cb`,
        response_type: 'code',
        scope: 'openid email profile',
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: b64url(createHash('sha256').update(verifier).digest()),
        code_challenge_method: 'S256',
      })
      res.writeHead(302, { location: `${issuer}/oauth/authorize?${q}` }).end()
      return
    }
    if (url.pathname === '/cb') {
      try {
        if (url.searchParams.get('state') !== pending?.state) throw new Error('state mismatch')
        if (url.searchParams.get('error')) throw new Error(url.searchParams.get('error'))
        const tok = await fetch(`${issuer}/oauth/token`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
          },
          body: new URLSearchParams({ grant_type: 'authorization_code', code: url.searchParams.get('code'), redirect_uri: `${app.origin}/cb`, code_verifier: pending.verifier }),
        })
        app.tokens = await tok.json()
        if (!tok.ok) throw new Error(`token: ${tok.status} ${JSON.stringify(app.tokens)}`)
        app.claims = JSON.parse(Buffer.from(app.tokens.id_token.split('.')[1], 'base64url').toString())
        if (app.claims.nonce !== pending.nonce) throw new Error('nonce mismatch')
        const info = await fetch(`${issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${app.tokens.access_token}` } })
        app.userinfo = await info.json()
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><h1>Gig Finder</h1><p id="who">Signed in as ${app.userinfo.email}</p>`)
      } catch (e) {
        app.error = String(e)
        res.writeHead(400, { 'content-type': 'text/html' }).end(`<!doctype html><p id="who">Sign-in failed: ${app.error}</p>`)
      }
      return
    }
    res.writeHead(404).end()
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  app.origin = `http://127.0.0.1:${server.address().port}`
  app.close = () => new Promise((r) => server.close(r))
  return app
}

/** register adds the journey to the suite; h carries run.mjs's helpers. */
export function register(test, h) {
  const { app, api, newPage, adminCreateUser, signIn, shots, serviceKey } = h
  const issuer = `${api}/auth/v1`
  const name = 'a third-party app signs a fan in with Backline through the consent page; the fan revokes it under Connected apps'
  test(name, async () => {
    const meta = await fetch(`${api}/.well-known/oauth-authorization-server/auth/v1`)
    if (meta.status === 404) {
      console.log(`    (skipped: the OAuth server is off on this Basalt; run through e2e:basalt)`)
      return
    }
    assert.equal((await meta.json()).issuer, issuer, 'the metadata names the issuer the app is given')
    const client = await startClientApp(issuer)
    try {
      const res = await fetch(`${api}/auth/v1/admin/oauth/clients`, {
        method: 'POST',
        headers: { apikey: serviceKey, authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Gig Finder', client_uri: 'https://gigs.example', redirect_uris: [`${client.origin}/cb`] }),
      })
      const registered = await res.json()
      assert.equal(res.status, 201, JSON.stringify(registered))
      client.clientId = registered.client_id
      client.clientSecret = registered.client_secret

      const stamp = Date.now()
      const email = `oauthfan${stamp}@e2e.backline.test`
      await adminCreateUser({ email, password: 'fan-password-123', role: 'fan', username: `oauthfan${stamp}` })
      // The consent page on a small phone.
      const { context, page } = await newPage({ width: 360, height: 740 })
      await signIn(page, email, 'fan-password-123')

      await page.goto(`${client.origin}/start`)
      await page.waitForURL(/\/oauth\/consent\?authorization_id=/, { timeout: 15000 })
      await page.getByRole('heading', { name: 'Gig Finder wants to use your Backline account' }).waitFor({ timeout: 15000 })
      const scopes = await page.getByTestId('oauth-scopes').locator('li').allInnerTexts()
      assert.deepEqual(scopes, ['Confirm who you are on Backline', 'See your email address', 'See your name and profile picture'])
      await page.getByText(`Signed in as ${email}`).waitFor()
      await page.getByText(new URL(client.origin).host).waitFor()
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      assert.equal(overflow, 0, 'the consent page fits a 360 px screen')
      await page.screenshot({ path: `${shots}/oauth-consent-360.png`, fullPage: true })

      await page.getByRole('button', { name: 'Allow' }).click()
      await page.waitForURL(new RegExp(`^${client.origin}/cb\\?`), { timeout: 15000 })
      await page.getByText(`Signed in as ${email}`).waitFor()
      assert.equal(client.error, null)
      assert.equal(client.claims.email, email)
      assert.equal(client.claims.aud[0] ?? client.claims.aud, client.clientId)
      assert.equal(client.userinfo.email, email)

      await page.goto(`${app}/profile`)
      const card = page.getByTestId('connected-apps')
      const row = card.getByTestId('connected-app').filter({ hasText: 'Gig Finder' })
      await row.waitFor({ timeout: 15000 })
      await row.getByText('See your email address', { exact: false }).waitFor()
      const profileOverflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      assert.equal(profileOverflow, 0, 'the profile page with Connected apps fits a 360 px screen')
      await page.screenshot({ path: `${shots}/oauth-connected-apps-360.png`, fullPage: true })
      await row.getByRole('button', { name: 'Revoke' }).click()
      await card.getByText('No apps are connected to your account.').waitFor({ timeout: 15000 })

      // The app's tokens died with the grant.
      const refresh = await fetch(`${issuer}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: client.tokens.refresh_token }),
      })
      assert.equal(refresh.status, 400, 'the revoked app cannot refresh')
      assert.equal((await refresh.json()).error_code, 'refresh_token_not_found')
      const info = await fetch(`${issuer}/oauth/userinfo`, { headers: { authorization: `Bearer ${client.tokens.access_token}` } })
      assert.equal(info.status, 403, 'the revoked app is refused at once')
      await context.close()
    } finally {
      await client.close()
    }
  })
}
