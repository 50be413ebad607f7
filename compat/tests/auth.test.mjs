// Auth compat tests: @supabase/supabase-js drives /auth/v1 the way apps do.
// Environment (set by compat/run.mjs): SUPABASE_URL, SUPABASE_ANON_KEY,
// SUPABASE_SERVICE_ROLE_KEY. `basalt dev` runs with mailer autoconfirm on and
// the dev mailbox, which these tests read to get magic links and codes.
// Redirects go to a loopback address, which the allow-list always accepts.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import crypto from 'node:crypto'
import { createClient } from '@supabase/supabase-js'

const URL_ = process.env.SUPABASE_URL
const ANON = process.env.SUPABASE_ANON_KEY
const SERVICE = process.env.SUPABASE_SERVICE_ROLE_KEY

// A fresh client per call: its own in-memory storage, no timers.
function client(opts = {}) {
  const store = new Map()
  const storage = {
    getItem: (k) => (store.has(k) ? store.get(k) : null),
    setItem: (k, v) => void store.set(k, v),
    removeItem: (k) => void store.delete(k),
  }
  return createClient(URL_, ANON, {
    auth: { autoRefreshToken: false, persistSession: true, detectSessionInUrl: false, storage, ...opts },
  })
}

const admin = createClient(URL_, SERVICE, { auth: { autoRefreshToken: false, persistSession: false } })

const uniq = () => crypto.randomBytes(6).toString('hex')
const email = (tag) => `${tag}-${uniq()}@example.com`

// Messages the dev mailbox holds for addr, newest first.
async function mailbox(addr) {
  const res = await fetch(`${URL_}/auth/v1/admin/dev/mailbox?email=${encodeURIComponent(addr)}`, {
    headers: { apikey: SERVICE, Authorization: `Bearer ${SERVICE}` },
  })
  assert.equal(res.status, 200, 'dev mailbox')
  return (await res.json()).messages
}

async function latestMail(addr, type) {
  for (let i = 0; i < 20; i++) {
    const m = (await mailbox(addr)).find((x) => !type || x.type === type)
    if (m) return m
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`no ${type} mail for ${addr}`)
}

// RFC 6238 TOTP (SHA-1, 6 digits, 30 s), as an authenticator app computes it.
function totp(secret, now = Date.now()) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = ''
  for (const c of secret.replace(/=+$/, '')) bits += alphabet.indexOf(c).toString(2).padStart(5, '0')
  const key = Buffer.from(bits.match(/.{8}/g).map((b) => parseInt(b, 2)))
  const msg = Buffer.alloc(8)
  msg.writeBigUInt64BE(BigInt(Math.floor(now / 1000 / 30)))
  const h = crypto.createHmac('sha1', key).update(msg).digest()
  const off = h[h.length - 1] & 0xf
  return String((h.readUInt32BE(off) & 0x7fffffff) % 1000000).padStart(6, '0')
}

test('sign up, sign in, getUser, getClaims, refresh, update, sign out with event order', async () => {
  const sb = client()
  const events = []
  sb.auth.onAuthStateChange((event) => events.push(event))
  const addr = email('flow')
  const { data: up, error: upErr } = await sb.auth.signUp({ email: addr, password: 'secret-123', options: { data: { role: 'listener' } } })
  assert.equal(upErr, null)
  assert.ok(up.session, 'autoconfirm gives a session')
  assert.equal(up.user.email, addr)
  assert.equal(up.user.user_metadata.role, 'listener')
  assert.equal(typeof up.user.phone, 'string')

  const { error: bad } = await sb.auth.signInWithPassword({ email: addr, password: 'wrong-one' })
  assert.equal(bad.code, 'invalid_credentials')
  assert.equal(bad.status, 400)
  assert.equal(bad.message, 'Invalid login credentials')

  const { data: si, error: siErr } = await sb.auth.signInWithPassword({ email: addr, password: 'secret-123' })
  assert.equal(siErr, null)
  const { data: gu, error: guErr } = await sb.auth.getUser()
  assert.equal(guErr, null)
  assert.equal(gu.user.id, si.user.id)

  const { data: claims, error: clErr } = await sb.auth.getClaims()
  assert.equal(clErr, null)
  assert.equal(claims.claims.sub, si.user.id)
  assert.equal(claims.claims.role, 'authenticated')
  assert.equal(claims.header.alg, 'ES256')

  const { data: rs, error: rsErr } = await sb.auth.refreshSession()
  assert.equal(rsErr, null)
  assert.notEqual(rs.session.refresh_token, si.session.refresh_token)

  const { data: uu, error: uuErr } = await sb.auth.updateUser({ data: { role: null, name: 'Ann' } })
  assert.equal(uuErr, null)
  assert.equal(uu.user.user_metadata.name, 'Ann')
  assert.equal('role' in uu.user.user_metadata, false)

  const { error: soErr } = await sb.auth.signOut()
  assert.equal(soErr, null)
  const { data: after } = await sb.auth.getSession()
  assert.equal(after.session, null)
  assert.deepEqual(events, ['INITIAL_SESSION', 'SIGNED_IN', 'SIGNED_IN', 'TOKEN_REFRESHED', 'USER_UPDATED', 'SIGNED_OUT'])
})

