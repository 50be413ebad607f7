// End-to-end tests of the Backline app in headless Chromium (Debian's
// chromium driven by playwright-core). Full mode needs a running Basalt with
// the Backline backend and seed; smoke mode (E2E_SMOKE=1, or no
// BASALT_APP_URL) serves dist/ itself and runs the tests that need no backend.
//
//   BASALT_APP_URL=http://localhost:3000 BASALT_API_URL=http://localhost:54321 \
//   BASALT_ANON_KEY=... BASALT_SERVICE_ROLE_KEY=... npm run e2e
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import zlib from 'node:zlib'
import { chromium } from 'playwright-core'
import { serveDist } from './serve.mjs'
import { register as registerDashboards } from './dashboards.mjs'
import { registerAdminTests } from './admin/admin-tests.mjs'
import { register as registerProviders } from './providers.mjs'
import { register as registerLayout } from './layout.mjs'
import { register as registerOAuth } from './oauth.mjs'
import { register as registerUpload } from './upload.mjs'
import { register as registerListening } from './listening.mjs'
import { register as registerListeners } from './listeners.mjs'

const here = new URL('.', import.meta.url).pathname
const shots = `${here}screenshots`
mkdirSync(shots, { recursive: true })

const smoke = process.env.E2E_SMOKE === '1' || !process.env.BASALT_APP_URL
const api = process.env.BASALT_API_URL ?? 'http://127.0.0.1:9'
const anonKey = process.env.BASALT_ANON_KEY ?? 'smoke-anon-key'
const serviceKey = process.env.BASALT_SERVICE_ROLE_KEY
let app = process.env.BASALT_APP_URL
let closeServer = async () => {}
if (smoke) {
  const s = await serveDist(new URL('../dist/', import.meta.url).pathname, { supabaseUrl: api, supabaseAnonKey: anonKey })
  app = s.origin
  closeServer = s.close
} else if (!serviceKey || !process.env.DATABASE_URL) {
  console.error('BASALT_SERVICE_ROLE_KEY and DATABASE_URL are required in full mode')
  process.exit(2)
}

// The server treats a user agent naming a headless browser as automation
// (spec section 5), so the tests present Chromium's ordinary desktop agent.
const userAgent = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36'
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  ignoreDefaultArgs: ['--enable-automation'],
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--autoplay-policy=no-user-gesture-required',
    '--disable-blink-features=AutomationControlled',
  ],
})

const desktop = { width: 1440, height: 900 }
// Pages of the running test, screenshotted when it fails.
const openPages = new Set()
const mobile = { width: 390, height: 844 }
const newPage = async (viewport = desktop, opts = {}) => {
  const context = await browser.newContext({ viewport, userAgent, ...opts })
  // Skip the cookie dialog except where a test wants it.
  if (!opts.keepCookieDialog) await context.addCookies([]).then(() => context.addInitScript(() => localStorage.setItem('cookie-consent', 'declined')))
  const page = await context.newPage()
  page.on('pageerror', (e) => console.log(`    page error: ${e.message}`))
  if (process.env.E2E_DEBUG) {
    page.on('console', (m) => ['warning', 'error'].includes(m.type()) && !m.text().startsWith('Failed to load resource') && console.log(`    console ${m.type()}: ${m.text()}`))
    page.on('response', async (r) => r.status() >= 400 && console.log(`    http ${r.status()} ${r.request().method()} ${r.url().slice(0, 120)} ${(await r.text().catch(() => '')).slice(0, 200)}`))
  }
  openPages.add(page)
  return { context, page }
}

