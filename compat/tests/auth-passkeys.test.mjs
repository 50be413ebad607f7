// Passkeys and WebAuthn MFA through supabase-js in headless Chromium, with
// Chromium's virtual authenticator (DevTools protocol WebAuthn domain)
// standing in for a security key: registerPasskey, passkey.list/update,
// signInWithPasskey, mfa.webauthn.register and mfa.webauthn.authenticate,
// all from a page on the origin run.mjs configured as the relying party's.
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

const compatDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const origin = process.env.COMPAT_WEBAUTHN_ORIGIN
let server, browser, page, cdp, authenticatorId

// The page loads supabase-js's browser bundle and creates a client with
// the passkey API switched on.
const html = `<!doctype html><meta charset="utf-8"><script src="/supabase.js"></script>
<script>
window.sb = supabase.createClient(${JSON.stringify(process.env.SUPABASE_URL)}, ${JSON.stringify(process.env.SUPABASE_ANON_KEY)},
  { auth: { experimental: { passkey: true }, autoRefreshToken: false } })
</script>`

function serve() {
  const bundle = path.join(compatDir, 'node_modules', '@supabase', 'supabase-js', 'dist', 'umd', 'supabase.js')
  server = http.createServer((req, res) => {
    if (req.url === '/supabase.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' })
      fs.createReadStream(bundle).pipe(res)
      return
    }
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end(html)
  })
  // Every local address: Chromium may resolve localhost to ::1 or 127.0.0.1.
  return new Promise((resolve) => server.listen(Number(new URL(origin).port), resolve))
}

// run evaluates fn(arg) in the page and returns its (serializable) result.
const run = (fn, arg) => page.evaluate(fn, arg)

// credentials lists what the virtual authenticator holds.
async function credentials() {
  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId })
  return credentials
}

let skip = false
before(async () => {
  if (!fs.existsSync(chromiumPath)) {
    assert.ok(!process.env.CI, 'Chromium is installed in CI')
    skip = true
    return
  }
  assert.ok(origin, 'COMPAT_WEBAUTHN_ORIGIN is set by run.mjs')
  await serve()
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu'] })
  page = await browser.newPage()
  cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable')
  ;({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      // A roaming key: auth-js asks for a cross-platform authenticator for MFA.
      transport: 'usb',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  }))
  await page.goto(origin)
  await page.waitForFunction(() => window.sb !== undefined)
})

after(async () => {
  await browser?.close()
  server?.close()
})

test('registerPasskey, list, rename, then signInWithPasskey', async (t) => {
  if (skip) return t.skip('no Chromium')
  const email = `passkey-${Date.now()}@example.com`
  const signedUp = await run(async (email) => {
    const { data, error } = await window.sb.auth.signUp({ email, password: 'secret-123' })
    return { id: data.user?.id, error: error?.message ?? null, session: !!data.session }
  }, email)
  assert.deepEqual({ error: signedUp.error, session: signedUp.session }, { error: null, session: true })

  const registered = await run(async () => {
    const { data, error } = await window.sb.auth.registerPasskey()
    return { data, error: error?.message ?? null }
  })
  assert.equal(registered.error, null)
  assert.equal(registered.data.friendly_name, 'Passkey')
  const held = await credentials()
  assert.equal(held.length, 1)
  assert.equal(held[0].isResidentCredential, true)
  assert.equal(held[0].rpId, 'localhost')

  const renamed = await run(async (id) => {
    const upd = await window.sb.auth.passkey.update({ passkeyId: id, friendlyName: 'virtual key' })
    const list = await window.sb.auth.passkey.list()
    return { error: upd.error?.message ?? list.error?.message ?? null, list: list.data }
  }, registered.data.id)
  assert.equal(renamed.error, null)
  assert.deepEqual(renamed.list.map((p) => [p.id, p.friendly_name]), [[registered.data.id, 'virtual key']])

  // A fresh sign-in: the authenticator picks the account (discoverable).
  const signedIn = await run(async () => {
    await window.sb.auth.signOut()
    const { data, error } = await window.sb.auth.signInWithPasskey()
    const { data: user } = await window.sb.auth.getUser()
    const { data: aal } = await window.sb.auth.mfa.getAuthenticatorAssuranceLevel()
    return { error: error?.message ?? null, user: data?.user?.id, current: user.user?.id, aal }
  })
  assert.equal(signedIn.error, null)
  assert.equal(signedIn.user, signedUp.id)
  assert.equal(signedIn.current, signedUp.id)
  assert.equal(signedIn.aal.currentLevel, 'aal1')
  assert.deepEqual(signedIn.aal.currentAuthenticationMethods.map((m) => m.method), ['passkey'])
})

test('mfa.webauthn.register, then authenticate raises the session to aal2', async (t) => {
  if (skip) return t.skip('no Chromium')
  const email = `webauthn-mfa-${Date.now()}@example.com`
  const r = await run(async (email) => {
    const sb = window.sb.auth
    await sb.signOut()
    const up = await sb.signUp({ email, password: 'secret-123' })
    if (up.error) return { step: 'signUp', error: up.error.message }
    const reg = await sb.mfa.webauthn.register({ friendlyName: 'virtual key' })
    if (reg.error) return { step: 'register', error: reg.error.message }
    const factors = await sb.mfa.listFactors()
    const afterRegister = await sb.mfa.getAuthenticatorAssuranceLevel()
    // A new password session is aal1 until the key answers a challenge.
    await sb.signOut()
    const inn = await sb.signInWithPassword({ email, password: 'secret-123' })
    if (inn.error) return { step: 'signIn', error: inn.error.message }
    const before = await sb.mfa.getAuthenticatorAssuranceLevel()
    const factorId = factors.data.webauthn[0].id
    const auth = await sb.mfa.webauthn.authenticate({ factorId })
    if (auth.error) return { step: 'authenticate', error: auth.error.message }
    const afterAuth = await sb.mfa.getAuthenticatorAssuranceLevel()
    return {
      error: null,
      webauthn: factors.data.webauthn.map((f) => [f.friendly_name, f.status]),
      afterRegister: afterRegister.data.currentLevel,
      before: [before.data.currentLevel, before.data.nextLevel],
      afterAuth: [afterAuth.data.currentLevel, afterAuth.data.currentAuthenticationMethods.map((m) => m.method)],
    }
  }, email)
  assert.equal(r.error, null, `${r.step}: ${r.error}`)
  assert.deepEqual(r.webauthn, [['virtual key', 'verified']])
  assert.equal(r.afterRegister, 'aal2')
  assert.deepEqual(r.before, ['aal1', 'aal2'])
  assert.deepEqual(r.afterAuth, ['aal2', ['mfa/webauthn', 'password']])
  // The MFA key is a second credential on the authenticator.
  assert.equal((await credentials()).length, 2)
})