test('sign-up of an existing user and weak passwords report reference errors', async () => {
  const addr = email('dup')
  const a = client()
  assert.equal((await a.auth.signUp({ email: addr, password: 'secret-123' })).error, null)
  const { error } = await client().auth.signUp({ email: addr, password: 'secret-123' })
  assert.equal(error.code, 'user_already_exists')
  assert.equal(error.status, 422)
  const { error: weak } = await client().auth.signUp({ email: email('weak'), password: '123' })
  assert.equal(weak.name, 'AuthWeakPasswordError')
  assert.deepEqual(weak.reasons, ['length'])
})

test('signOut scopes: others, local, global', async () => {
  const addr = email('scopes')
  await client().auth.signUp({ email: addr, password: 'secret-123' })
  const tabs = []
  for (let i = 0; i < 3; i++) {
    const c = client()
    assert.equal((await c.auth.signInWithPassword({ email: addr, password: 'secret-123' })).error, null)
    tabs.push(c)
  }
  assert.equal((await tabs[0].auth.signOut({ scope: 'others' })).error, null)
  assert.equal((await tabs[0].auth.getUser()).error, null)
  const gone = await tabs[1].auth.getUser()
  assert.equal(gone.error.name, 'AuthSessionMissingError')

  const d = client()
  await d.auth.signInWithPassword({ email: addr, password: 'secret-123' })
  assert.equal((await tabs[0].auth.signOut({ scope: 'local' })).error, null)
  assert.equal((await d.auth.getUser()).error, null, 'local sign-out keeps other sessions')

  const e2 = client()
  await e2.auth.signInWithPassword({ email: addr, password: 'secret-123' })
  assert.equal((await d.auth.signOut({ scope: 'global' })).error, null)
  assert.equal((await e2.auth.getUser()).error.name, 'AuthSessionMissingError')
})

test('magic link / email OTP read back from the dev mailbox', async () => {
  const addr = email('otp')
  const sb = client()
  const { error } = await sb.auth.signInWithOtp({ email: addr, options: { emailRedirectTo: 'http://127.0.0.1:3000/welcome' } })
  assert.equal(error, null)
  const m = await latestMail(addr)
  assert.match(m.confirmation_url, /\/auth\/v1\/verify\?token=.+&type=(magiclink|signup)&redirect_to=http%3A%2F%2F127.0.0.1%3A3000%2Fwelcome/)
  const { data, error: vErr } = await sb.auth.verifyOtp({ email: addr, token: m.token, type: 'email' })
  assert.equal(vErr, null)
  assert.equal(data.user.email, addr)
  assert.ok(data.session.access_token)
  const { error: again } = await client().auth.verifyOtp({ email: addr, token: m.token, type: 'email' })
  assert.equal(again.code, 'otp_expired')
  assert.equal(again.status, 403)
})

test('resetPasswordForEmail, verifyOtp recovery emits PASSWORD_RECOVERY, then updateUser', async () => {
  const addr = email('recover')
  await client().auth.signUp({ email: addr, password: 'secret-123' })
  const sb = client()
  const events = []
  sb.auth.onAuthStateChange((ev) => events.push(ev))
  assert.equal((await sb.auth.resetPasswordForEmail(addr)).error, null)
  const m = await latestMail(addr, 'recovery')
  const { error } = await sb.auth.verifyOtp({ email: addr, token: m.token, type: 'recovery' })
  assert.equal(error, null)
  assert.equal((await sb.auth.updateUser({ password: 'brand-new-1' })).error, null)
  assert.equal((await client().auth.signInWithPassword({ email: addr, password: 'brand-new-1' })).error, null)
  assert.deepEqual(events.slice(0, 3), ['INITIAL_SESSION', 'PASSWORD_RECOVERY', 'USER_UPDATED'])
})