// ---------------------------------------------------------------------------
// Backend helpers (service role), full mode only.
const rest = async (path, { method = 'GET', body, prefer } = {}) => {
  const res = await fetch(`${api}/rest/v1/${path}`, {
    method,
    headers: {
      apikey: serviceKey,
      authorization: `Bearer ${serviceKey}`,
      'content-type': 'application/json',
      ...(prefer ? { prefer } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : null
}
const adminCreateUser = async ({ email, password, role, username }) => {
  const res = await fetch(`${api}/auth/v1/admin/users`, {
    method: 'POST',
    headers: { apikey: serviceKey, authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password, email_confirm: true, user_metadata: { role, display_name: username, username } }),
  })
  const j = await res.json()
  if (!res.ok) throw new Error(`create user: ${res.status} ${JSON.stringify(j)}`)
  return j.id ?? j.user?.id
}
const confirmUser = async (id) => {
  const res = await fetch(`${api}/auth/v1/admin/users/${id}`, {
    method: 'PUT',
    headers: { apikey: serviceKey, authorization: `Bearer ${serviceKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email_confirm: true }),
  })
  if (!res.ok) throw new Error(`confirm user: ${res.status} ${await res.text()}`)
}
const balance = async (userId) => Number((await rest(`wallets?user_id=eq.${userId}&select=balance`))[0]?.balance)
const setComingSoon = (on) => psql(`UPDATE public.app_settings SET value = '${on}' WHERE key = 'coming_soon_enabled'`)

/** psql runs one statement on the dev database (fixtures only: funding a wallet, settings). */
const psql = (sql) => execFileSync('psql', [process.env.DATABASE_URL, '-v', 'ON_ERROR_STOP=1', '-tAc', sql], { encoding: 'utf8' }).trim()

/** toneWav builds a quiet 440 Hz mono WAV of the given length, so the test owns its audio. */
function toneWav(seconds) {
  const rate = 8000
  const n = rate * seconds
  const b = Buffer.alloc(44 + n)
  b.write('RIFF', 0)
  b.writeUInt32LE(36 + n, 4)
  b.write('WAVEfmt ', 8)
  b.writeUInt32LE(16, 16)
  b.writeUInt16LE(1, 20) // PCM
  b.writeUInt16LE(1, 22) // mono
  b.writeUInt32LE(rate, 24)
  b.writeUInt32LE(rate, 28)
  b.writeUInt16LE(1, 32)
  b.writeUInt16LE(8, 34)
  b.write('data', 36)
  b.writeUInt32LE(n, 40)
  for (let i = 0; i < n; i++) b[44 + i] = 128 + Math.round(20 * Math.sin((2 * Math.PI * 440 * i) / rate))
  return b
}

const audioPaths = new Map()
/**
 * ensureAudio uploads the test tone once per artist and file into the artist's
 * folder of the tracks bucket (private: the app plays it through signed URLs)
 * and returns the storage path a track row keeps.
 */
async function ensureAudio(artistId, file = 'tone-60s.wav') {
  const name = `${artistId}/${file}`
  if (audioPaths.has(name)) return audioPaths.get(name)
  const h = { apikey: serviceKey, authorization: `Bearer ${serviceKey}` }
  const up = await fetch(`${api}/storage/v1/object/tracks/${name}`, {
    method: 'POST',
    headers: { ...h, 'content-type': 'audio/wav', 'x-upsert': 'true' },
    body: toneWav(60),
  })
  if (!up.ok) throw new Error(`upload audio: ${up.status} ${await up.text()}`)
  audioPaths.set(name, `/storage/v1/object/public/tracks/${name}`)
  return audioPaths.get(name)
}

/** newTrack inserts a fresh track (so per-IP duplicate limits from earlier runs cannot interfere). */
async function newTrack({ artistId, sponsorId = null, label = '', audio }) {
  const title = `E2E ${label || (sponsorId ? 'Sponsored' : 'Track')} ${Date.now()}`
  const [t] = await rest('tracks', {
    method: 'POST',
    prefer: 'return=representation',
    body: { title, artist_id: artistId, sponsor_id: sponsorId, is_sponsored: !!sponsorId, audio_url: await ensureAudio(artistId, audio), duration: 60, genre: 'Afrobeats' },
  })
  return t
}

let people
/** fixture creates an artist and a funded sponsor once per run. */
async function fixture() {
  if (people) return people
  const stamp = Date.now()
  const artistId = await adminCreateUser({ email: `artist${stamp}@e2e.backline.test`, password: 'artist-password-123', role: 'artist', username: `e2eartist${stamp}` })
  const sponsorId = await adminCreateUser({ email: `sponsor${stamp}@e2e.backline.test`, password: 'sponsor-password-123', role: 'sponsor', username: `e2esponsor${stamp}` })
  psql(`SELECT backline.fund_wallet('${sponsorId}', 1000, 'e2e-fund-${stamp}')`)
  people = { artistId, sponsorId }
  return people
}

async function signIn(page, email, password) {
  await page.goto(`${app}/login`)
  await page.fill('#email', email)
  await page.fill('#password', password)
  await page.click('button[type=submit]')
  await page.waitForURL(/\/dashboard\//, { timeout: 15000 })
}

// ---------------------------------------------------------------------------
const tests = []
const test = (name, fn, { backend = true } = {}) => tests.push({ name, fn, backend })

test(
  'shell: home renders with top bar, footer, and the 404 page works',
  async () => {
    const { context, page } = await newPage()
    await page.goto(app)
    await page.getByRole('link', { name: 'Backline home' }).waitFor()
    await page.getByText('Connecting artists with sponsors through innovative music streaming.').waitFor()
    await page.getByText('Popular Tracks').waitFor()
    await page.goto(`${app}/no/such/page`)
    await page.getByText('Oops! Page not found').waitFor()
    await page.getByRole('button', { name: 'Go Back' }).waitFor()
    await page.getByRole('link', { name: 'Return to Home' }).waitFor()
    await context.close()
  },
  { backend: false },
)

const HERO = 'Stream Nigerian music. Every sponsored play pays the artist.'

// holdRest holds every API read of page until release: the hero must not need one.
async function holdRest(page) {
  const held = []
  let released = false
  await page.route('**/rest/v1/**', (route) => (released ? route.continue() : held.push(route)))
  return {
    held,
    release: async () => {
      released = true
      for (const r of held.splice(0)) await r.continue().catch(() => {})
    },
  }
}

test(
  "home: the hero is drawn before any API answer (the shell's bootstrap is off the critical path)",
  async () => {
    for (const viewport of [mobile, desktop]) {
      const { context, page } = await newPage(viewport)
      const rest = await holdRest(page)
      const bootstrap = page.waitForRequest((r) => r.url().includes('/rest/v1/rpc/get_app_bootstrap'))
      await page.goto(app)
      await bootstrap
      await page.getByRole('heading', { level: 1, name: HERO }).waitFor({ timeout: 20_000 })
      // Every read the page started is still held: none answered before the hero.
      assert.ok(rest.held.some((r) => r.request().url().includes('get_app_bootstrap')), 'the bootstrap is held')
      await rest.release()
      await page.getByText('Popular Tracks').waitFor()
      await context.close()
    }
  },
  { backend: false },
)

test(
  'login: validation messages and show/hide password',
  async () => {
    for (const viewport of [mobile, desktop]) {
      const { context, page } = await newPage(viewport)
      await page.goto(`${app}/login`)
      await page.fill('#email', 'not-an-email')
      await page.fill('#password', '123')
      await page.click('button[type=submit]')
      await page.getByText('Please enter a valid email address').waitFor()
      await page.getByText('Password must be at least 6 characters').waitFor()
      assert.equal(await page.getAttribute('#password', 'type'), 'password')
      await page.click('button[aria-label="Show password"]')
      assert.equal(await page.getAttribute('#password', 'type'), 'text')
      await page.screenshot({ path: `${shots}/login-${viewport.width}x${viewport.height}.png` })
      await context.close()
    }
  },
  { backend: false },
)

test(
  'protected routes: visitor sees Authentication Required',
  async () => {
    const { context, page } = await newPage()
    for (const path of ['/favorites', '/dashboard/fan', '/transactions', '/profile']) {
      await page.goto(`${app}${path}`)
      await page.getByText('Authentication Required').waitFor()
      await page.getByRole('link', { name: 'Go to Login' }).waitFor()
    }
    await context.close()
  },
  { backend: false },
)

// rendered resolves once the page has run the tasks queued before it (a
// render React scheduled from a timer among them): a message posted now is
// delivered after the messages posted before it.
const rendered = (page) =>
  page.evaluate(() => new Promise((resolve) => {
    const c = new MessageChannel()
    c.port1.onmessage = () => resolve()
    c.port2.postMessage(null)
  }))

// stepClock moves a paused page clock on 10 ms at a time until ready() holds.
const stepClock = async (page, ready, what) => {
  for (let i = 0; i < 3000; i++) {
    if (await ready()) return
    await page.clock.runFor(10)
  }
  throw new Error(`${what} never happened`)
}

test(
  'cookie dialog opens after 2 s and remembers the choice',
  async () => {
    const { context, page } = await newPage(desktop, { keepCookieDialog: true })
    // The page's clock is the test's: its timers fire only as the test moves
    // it on, so "after 2 s" counts from the moment the dialog looked for a
    // stored choice, however slow the machine.
    await page.addInitScript(() => {
      const get = Storage.prototype.getItem
      Storage.prototype.getItem = function (k) {
        if (k === 'cookie-consent') window.__consentLookups = (window.__consentLookups ?? 0) + 1
        return get.call(this, k)
      }
    })
    const asked = () => page.evaluate(() => (window.__consentLookups ?? 0) > 0)
    await page.clock.install()
    await page.clock.pauseAt(Date.now() + 1000)
    await page.goto(app)
    await stepClock(page, asked, 'the cookie dialog looking for a stored choice')
    const dialog = page.getByTestId('cookie-dialog')
    await page.clock.runFor(1990)
    await rendered(page)
    assert.equal(await dialog.count(), 0, 'not shown before 2 s')
    await page.clock.runFor(10)
    await dialog.waitFor()
    await page.getByRole('button', { name: 'Accept All' }).click()
    assert.equal(await page.evaluate(() => localStorage.getItem('cookie-consent')), 'accepted')
    await page.reload()
    await stepClock(page, asked, 'the cookie dialog looking for a stored choice after the reload')
    // Well past the 2 s: a dialog timer would have fired and been rendered.
    await page.clock.runFor(2500)
    await rendered(page)
    assert.equal(await dialog.count(), 0, 'not shown again')
    await context.close()
  },
  { backend: false },
)

test(
  'PWA: service worker installs and the shell loads offline',
  async () => {
    const { context, page } = await newPage()
    await page.goto(app)
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready
    })
    const manifest = await page.evaluate(async () => (await fetch('/manifest.webmanifest')).json())
    assert.equal(manifest.name, 'Backline')
    await page.reload()
    await page.waitForFunction(() => !!navigator.serviceWorker.controller, null, { timeout: 10000 })
    await context.setOffline(true)
    await page.goto(`${app}/charts`)
    await page.getByRole('link', { name: 'Backline home' }).waitFor()
    await page.getByRole('heading', { name: 'Charts' }).waitFor({ timeout: 10000 })
    await context.close()
  },
  { backend: false },
)

test('visitor hears a 10-second preview and lands on /register', async () => {
  const { artistId } = await fixture()
  const t = await newTrack({ artistId, label: 'Preview' })
  const { context, page } = await newPage()
  await page.goto(`${app}/profile/${t.artist_id}`)
  await page.getByRole('button', { name: `Play ${t.title}` }).first().click()
  await page.getByTestId('player-bar').waitFor()
  const started = Date.now()
  await page.getByText('Preview limit reached - Create an account to enjoy full songs!').waitFor({ timeout: 25000 })
  await page.waitForURL(/\/register$/, { timeout: 5000 })
  const took = (Date.now() - started) / 1000
  assert.ok(took >= 9.5, `preview lasted ${took}s`)
  await context.close()
})

test('screenshots: home and the expanded player at both sizes', async () => {
  const { artistId } = await fixture()
  const t = await newTrack({ artistId, label: 'Screenshot' })
  for (const viewport of [mobile, desktop]) {
    const { context, page } = await newPage(viewport)
    await page.goto(app)
    await page.getByTestId('track-card').first().waitFor({ timeout: 15000 })
    await page.screenshot({ path: `${shots}/home-${viewport.width}x${viewport.height}.png` })
    await page.goto(`${app}/profile/${t.artist_id}`)
    await page.getByRole('button', { name: `Play ${t.title}` }).first().click()
    await page.getByRole('button', { name: 'Expand player' }).filter({ visible: true }).first().click()
    await page.getByTestId('player-expanded').getByText('Now Playing').waitFor()
    await page.screenshot({ path: `${shots}/player-expanded-${viewport.width}x${viewport.height}.png` })
    await context.close()
  }
})

test('a new fan signs up, signs in, streams a sponsored track and the artist is paid by the sponsor', async () => {
  const { artistId, sponsorId } = await fixture()
  const artist = { user_id: artistId }
  const track = await newTrack({ artistId, sponsorId })

  const stamp = Date.now()
  const email = `fan${stamp}@e2e.backline.test`
  const password = 'fan-password-123'
  const { context, page } = await newPage()
  await page.goto(`${app}/register/fan`)
  await page.fill('#display_name', 'E2E Fan')
  await page.fill('#username', `fan${stamp}`)
  await page.fill('#email', email)
  await page.fill('#password', password)
  await page.fill('#confirm_password', password)
  await page.check('input[name=accept_terms]')
  await page.click('button[type=submit]')
  await Promise.race([page.getByTestId('check-email').waitFor({ timeout: 15000 }), page.waitForURL(/\/dashboard\//, { timeout: 15000 })])
  if (!/\/dashboard\//.test(page.url())) {
    const [p] = await rest(`public_profiles?username=eq.fan${stamp}&select=id`)
    assert.ok(p, 'sign-up created the public profile')
    await confirmUser(p.id)
    await signIn(page, email, password)
  }
  assert.match(page.url(), /\/dashboard\/fan$/)
  await page.getByText('Fan Dashboard').waitFor()

  const artistBefore = await balance(artist.user_id)
  const sponsorBefore = await balance(sponsorId)
  await page.goto(`${app}/profile/${artist.user_id}`)
  await page.getByRole('button', { name: `Play ${track.title}` }).first().waitFor()
  // Record when each toast mounts, in the page, to check the spec's spacing.
  await page.evaluate(() => {
    const times = []
    window.toastTimes = times
    new MutationObserver((records) => {
      for (const r of records)
        for (const n of r.addedNodes)
          if (n instanceof HTMLElement)
            for (const el of [n, ...n.querySelectorAll('[data-sonner-toast]')])
              if (el.matches('[data-sonner-toast]')) times.push({ text: el.innerText, t: performance.now() })
    }).observe(document.body, { childList: true, subtree: true })
  })
  // Every request the page sends to the API from the play to its outcome
  // (finish_play's answer); the spec's refreshes follow it.
  const sent = []
  let outcome = false
  page.on('request', (r) => {
    if (!outcome && r.url().startsWith(api) && !new URL(r.url()).pathname.startsWith('/storage/')) sent.push(`${r.method()} ${new URL(r.url()).pathname}`)
  })
  page.on('response', (r) => {
    if (r.url().startsWith(`${api}/rest/v1/rpc/finish_play`)) outcome = true
  })
  await page.getByRole('button', { name: `Play ${track.title}` }).first().click()
  await page.getByText('Sponsored stream counted!').waitFor({ timeout: 50000 })
  await page.getByText('₦50 credited to artist from sponsor!').waitFor({ timeout: 5000 })
  await page.getByText(/₦50 was automatically transferred from the sponsor/).waitFor({ timeout: 6000 })
  const times = await page.evaluate(() => window.toastTimes)
  const order = times.map((x) => x.text).filter((x) => /Sponsored stream counted|credited to artist|automatically transferred/.test(x))
  assert.deepEqual(
    order.map((x) => x.split('\n')[0]),
    ['Sponsored stream counted!', '₦50 credited to artist from sponsor!', "₦50 was automatically transferred from the sponsor to the artist's wallet."],
    'the three toasts, in order',
  )
  const at = (re) => times.find((x) => re.test(x.text))?.t
  const t0 = at(/Sponsored stream counted!/)
  const t1 = at(/credited to artist from sponsor/)
  const t2 = at(/automatically transferred/)
  assert.ok(t1 - t0 >= 950 && t2 - t1 >= 2450, `toast spacing ${Math.round(t1 - t0)} ms, ${Math.round(t2 - t1)} ms`)
  // The play itself is two requests; the others are not the stream's: the
  // player's like button reading whether the track is liked, and the app's
  // own timers of spec section 4 (the session heartbeat, 30 s after the
  // click, and the online users every 60 s), which run whether or not
  // anything plays.
  const timers = new Set(['GET /rest/v1/favorites', 'POST /rest/v1/rpc/upsert_user_session', 'POST /rest/v1/rpc/get_online_users'])
  assert.deepEqual(
    sent.filter((r) => !timers.has(r)),
    ['POST /rest/v1/rpc/start_play', 'POST /rest/v1/rpc/finish_play'],
    `requests from the play to the outcome: ${sent.join(', ')}`,
  )
  console.log(`    requests from the play to the outcome: ${sent.join(', ')}`)
  assert.equal(await balance(artist.user_id), artistBefore + 50, 'artist wallet rose by ₦50')
  assert.equal(await balance(sponsorId), sponsorBefore - 50, 'sponsor wallet fell by ₦50')
  const moved = await rest(`transactions?track_id=eq.${track.id}&select=amount,kind`)
  assert.deepEqual(moved, [{ amount: 50, kind: 'sponsored_stream' }], '₦50 moved once')

  // Role checks with the same fan: another role's dashboard is denied, /dashboard redirects.
  await page.goto(`${app}/dashboard/artist`)
  await page.getByText("You don't have permission to access this page.").waitFor()
  await page.goto(`${app}/dashboard`)
  await page.waitForURL(/\/dashboard\/fan$/)
  await context.close()
})

test("an artist streaming their own track gets the spec's message", async () => {
  const stamp = Date.now()
  const email = `artist${stamp}@e2e.backline.test`
  const password = 'artist-password-123'
  const artistId = await adminCreateUser({ email, password, role: 'artist', username: `artist${stamp}` })
  const track = await newTrack({ artistId })
  const { context, page } = await newPage()
  await signIn(page, email, password)
  assert.match(page.url(), /\/dashboard\/artist$/)
  // The artist plays it where fans do: their public profile's tracks.
  await page.goto(`${app}/profile/${artistId}`)
  await page.getByRole('button', { name: `Play ${track.title}` }).first().click()
  await page.getByText('Artists cannot generate valid streams for their own tracks').waitFor({ timeout: 50000 })
  const [row] = await rest(`streams?track_id=eq.${track.id}&select=is_valid`)
  assert.equal(row?.is_valid, false, 'the stream is recorded as not valid')
  await context.close()
})

/** pngImage builds a solid-colour PNG of size×size pixels, a photo the image transform can decode. */
function pngImage(size, [r, g, b]) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(zlib.crc32(body))
    return Buffer.concat([len, body, crc])
  }
  const head = Buffer.alloc(13)
  head.writeUInt32BE(size, 0)
  head.writeUInt32BE(size, 4)
  head[8] = 8 // bit depth
  head[9] = 2 // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => [r, g, b]).flat())])
  const pixels = zlib.deflateSync(Buffer.concat(Array.from({ length: size }, () => row)))
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', head), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))])
}

test('a fan adds a track they never liked to a new playlist from its card, finds it on /playlist, and uploads a profile photo shown resized', async () => {
  const { artistId } = await fixture()
  const track = await newTrack({ artistId, label: 'Playlist' })
  const stamp = Date.now()
  const email = `lists${stamp}@e2e.backline.test`
  const password = 'fan-password-123'
  const fanId = await adminCreateUser({ email, password, role: 'fan', username: `lists${stamp}` })
  const { context, page } = await newPage(mobile)
  await signIn(page, email, password)
  await page.goto(`${app}/profile/${artistId}`)
  await page.getByRole('button', { name: `Add ${track.title} to a playlist` }).first().click()
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel('New playlist name').fill('E2E Mix')
  await dialog.getByRole('button', { name: 'Create and add' }).click()
  await page.getByText('Added to E2E Mix').waitFor()
  const [list] = await rest(`playlists?user_id=eq.${fanId}&select=name,playlist_tracks(track_id)`)
  assert.deepEqual(list, { name: 'E2E Mix', playlist_tracks: [{ track_id: track.id }] })
  assert.deepEqual(await rest(`favorites?user_id=eq.${fanId}&select=id`), [], 'the track was never liked')
  await page.goto(`${app}/playlist`)
  await page.getByRole('region', { name: 'E2E Mix' }).getByText(track.title).waitFor()

  await page.goto(`${app}/profile`)
  await page.getByText('Upload photo').waitFor()
  await page.getByLabel('Profile photo file').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: pngImage(256, [200, 40, 90]) })
  await page.getByText('Profile photo updated').waitFor({ timeout: 15000 })
  const [profile] = await rest(`public_profiles?id=eq.${fanId}&select=avatar_url`)
  assert.match(profile.avatar_url, new RegExp(`^/storage/v1/object/public/avatars/${fanId}/[0-9a-f-]{36}\\.png$`))
  // Shown through the image transform, at the avatar's size, and it decodes.
  const img = page.locator('[data-testid="avatar-upload"] img')
  await img.waitFor()
  const src = await img.getAttribute('src')
  assert.match(src, new RegExp(`/storage/v1/render/image/public/avatars/${fanId}/.+\\?width=160&height=160&resize=cover$`))
  await page.waitForFunction(() => document.querySelector('[data-testid="avatar-upload"] img')?.naturalWidth === 160, null, { timeout: 10000 })
  await page.screenshot({ path: `${shots}/profile-photo-${mobile.width}x${mobile.height}.png` })
  await context.close()
})

test('a verified artist is not offered verification again, and the checkout is refused before any money is taken', async () => {
  const stamp = Date.now()
  const email = `verified${stamp}@e2e.backline.test`
  const password = 'artist-password-123'
  const id = await adminCreateUser({ email, password, role: 'artist', username: `verified${stamp}` })
  psql(`UPDATE public.public_profiles SET is_verified = true, verification_expires_at = now() + interval '200 days' WHERE id = '${id}'`)
  const { context, page } = await newPage(mobile)
  await signIn(page, email, password)
  await page.goto(`${app}/verification`)
  await page.getByTestId('verification-state').getByText(/^Your verification is active until .+\. You can renew it in its last 30 days\.$/).waitFor()
  assert.equal(await page.getByRole('button', { name: /^Pay ₦/ }).count(), 0, 'no payment offered')
  // A client that asks anyway is refused before a checkout opens.
  const token = await page.evaluate(() => JSON.parse(localStorage.getItem(Object.keys(localStorage).find((k) => k.endsWith('-auth-token')))).access_token)
  const res = await fetch(`${api}/functions/v1/create-payment`, {
    method: 'POST',
    headers: { apikey: anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'flutterwave', purpose: 'verification' }),
  })
  const answer = await res.json()
  assert.equal(answer.success, false, JSON.stringify(answer))
  assert.match(answer.error, /^Your verification is active until /)
  assert.equal(psql(`SELECT count(*) FROM public.payments WHERE user_id = '${id}'`), '0', 'no payment recorded')
  await context.close()
})

test('a suspended user sees Account Suspended with the reason; a fan is denied sponsor pages', async () => {
  const stamp = Date.now()
  const email = `susp${stamp}@e2e.backline.test`
  const password = 'fan-password-123'
  const id = await adminCreateUser({ email, password, role: 'fan', username: `susp${stamp}` })
  const { context, page } = await newPage()
  await signIn(page, email, password)
  await page.goto(`${app}/transactions`)
  await page.getByText('Access Denied').waitFor()
  await page.getByRole('link', { name: 'Go to Dashboard' }).waitFor()
  psql(`UPDATE public.public_profiles SET is_suspended = true, suspended_reason = 'Repeated stream manipulation' WHERE id = '${id}'`)
  await page.goto(`${app}/favorites`)
  await page.getByText('Account Suspended').waitFor()
  await page.getByText('Repeated stream manipulation').waitFor()
  await page.getByRole('button', { name: 'Sign Out' }).click()
  await page.waitForURL(`${app}/`)
  await page.getByText('Signed out successfully').waitFor()
  await context.close()
})

test('realtime: a notification for the signed-in fan raises the badge without a reload; a second tab shows them online', async () => {
  const stamp = Date.now()
  const email = `live${stamp}@e2e.backline.test`
  const password = 'fan-password-123'
  const id = await adminCreateUser({ email, password, role: 'fan', username: `live${stamp}` })
  const { context, page } = await newPage()
  const wsErrors = []
  page.on('console', (m) => m.type() === 'error' && /websocket|realtime/i.test(m.text()) && wsErrors.push(m.text()))
  // The notifications list answers slowly, as it does when the machine is
  // busy: the badge must not be read before the list is in.
  await page.route(/\/rest\/v1\/notifications\?/, async (route) => {
    await new Promise((r) => setTimeout(r, 1000))
    await route.continue()
  })
  await signIn(page, email, password)
  await page.getByRole('button', { name: 'Notifications' }).waitFor()
  // The baseline is the database's unread count (a new user already has the
  // welcome notification), shown by the badge before anything is inserted.
  // Read from the page while the list was still loading it was 0, the live
  // notification then made the badge 2, and the 1 awaited never came.
  const unread = Number(psql(`SELECT count(*) FROM public.notifications WHERE user_id = '${id}' AND NOT is_read`))
  const badgeShows = (want) =>
    page.waitForFunction((w) => Number(document.querySelector('[data-testid="unread-badge"]')?.textContent ?? 0) === w, want, { timeout: 15_000 })
  await badgeShows(unread)
  // Once the bell's subscription is live, insert behind the app's back: the
  // badge rises by exactly one without a reload.
  await page.locator('button[aria-label="Notifications"][data-live="true"]').waitFor({ timeout: 15_000 })
  psql(`INSERT INTO public.notifications (user_id, type, title, message) VALUES ('${id}', 'system_update', 'Live ${stamp}', 'Sent while the page was open')`)
  await badgeShows(unread + 1)
  // Presence: another signed-in user sees this fan on the shared presence
  // channel (__backlineOnline reads the presence list alone, not the RPC).
  const email2 = `watch${stamp}@e2e.backline.test`
  await adminCreateUser({ email: email2, password, role: 'fan', username: `watch${stamp}` })
  const second = await newPage()
  await signIn(second.page, email2, password)
  await second.page.waitForFunction((fan) => (window.__backlineOnline?.() ?? []).includes(fan), id, { timeout: 15_000 })
  await second.context.close()
  assert.deepEqual(wsErrors, [], `websocket errors in the console: ${wsErrors.join(' | ')}`)
  await context.close()
})

test(
  'mobile top bar hides on scrolling down past 100px and returns on scrolling up',
  async () => {
    const { context, page } = await newPage(mobile)
    await page.goto(`${app}/terms`)
    const header = page.locator('header').first()
    await page.getByRole('heading', { name: 'Terms of Service' }).waitFor()
    // scrolled scrolls to y and resolves once the page has handled the
    // scroll event (a listener added after the app's runs after it) and
    // rendered what it decided; then it reports whether the bar is hidden.
    const scrolled = (y) =>
      page.evaluate(async (y) => {
        await new Promise((resolve) => {
          window.addEventListener('scroll', resolve, { once: true })
          window.scrollTo(0, y)
        })
        await new Promise((resolve) => {
          const c = new MessageChannel()
          c.port1.onmessage = resolve
          c.port2.postMessage(null)
        })
        return document.querySelector('header')?.classList.contains('-translate-y-full')
      }, y)
    assert.equal(await scrolled(600), true, 'down past 100px hides it')
    // Moves under 5px change nothing, upwards included.
    assert.equal(await scrolled(597), true, 'up by 3px keeps it hidden')
    assert.equal(await scrolled(400), false, 'up by more shows it')
    assert.equal(await scrolled(403), false, 'down by 3px keeps it shown')
    assert.ok(await header.isVisible())
    await context.close()
  },
  { backend: false },
)

test('coming-soon mode gates visitors but not the login page or signed-in users', async () => {
  const stamp = Date.now()
  const email = `cs${stamp}@e2e.backline.test`
  const password = 'fan-password-123'
  await adminCreateUser({ email, password, role: 'fan', username: `cs${stamp}` })
  await setComingSoon(true)
  try {
    const { context, page } = await newPage()
    await page.goto(app)
    await page.getByTestId('coming-soon').waitFor()
    await page.fill('#wl-email', 'bad')
    await page.getByRole('button', { name: 'Join the waitlist' }).click()
    await page.getByText('Please enter a valid email address.').waitFor()
    await page.getByText('Please select your role.').waitFor()
    await page.fill('#wl-email', `wait${stamp}@e2e.backline.test`)
    await page.getByText('artist', { exact: true }).click()
    await page.getByRole('button', { name: 'Join the waitlist' }).click()
    await page.getByText("You're on the list!").waitFor()
    // The device remembers "coming soon": a new start waits for the settings
    // rather than flash home before the landing.
    const held = await holdRest(page)
    const asked = page.waitForRequest((r) => r.url().includes('/rest/v1/rpc/get_app_bootstrap'))
    await page.reload()
    await asked
    // The gate's fallback is drawn while the answer is held.
    await page.locator('[aria-busy="true"]').first().waitFor()
    assert.equal(await page.getByRole('heading', { level: 1, name: HERO }).count(), 0, 'home is not drawn while the settings are asked')
    await held.release()
    await page.getByTestId('coming-soon').waitFor()
    await page.unroute('**/rest/v1/**')
    await page.goto(`${app}/charts`)
    await page.getByTestId('coming-soon').waitFor()
    await page.fill('#wl-email', `wait${stamp}@e2e.backline.test`)
    await page.getByText('artist', { exact: true }).click()
    await page.getByRole('button', { name: 'Join the waitlist' }).click()
    await page.getByText('This email is already subscribed!').waitFor()
    await signIn(page, email, password)
    await page.goto(`${app}/charts`)
    await page.getByRole('heading', { name: 'Charts' }).waitFor()
    assert.equal(await page.getByTestId('coming-soon').count(), 0)
    await context.close()
  } finally {
    await setComingSoon(false)
  }
})

registerDashboards(test, { app, api, anonKey, newPage, mobile, desktop, shots, rest, psql, adminCreateUser, signIn, toneWav, pngImage, balance })
registerProviders(test, { app, newPage, psql })
registerLayout(test, { app, api, anonKey, newPage, shots, psql, signIn, adminCreateUser })
registerOAuth(test, { app, api, newPage, adminCreateUser, signIn, shots, serviceKey })
registerUpload(test, { app, newPage, mobile, rest, adminCreateUser, confirmUser, signIn, toneWav })
registerListening(test, { app, api, newPage, mobile, desktop, shots, rest, psql, adminCreateUser, signIn, newTrack, fixture })
registerListeners(test, { app, newPage, mobile, desktop, rest, psql, adminCreateUser, signIn, fixture, newTrack })
registerAdminTests({ test, newPage, app, api, anonKey, psql, adminCreateUser, signIn, newTrack, fixture, shots, desktop, mobile, assert })

// ---------------------------------------------------------------------------
let failed = 0
let ran = 0
// E2E_REPEAT=n runs each chosen test n times and tallies its passes;
// E2E_CPU_HOGS=n keeps n busy processes running meanwhile (a loaded phone or CI machine).
const repeat = Math.max(1, Number(process.env.E2E_REPEAT ?? 1))
const hogs = Array.from({ length: Number(process.env.E2E_CPU_HOGS ?? 0) }, () => spawn('yes', { stdio: 'ignore' }))
process.on('exit', () => hogs.forEach((h) => h.kill()))
const tally = new Map()
console.log(`Backline e2e (${smoke ? 'smoke, no backend' : 'full'}) against ${app}${hogs.length ? ` with ${hogs.length} CPU hogs` : ''}`)
for (const t of tests.flatMap((t) => Array(repeat).fill(t))) {
  // E2E_ONLY: run the tests whose name contains one of its |-separated parts.
  if (process.env.E2E_ONLY && !process.env.E2E_ONLY.split('|').some((part) => t.name.includes(part))) continue
  if (smoke && t.backend) {
    console.log(`  - skip ${t.name} (needs the backend)`)
    continue
  }
  const start = Date.now()
  openPages.clear()
  try {
    ran++
    tally.set(t.name, [(tally.get(t.name)?.[0] ?? 0) + 1, (tally.get(t.name)?.[1] ?? 0) + 1])
    await t.fn()
    console.log(`  ✓ ${t.name} (${((Date.now() - start) / 1000).toFixed(1)}s)`)
  } catch (e) {
    failed++
    tally.get(t.name)[0]--
    let i = 0
    for (const p of openPages) {
      await p.screenshot({ path: `${shots}/failure-${tests.indexOf(t)}-${i++}.png` }).catch(() => {})
      const toasts = await p.locator('[data-sonner-toast]').allInnerTexts().catch(() => [])
      if (toasts.length) console.log(`    toasts: ${JSON.stringify(toasts)}`)
    }
    console.log(`  ✗ ${t.name}\n    ${String(e?.stack ?? e).split('\n').slice(0, 6).join('\n    ')}`)
  }
}
for (const h of hogs) h.kill()
if (repeat > 1) for (const [name, [ok, all]] of tally) console.log(`  ${ok}/${all} ${name}`)
await browser.close()
await closeServer()
console.log(`${ran - failed}/${ran} passed; screenshots in ${shots}`)
process.exit(failed ? 1 : 0)
