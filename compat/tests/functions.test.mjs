// Edge functions through supabase-js `functions.invoke`: the /functions/v1
// wire contract (verify_jwt, CORS, error classes, unknown functions) and
// Backline's functions end to end — a wallet top-up through the local
// payment sandbox, a real sponsored stream paid by transfer-payment, and a
// fan who calls transfer-payment by hand and gains nothing.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { createClient, FunctionsHttpError } from '@supabase/supabase-js'

const url = process.env.SUPABASE_URL
const anonKey = process.env.SUPABASE_ANON_KEY

const client = () => createClient(url, anonKey, { auth: { persistSession: false, autoRefreshToken: false } })

// signUp creates a user with a role in the sign-up metadata and returns a
// signed-in client plus the user id.
async function signUp(role) {
  const sb = client()
  const n = randomUUID().slice(0, 8)
  const { data, error } = await sb.auth.signUp({
    email: `fn-${role}-${n}@example.com`,
    password: 'correct-horse-battery',
    options: { data: { role, display_name: `${role} ${n}`, username: `fn${role}${n}` } },
  })
  assert.equal(error, null, `sign up ${role}: ${error?.message}`)
  if (!data.session) {
    const r = await sb.auth.signInWithPassword({ email: `fn-${role}-${n}@example.com`, password: 'correct-horse-battery' })
    assert.equal(r.error, null, `sign in ${role}: ${r.error?.message}`)
  }
  return { sb, id: data.user.id }
}

async function balance(sb, id) {
  const { data, error } = await sb.from('wallets').select('balance').eq('user_id', id).single()
  assert.equal(error, null, error?.message)
  return Number(data.balance)
}

// topUp pays a wallet top-up through the sandbox checkout, the way a
// browser does: open the hosted page, press Pay, come back, verify.
async function topUp(user, amount) {
  const { data: co, error } = await user.sb.functions.invoke('create-payment', {
    body: { provider: 'paystack', purpose: 'topup', amount },
  })
  assert.equal(error, null, error?.message)
  assert.equal(co.success, true, JSON.stringify(co))
  assert.deepEqual([co.amount, co.vat, co.fee, co.total], [amount, Math.round(amount * 0.075), 1000, amount + Math.round(amount * 0.075) + 1000])
  const page = await fetch(co.checkout_url)
  assert.equal(page.status, 200)
  assert.match(await page.text(), /Pay NGN/)
  const paid = await fetch(co.checkout_url, { method: 'POST', body: new URLSearchParams({ action: 'pay' }), redirect: 'manual' })
  assert.equal(paid.status, 303)
  const back = new URL(paid.headers.get('location'))
  assert.equal(back.searchParams.get('reference'), co.tx_ref)
  assert.equal(back.searchParams.get('trxref'), co.tx_ref)
  const { data: v, error: vErr } = await user.sb.functions.invoke('paystack-verify', {
    body: { reference: back.searchParams.get('reference'), userId: user.id, verification: false },
  })
  assert.equal(vErr, null, vErr?.message)
  assert.equal(v.status, true, JSON.stringify(v))
  return co
}

test('a preflight to a function is answered with the CORS headers', async () => {
  const res = await fetch(`${url}/functions/v1/transfer-payment`, {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://app.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'apikey,authorization,content-type,x-client-info',
    },
  })
  // Answered at the gateway, as Kong's cors plugin answers: 200, no body.
  assert.equal(res.status, 200)
  assert.equal(await res.text(), '')
  assert.equal(res.headers.get('access-control-allow-origin'), '*')
  const allowed = res.headers.get('access-control-allow-headers').toLowerCase()
  for (const h of ['authorization', 'apikey', 'content-type', 'x-client-info']) assert.ok(allowed.includes(h), h)
  assert.match(res.headers.get('access-control-allow-methods'), /POST/)
})

test('an unknown function is a FunctionsHttpError with 404 Function not found', async () => {
  const { data, error } = await client().functions.invoke('no-such-function', { body: { a: 1 } })
  assert.equal(data, null)
  assert.ok(error instanceof FunctionsHttpError, error?.name)
  assert.equal(error.context.status, 404)
  assert.equal(await error.context.text(), 'Function not found')
})