test('PKCE: magic link redirect carries ?code= and exchangeCodeForSession signs in', async () => {
  const addr = email('pkce')
  await client().auth.signUp({ email: addr, password: 'secret-123' })
  const sb = client({ flowType: 'pkce' })
  assert.equal((await sb.auth.signInWithOtp({ email: addr, options: { emailRedirectTo: 'http://127.0.0.1:3000/cb' } })).error, null)
  const m = await latestMail(addr, 'magic_link')
  assert.match(m.token_hash, /^pkce_/)
  const res = await fetch(m.confirmation_url, { redirect: 'manual' })
  assert.equal(res.status, 303)
  const loc = new URL(res.headers.get('location'))
  assert.equal(loc.pathname, '/cb')
  const code = loc.searchParams.get('code')
  assert.ok(code)
  const { data, error } = await sb.auth.exchangeCodeForSession(code)
  assert.equal(error, null)
  assert.equal(data.user.email, addr)
  const { error: reuse } = await sb.auth.exchangeCodeForSession(code)
  assert.ok(reuse, 'a code is single use')
})

test('anonymous sign-in, then linking an email and a password', async () => {
  const sb = client()
  const { data, error } = await sb.auth.signInAnonymously({ options: { data: { theme: 'dark' } } })
  assert.equal(error, null)
  assert.equal(data.user.is_anonymous, true)
  assert.deepEqual(data.user.identities, [])
  const addr = email('anon')
  const { data: linked, error: lErr } = await sb.auth.updateUser({ email: addr })
  assert.equal(lErr, null)
  assert.equal(linked.user.email, addr)
  assert.equal(linked.user.is_anonymous, false)
  assert.equal((await sb.auth.updateUser({ password: 'linked-pass-1' })).error, null)
  const { data: again, error: sErr } = await client().auth.signInWithPassword({ email: addr, password: 'linked-pass-1' })
  assert.equal(sErr, null)
  assert.equal(again.user.id, data.user.id)
})

test('MFA TOTP: enroll, challenge, verify with a computed code, aal2, unenroll', async () => {
  const addr = email('mfa')
  const sb = client()
  await sb.auth.signUp({ email: addr, password: 'secret-123' })
  const events = []
  sb.auth.onAuthStateChange((ev) => events.push(ev))
  const { data: f, error } = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'app' })
  assert.equal(error, null)
  assert.match(f.totp.qr_code, /^data:image\/svg\+xml;utf-8,<svg/)
  assert.match(f.totp.uri, /^otpauth:\/\/totp\//)
  const { data: ch, error: chErr } = await sb.auth.mfa.challenge({ factorId: f.id })
  assert.equal(chErr, null)
  const { error: wrong } = await sb.auth.mfa.verify({ factorId: f.id, challengeId: ch.id, code: '000000' === totp(f.totp.secret) ? '111111' : '000000' })
  assert.equal(wrong.code, 'mfa_verification_failed')
  const { error: vErr } = await sb.auth.mfa.verify({ factorId: f.id, challengeId: ch.id, code: totp(f.totp.secret) })
  assert.equal(vErr, null)
  const { data: aal } = await sb.auth.mfa.getAuthenticatorAssuranceLevel()
  assert.equal(aal.currentLevel, 'aal2')
  assert.equal(aal.nextLevel, 'aal2')
  assert.ok(aal.currentAuthenticationMethods.some((m) => m.method === 'totp'))
  const { data: factors } = await sb.auth.mfa.listFactors()
  assert.equal(factors.totp.length, 1)
  assert.ok(events.includes('MFA_CHALLENGE_VERIFIED'))
  // A fresh password sign-in is aal1 with aal2 available.
  const other = client()
  await other.auth.signInWithPassword({ email: addr, password: 'secret-123' })
  const { data: aal1 } = await other.auth.mfa.getAuthenticatorAssuranceLevel()
  assert.deepEqual([aal1.currentLevel, aal1.nextLevel], ['aal1', 'aal2'])
  const { error: un } = await sb.auth.mfa.unenroll({ factorId: f.id })
  assert.equal(un, null)
})

test('auth.admin: create, list with pagination, get, update, generateLink, invite, delete', async () => {
  const addr = email('admin')
  const { data: c, error } = await admin.auth.admin.createUser({ email: addr, password: 'secret-123', email_confirm: true,
    user_metadata: { name: 'Ada' }, app_metadata: { plan: 'pro' } })
  assert.equal(error, null)
  assert.equal(c.user.app_metadata.plan, 'pro')
  const { error: dup } = await admin.auth.admin.createUser({ email: addr })
  assert.equal(dup.code, 'email_exists')
  const { data: list, error: lErr } = await admin.auth.admin.listUsers({ page: 1, perPage: 1 })
  assert.equal(lErr, null)
  assert.equal(list.users.length, 1)
  assert.ok(list.total >= 1)
  assert.equal(list.nextPage, 2)
  const { data: got } = await admin.auth.admin.getUserById(c.user.id)
  assert.equal(got.user.email, addr)
  const { data: upd } = await admin.auth.admin.updateUserById(c.user.id, { user_metadata: { name: null, x: 1 }, ban_duration: '1h' })
  assert.ok(upd.user.banned_until)
  const { error: banned } = await client().auth.signInWithPassword({ email: addr, password: 'secret-123' })
  assert.equal(banned.code, 'user_banned')
  const { data: link, error: glErr } = await admin.auth.admin.generateLink({ type: 'magiclink', email: addr })
  assert.equal(glErr, null)
  assert.equal(link.properties.verification_type, 'magiclink')
  assert.match(link.properties.action_link, /\/auth\/v1\/verify\?token=/)
  assert.equal(link.properties.email_otp.length, 6)
  const inv = email('invite')
  const { data: invited, error: iErr } = await admin.auth.admin.inviteUserByEmail(inv, { data: { team: 'a' } })
  assert.equal(iErr, null)
  assert.ok(invited.user.invited_at)
  assert.equal((await latestMail(inv, 'invite')).to, inv)
  const { data: mf } = await admin.auth.admin.mfa.listFactors({ userId: c.user.id })
  assert.deepEqual(mf.factors, [])
  assert.equal((await admin.auth.admin.deleteUser(c.user.id)).error, null)
  const { error: missing } = await admin.auth.admin.getUserById(c.user.id)
  assert.equal(missing.status, 404)
  const { error: notAdmin } = await client().auth.admin.listUsers()
  assert.equal(notAdmin.code, 'not_admin')
})

test('JWKS and settings', async () => {
  const jwks = await (await fetch(`${URL_}/auth/v1/.well-known/jwks.json`)).json()
  assert.ok(jwks.keys.length >= 1)
  assert.ok(jwks.keys.every((k) => k.kty !== 'oct'))
  const settings = await (await fetch(`${URL_}/auth/v1/settings`, { headers: { apikey: ANON } })).json()
  assert.equal(settings.external.email, true)
})

test('email change needs both addresses (secure change), links and codes from the mailbox', async () => {
  const oldAddr = email('old')
  const newAddr = email('new')
  const sb = client()
  await sb.auth.signUp({ email: oldAddr, password: 'secret-123' })
  const { data, error } = await sb.auth.updateUser({ email: newAddr })
  assert.equal(error, null)
  assert.equal(data.user.email, oldAddr)
  assert.equal(data.user.new_email, newAddr)
  const toOld = await latestMail(oldAddr, 'email_change')
  const toNew = await latestMail(newAddr, 'email_change')
  const first = await sb.auth.verifyOtp({ email: oldAddr, token: toOld.token, type: 'email_change' })
  assert.equal(first.error, null)
  assert.equal(first.data.session, null, 'the first half answers with a message only')
  const second = await sb.auth.verifyOtp({ token_hash: toNew.token_hash, type: 'email_change' })
  assert.equal(second.error, null)
  assert.equal(second.data.user.email, newAddr)
})

test('setSession, reauthenticate nonce, resend and admin.signOut', async () => {
  const addr = email('misc')
  const a = client()
  const { data: up } = await a.auth.signUp({ email: addr, password: 'secret-123' })
  const b = client()
  const { data: set, error: setErr } = await b.auth.setSession({ access_token: up.session.access_token, refresh_token: up.session.refresh_token })
  assert.equal(setErr, null)
  assert.equal(set.user.id, up.user.id)

  assert.equal((await b.auth.reauthenticate()).error, null)
  const nonce = await latestMail(addr, 'reauthentication')
  assert.equal((await b.auth.updateUser({ password: 'with-nonce-1', nonce: nonce.token })).error, null)

  const { error: resendErr } = await b.auth.resend({ type: 'signup', email: addr })
  assert.equal(resendErr, null, 'nothing pending: silent success')

  const { error: soErr } = await admin.auth.admin.signOut(set.session.access_token, 'global')
  assert.equal(soErr, null)
  assert.equal((await b.auth.getUser()).error.name, 'AuthSessionMissingError')
})

test('identity linking and OAuth providers are off, as in the reference default', async () => {
  const sb = client()
  await sb.auth.signUp({ email: email('link'), password: 'secret-123' })
  const { error } = await sb.auth.linkIdentity({ provider: 'github', options: { skipBrowserRedirect: true } })
  assert.equal(error.code, 'manual_linking_disabled')
  const { error: sso } = await sb.auth.signInWithSSO({ domain: 'example.com' })
  assert.equal(sso.code, 'saml_provider_disabled')
  assert.equal((await sb.auth.signInAnonymously()).error, null)
})