test('verify_jwt refuses a token that is not the project\'s, with CORS on the 401', async () => {
  const { data, error } = await client().functions.invoke('client-ip', { headers: { Authorization: 'Bearer not-a-jwt' } })
  assert.equal(data, null)
  assert.ok(error instanceof FunctionsHttpError, error?.name)
  assert.equal(error.context.status, 401)
  assert.deepEqual(await error.context.json(), { code: 401, message: 'Invalid JWT' })
  const res = await fetch(`${url}/functions/v1/client-ip`, {
    method: 'POST',
    headers: { Origin: 'https://app.example', apikey: anonKey, Authorization: 'Bearer not-a-jwt' },
  })
  assert.equal(res.status, 401)
  assert.equal(res.headers.get('access-control-allow-origin'), '*')
  assert.equal(res.headers.get('x-relay-error'), null)
})

test('client-ip answers the caller\'s address with the anon key', async () => {
  const { data, error } = await client().functions.invoke('client-ip')
  assert.equal(error, null, error?.message)
  assert.match(data.ip, /^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/)
})

test('transfer-payment needs a signed-in user', async () => {
  const { data, error } = await client().functions.invoke('transfer-payment', {
    body: { artist_id: randomUUID(), sponsor_id: randomUUID(), reference: `stream-${Date.now()}`, amount: 50 },
  })
  assert.equal(data, null)
  assert.equal(error.context.status, 401)
  assert.deepEqual(await error.context.json(), { success: false, error: 'Authentication required' })
})

test('a sponsor tops up through the sandbox checkout; a replayed return credits nothing more', async () => {
  const sponsor = await signUp('sponsor')
  const co = await topUp(sponsor, 5000)
  assert.equal(await balance(sponsor.sb, sponsor.id), 5000)
  const { data } = await sponsor.sb.functions.invoke('paystack-verify', { body: { reference: co.tx_ref, userId: sponsor.id, verification: false } })
  assert.equal(data.status, true)
  assert.equal(data.data.already_processed, true)
  assert.equal(await balance(sponsor.sb, sponsor.id), 5000)
})

test('a return verified from another account is a session mismatch and credits no one', async () => {
  const payer = await signUp('sponsor')
  const other = await signUp('fan')
  const { data: co } = await payer.sb.functions.invoke('create-payment', { body: { provider: 'flutterwave', purpose: 'topup', amount: 1000 } })
  const paid = await fetch(co.checkout_url, { method: 'POST', body: new URLSearchParams({ action: 'pay' }), redirect: 'manual' })
  const back = new URL(paid.headers.get('location'))
  assert.equal(back.searchParams.get('status'), 'successful')
  assert.equal(back.searchParams.get('tx_ref'), co.tx_ref)
  assert.ok(back.searchParams.get('transaction_id'))
  const { data, error } = await other.sb.functions.invoke('flutterwave-verify', {
    body: { action: 'verify', tx_ref: co.tx_ref, userId: other.id, verification: false },
  })
  assert.equal(error, null)
  assert.equal(data.success, false)
  assert.equal(data.data.session_mismatch, true)
  assert.equal(await balance(other.sb, other.id), 0)
})

// A sponsorship with money behind it: the artist's track, the sponsor's
// accepted invite, a funded sponsor wallet.
async function sponsorship() {
  const artist = await signUp('artist')
  const sponsor = await signUp('sponsor')
  const { data: track, error: tErr } = await artist.sb.from('tracks')
    .insert({ title: 'Compat anthem', artist_id: artist.id, duration: 180 }).select('id').single()
  assert.equal(tErr, null, tErr?.message)
  const { data: inv, error: iErr } = await sponsor.sb.from('sponsor_artist_invites')
    .insert({ artist_id: artist.id, sponsor_id: sponsor.id, track_id: track.id, pitch: 'Let us work together' })
    .select('id').single()
  assert.equal(iErr, null, iErr?.message)
  const { error: aErr } = await artist.sb.rpc('respond_to_invite', { p_invite_id: inv.id, p_accept: true })
  assert.equal(aErr, null, aErr?.message)
  await topUp(sponsor, 1000)
  return { artist, sponsor, track: track.id }
}

test('a fan who calls transfer-payment by hand without a real stream gains nothing', async () => {
  const { artist, sponsor } = await sponsorship()
  const fan = await signUp('fan')
  for (const amount of [50, 5000]) {
    const { data, error } = await fan.sb.functions.invoke('transfer-payment', {
      body: { artist_id: artist.id, sponsor_id: sponsor.id, reference: `stream-${randomUUID()}`, amount },
    })
    assert.equal(error, null, 'business refusals are 200 so the app can read them')
    assert.equal(data.success, false)
    assert.equal(data.transaction, null)
    assert.ok(data.error, 'a reason is given')
  }
  // Naming themselves as the artist does not help either.
  const { data: self } = await fan.sb.functions.invoke('transfer-payment', {
    body: { artist_id: fan.id, sponsor_id: sponsor.id, reference: `stream-${randomUUID()}`, amount: 50 },
  })
  assert.equal(self.success, false)
  assert.equal(await balance(artist.sb, artist.id), 0)
  assert.equal(await balance(sponsor.sb, sponsor.id), 1000)
  assert.equal(await balance(fan.sb, fan.id), 0)
})

test('a fan who really listens 30 s pays the artist once per stream', { timeout: 90_000 }, async () => {
  const { artist, sponsor, track } = await sponsorship()
  const fan = await signUp('fan')
  const { error: pErr } = await fan.sb.rpc('start_play', { p_track_id: track })
  assert.equal(pErr, null, pErr?.message)
  await new Promise((resolve) => setTimeout(resolve, 31_000))
  const { error: sErr } = await fan.sb.from('streams').insert({ track_id: track, user_id: fan.id, duration: 31 })
  assert.equal(sErr, null, sErr?.message)
  const reference = `stream-${Date.now()}-${randomUUID().slice(0, 8)}`
  const body = { artist_id: artist.id, sponsor_id: sponsor.id, reference, amount: 50 }
  const { data, error } = await fan.sb.functions.invoke('transfer-payment', { body })
  assert.equal(error, null, error?.message)
  // The balances are the artist's and the sponsor's own, not the fan's to read.
  assert.deepEqual(data, { success: true, error: null, transaction: { amount: 50, artist_balance: null, sponsor_balance: null } })
  const again = await fan.sb.functions.invoke('transfer-payment', { body })
  assert.deepEqual(again.data, data, 'the same reference returns the first result')
  const other = await fan.sb.functions.invoke('transfer-payment', { body: { ...body, reference: `${reference}-2` } })
  assert.equal(other.data.success, false, 'one stream is paid once')
  assert.equal(await balance(artist.sb, artist.id), 50)
  assert.equal(await balance(sponsor.sb, sponsor.id), 950)
})

test('a fan who calls the increment RPCs or updates counters by hand cannot inflate them', async () => {
  const { artist, track } = await sponsorship()
  const fan = await signUp('fan')
  const counters = async () => {
    const { data: t, error: tErr } = await fan.sb.from('tracks').select('streams').eq('id', track).single()
    assert.equal(tErr, null, tErr?.message)
    const { data: a, error: aErr } = await fan.sb.from('artist_profiles').select('stream_count').eq('id', artist.id).single()
    assert.equal(aErr, null, aErr?.message)
    return [Number(t.streams), Number(a.stream_count)]
  }
  assert.deepEqual(await counters(), [0, 0])
  for (let i = 0; i < 5; i++) {
    const r1 = await fan.sb.rpc('increment_track_streams', { p_track_id: track })
    assert.equal(r1.error, null, r1.error?.message)
    const r2 = await fan.sb.rpc('increment_artist_streams', { p_artist_id: artist.id })
    assert.equal(r2.error, null, r2.error?.message)
  }
  // The spec's fallback direct updates change nothing either: RLS lets a fan
  // update neither another user's track nor an artist profile.
  await fan.sb.from('tracks').update({ streams: 1000 }).eq('id', track)
  await fan.sb.from('artist_profiles').update({ stream_count: 1000 }).eq('id', artist.id)
  assert.deepEqual(await counters(), [0, 0], 'counters follow valid streams only')
})
