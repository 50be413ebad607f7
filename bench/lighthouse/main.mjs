// Lighthouse's mobile performance score of Backline's pages, and the time
// from tapping Play on home to audio playing, against a private `basalt dev`
// (free ports, a fresh data directory, keys from `basalt status --json`).
//
// Lighthouse runs with its default (mobile) configuration: a Moto G Power
// sized screen, simulated slow 4G (150 ms RTT, 1.6 Mbit/s down; 562.5 ms /
// 1.47 Mbit/s as applied) and a 4× CPU slowdown, in Debian's Chromium. The
// dashboards are measured signed in as their role (the session is put in
// the browser's storage first, and Lighthouse is told to keep it).
//
// Play to audio is measured in the same browser with the same throttling
// applied for real (DevTools network conditions and CPU slowdown): home is
// opened, Play on the first track card is clicked, and the time runs until
// the audio element's `playing` event. A visitor and a signed-in fan each
// play once per run, tapping as soon as the button shows and, as a listener
// who looks at the screen first, 3 s later (the app signs the audio of the
// tracks on screen after the first paint, which the first tap may beat).
//
// The player itself is measured with a Lighthouse timespan (a user flow
// step, the throttling applied by DevTools): from a tap on Play on home
// until the track plays and the player bar shows it, Lighthouse reports
// the main thread's blocking time, the tap's interaction to next paint and
// the layout shifts, and which of its performance audits pass. A timespan
// has no 0–100 score (Lighthouse scores only page loads), so the track's
// own page, where a shared link lands with its Play button, is scored as
// a page.
//
//	node bench/lighthouse/main.mjs            # every page, 3 runs each (median)
//	node bench/lighthouse/main.mjs -smoke     # home once, one play, one player timespan (CI)
//	node bench/lighthouse/main.mjs -runs 5 -json
//	node bench/lighthouse/main.mjs -only home  # pages whose name contains this
//	node bench/lighthouse/main.mjs -only play  # play to audio (and the track page, "track page (player)")
//	node bench/lighthouse/main.mjs -save DIR   # keep each run's full report in DIR
//
// The app must be built (frontend/dist, `npm run build` in frontend/), and
// the basalt binary is bin/basalt (`just build`) or BASALT_BIN. Nothing fails
// for being slow; an error (a page that does not load, a play that never
// starts) fails the run.
import { spawnSync } from 'node:child_process'
import { existsSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as chromeLauncher from 'chrome-launcher'
import lighthouse, { startTimespan } from 'lighthouse'
import puppeteer from 'puppeteer-core'
import { root, startBasalt, tempDir } from '../../compat/lib/basalt.mjs'

const args = process.argv.slice(2)
const smoke = args.includes('-smoke') || process.env.BENCH_SMOKE === '1'
const asJSON = args.includes('-json')
const flag = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined)
const runs = smoke ? 1 : Number(flag('-runs') || 0) || 3
const only = flag('-only')
// -save DIR keeps each run's full Lighthouse report (JSON) for its audits.
const saveDir = flag('-save')
const bin = process.env.BASALT_BIN ?? join(root, 'bin/basalt')
if (!existsSync(join(root, 'frontend/dist/index.html'))) throw new Error('frontend/dist is missing: run `npm run build` in frontend/ first')

// ---------------------------------------------------------------------------
// A private basalt dev (the compat runners' starter: free ports, a fresh data
// directory, /health, then `basalt status --json`).
const dir = tempDir('backline-lighthouse-')
let dev
let chrome
const stop = async () => {
  await chrome?.kill()
  await dev?.stop()
  rmSync(dir, { recursive: true, force: true })
}
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => void stop().then(() => process.exit(1)))

async function main() {
  dev = await startBasalt({ bin, dir })
  const s = dev.info
  const app = s.app_url.replace(/\/$/, '')
  const api = s.api_url.replace(/\/$/, '')
  const { people, track } = await seed(api, s.service_role_key, s.db_url)

  chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-quic', '--autoplay-policy=no-user-gesture-required'],
  })
  const port = chrome.port

  const pages = (
    smoke
      ? [{ name: 'home', path: '/' }]
      : [
          { name: 'home', path: '/' },
          { name: 'track page (player)', path: `/track/${track}` },
          { name: 'dashboard (fan)', path: '/dashboard/fan', as: 'fan' },
          { name: 'dashboard (artist)', path: '/dashboard/artist', as: 'artist' },
          { name: 'dashboard (sponsor)', path: '/dashboard/sponsor', as: 'sponsor' },
          { name: 'dashboard (admin)', path: '/dashboard/admin', as: 'admin' },
        ]
  ).filter((p) => !only || p.name.includes(only))
  const results = []
  for (const p of pages) {
    const scores = []
    const lcps = []
    const metrics = { fcp: [], tbt: [], si: [], cls: [] }
    let element = ''
    for (let i = 0; i < runs; i++) {
      await session(port, app, p.as ? await signInToken(api, s.anon_key, people[p.as]) : null)
      const r = await lighthouse(`${app}${p.path}`, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], disableStorageReset: true })
      if (!r?.lhr || r.lhr.runtimeError) throw new Error(`lighthouse ${p.path}: ${r?.lhr?.runtimeError?.message ?? 'no result'}`)
      scores.push(Math.round(r.lhr.categories.performance.score * 100))
      lcps.push(r.lhr.audits['largest-contentful-paint'].numericValue)
      // The other metrics the score weighs, to tell a slow paint from a busy main thread.
      metrics.fcp.push(r.lhr.audits['first-contentful-paint'].numericValue)
      metrics.tbt.push(r.lhr.audits['total-blocking-time'].numericValue)
      metrics.si.push(r.lhr.audits['speed-index'].numericValue)
      metrics.cls.push(r.lhr.audits['cumulative-layout-shift'].numericValue)
      if (saveDir) writeFileSync(join(saveDir, `${p.name.replace(/\W+/g, '-')}-${i + 1}.json`), JSON.stringify(r.lhr))
      // What the largest paint was, to say what to shorten.
      element = findNode(r.lhr.audits['lcp-breakdown-insight']?.details)?.snippet ?? element
    }
    results.push({
      page: p.name,
      path: p.path,
      score: median(scores),
      scores,
      lcp_ms: Math.round(median(lcps)),
      fcp_ms: Math.round(median(metrics.fcp)),
      tbt_ms: Math.round(median(metrics.tbt)),
      si_ms: Math.round(median(metrics.si)),
      cls: Number(median(metrics.cls).toFixed(3)),
      lcp_element: element.slice(0, 120),
    })
  }

  const plays = []
  for (const look of smoke ? [0] : only && only !== 'play' ? [] : [0, LOOK_MS])
    for (const who of smoke ? [null] : [null, 'fan']) {
      const times = []
      for (let i = 0; i < runs; i++) times.push(await playToAudio(port, app, who ? await signInToken(api, s.anon_key, people[who]) : null, look))
      plays.push({ as: who ?? 'visitor', look_ms: look, ms: Math.round(median(times)), runs: times.map(Math.round) })
    }

  const players = []
  for (const who of smoke ? [null] : only ? [] : [null, 'fan']) {
    const spans = []
    for (let i = 0; i < runs; i++) spans.push(await playerTimespan(port, app, who ? await signInToken(api, s.anon_key, people[who]) : null))
    const mid = (k) => Math.round(median(spans.map((x) => x[k] ?? 0)) * 1000) / 1000
    players.push({ as: who ?? 'visitor', tbt_ms: mid('tbt_ms'), inp_ms: mid('inp_ms'), cls: mid('cls'), passed: spans.map((x) => `${x.passed}/${x.applicable}`), failing: [...new Set(spans.flatMap((x) => x.failing))] })
  }

  if (asJSON) console.log(JSON.stringify({ smoke, runs, pages: results, play_to_audio: plays, player: players }, null, 2))
  else {
    console.log(`Lighthouse ${smoke ? '(smoke) ' : ''}mobile profile (simulated slow 4G, 4x CPU), median of ${runs} run${runs > 1 ? 's' : ''}:`)
    for (const r of results) {
      console.log(`  ${r.page.padEnd(22)} score ${String(r.score).padStart(3)}  LCP ${(r.lcp_ms / 1000).toFixed(1)} s  (${r.scores.join(', ')})  ${r.lcp_element}`)
      console.log(`  ${''.padEnd(22)} FCP ${(r.fcp_ms / 1000).toFixed(1)} s  TBT ${r.tbt_ms} ms  SI ${(r.si_ms / 1000).toFixed(1)} s  CLS ${r.cls}`)
    }
    console.log('Play on home to audio playing (slow 4G and 4x CPU applied):')
    for (const p of plays) console.log(`  as ${p.as.padEnd(8)} ${p.look_ms ? `tap ${p.look_ms / 1000} s after the button shows` : 'tap as soon as the button shows'}  ${p.ms} ms  (${p.runs.join(', ')})`)
    console.log('The player, a Lighthouse timespan from the tap on Play to the track playing in the player bar (slow 4G, 4x CPU):')
    for (const p of players)
      console.log(`  as ${p.as.padEnd(8)} TBT ${Math.round(p.tbt_ms)} ms  INP ${Math.round(p.inp_ms)} ms  CLS ${p.cls}  audits passed ${p.passed.join(', ')}${p.failing.length ? `  failing: ${p.failing.join(', ')}` : ''}`)
  }
}

/** findNode returns the first DOM node item in an audit's details (the LCP element). */
const findNode = (d) => {
  if (!d || typeof d !== 'object') return undefined
  if (d.type === 'node') return d
  for (const v of Object.values(d)) {
    const n = findNode(v)
    if (n) return n
  }
  return undefined
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

// ---------------------------------------------------------------------------
// Fixtures: one user per role, an uploaded track (a tone) with a cover.

async function seed(api, serviceKey, dbURL) {
  const h = { apikey: serviceKey, authorization: `Bearer ${serviceKey}` }
  const psql = (sql) => spawnSync('psql', [dbURL, '-v', 'ON_ERROR_STOP=1', '-tAc', sql], { encoding: 'utf8' })
  const stamp = Date.now()
  const people = {}
  for (const role of ['artist', 'sponsor', 'fan', 'admin']) {
    const email = `lh-${role}${stamp}@bench.backline.test`
    const password = `${role}-password-123`
    const res = await fetch(`${api}/auth/v1/admin/users`, {
      method: 'POST',
      headers: { ...h, 'content-type': 'application/json' },
      body: JSON.stringify({ email, password, email_confirm: true, user_metadata: { role: role === 'admin' ? 'fan' : role, username: `lh${role}${stamp}`, display_name: `LH ${role}` } }),
    })
    const j = await res.json()
    if (!res.ok) throw new Error(`create ${role}: ${res.status} ${JSON.stringify(j)}`)
    people[role] = { id: j.id ?? j.user?.id, email, password }
  }
  const promoted = psql(`SELECT backline.promote_to_admin('${people.admin.id}')`)
  if (promoted.status !== 0) throw new Error(`promote admin: ${promoted.stderr}`)
  // The tone sits where an artist's upload does: in the artist's folder of
  // the private tracks bucket, so every play asks storage for a signed URL
  // as the app does.
  const audio = `${people.artist.id}/tone.wav`
  const up = await fetch(`${api}/storage/v1/object/tracks/${audio}`, { method: 'POST', headers: { ...h, 'content-type': 'audio/wav', 'x-upsert': 'true' }, body: toneWav(60) })
  if (!up.ok) throw new Error(`upload audio: ${up.status} ${await up.text()}`)
  let track
  for (let i = 0; i < 8; i++) {
    const res = await fetch(`${api}/rest/v1/tracks`, {
      method: 'POST',
      headers: { ...h, 'content-type': 'application/json', prefer: 'return=representation' },
      body: JSON.stringify({ title: `Bench Track ${i + 1}`, artist_id: people.artist.id, audio_url: `/storage/v1/object/public/tracks/${audio}`, duration: 60, genre: 'Afrobeats' }),
    })
    if (!res.ok) throw new Error(`insert track: ${res.status} ${await res.text()}`)
    track ??= (await res.json())[0].id
  }
  return { people, track }
}

/** toneWav builds a quiet 440 Hz mono WAV (8 kHz, 8 bit) of the given length. */
function toneWav(seconds) {
  const rate = 8000
  const n = rate * seconds
  const b = Buffer.alloc(44 + n)
  b.write('RIFF', 0)
  b.writeUInt32LE(36 + n, 4)
  b.write('WAVEfmt ', 8)
  b.writeUInt32LE(16, 16)
  b.writeUInt16LE(1, 20)
  b.writeUInt16LE(1, 22)
  b.writeUInt32LE(rate, 24)
  b.writeUInt32LE(rate, 28)
  b.writeUInt16LE(1, 32)
  b.writeUInt16LE(8, 34)
  b.write('data', 36)
  b.writeUInt32LE(n, 40)
  for (let i = 0; i < n; i++) b[44 + i] = 128 + Math.round(20 * Math.sin((2 * Math.PI * 440 * i) / rate))
  return b
}

/** signInToken signs a user in with their password and returns the session supabase-js stores. */
async function signInToken(api, anonKey, who) {
  const res = await fetch(`${api}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email: who.email, password: who.password }),
  })
  const j = await res.json()
  if (!res.ok) throw new Error(`sign in ${who.email}: ${res.status} ${JSON.stringify(j)}`)
  return { api, session: j }
}

// ---------------------------------------------------------------------------
// The browser, through the DevTools protocol.

/** cdp opens a tab on url and returns a command function bound to it and a close function. */
async function cdp(port, url) {
  const target = await (await fetch(`http://127.0.0.1:${port}/json/new?about:blank`, { method: 'PUT' })).json()
  const ws = new WebSocket(target.webSocketDebuggerUrl)
  await new Promise((resolve, reject) => {
    ws.onopen = resolve
    ws.onerror = reject
  })
  let id = 0
  const waiting = new Map()
  const events = []
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data)
    if (msg.id && waiting.has(msg.id)) {
      const { resolve, reject } = waiting.get(msg.id)
      waiting.delete(msg.id)
      if (msg.error) reject(new Error(`${msg.error.message}`))
      else resolve(msg.result)
    } else if (msg.method) events.push(msg)
  }
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      waiting.set(++id, { resolve, reject })
      ws.send(JSON.stringify({ id, method, params }))
    })
  const close = async () => {
    ws.close()
    await fetch(`http://127.0.0.1:${port}/json/close/${target.id}`)
  }
  await send('Page.enable')
  await send('Runtime.enable')
  if (url) await navigate(send, events, url)
  return { send, events, close }
}

async function navigate(send, events, url) {
  events.length = 0
  await send('Page.navigate', { url })
  await until(() => events.some((e) => e.method === 'Page.loadEventFired'), 60_000, `load ${url}`)
}

async function until(ok, ms, what) {
  const end = Date.now() + ms
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out: ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const storageKey = (api) => `sb-${new URL(api).hostname.split('.')[0]}-auth-token`

/** session puts a signed-in user's session in the app origin's storage, or clears it for a visitor. */
async function session(port, app, token) {
  const tab = await cdp(port, `${app}/favicon.png`)
  const code = token
    ? `localStorage.clear(); localStorage.setItem('cookie-consent','declined'); localStorage.setItem(${JSON.stringify(storageKey(token.api))}, ${JSON.stringify(JSON.stringify(token.session))})`
    : `localStorage.clear(); localStorage.setItem('cookie-consent','declined')`
  const r = await tab.send('Runtime.evaluate', { expression: code })
  if (r.exceptionDetails) throw new Error(`storage: ${r.exceptionDetails.text}`)
  await tab.close()
}

/** LOOK_MS is how long the second kind of listener looks at home before tapping Play. */
const LOOK_MS = 3000

/** playToAudio opens home throttled, clicks Play on the first track card lookMs after it shows and returns the ms until the audio plays. */
async function playToAudio(port, app, token, lookMs = 0) {
  await session(port, app, token)
  const tab = await cdp(port)
  try {
    // Every media element reports its first `playing`, attached or not.
    await tab.send('Page.addScriptToEvaluateOnNewDocument', {
      source: `{
        const play = HTMLMediaElement.prototype.play
        HTMLMediaElement.prototype.play = function (...a) {
          if (!this.__benchWatched) { this.__benchWatched = true; this.addEventListener('playing', () => { window.__benchPlaying ??= performance.now() }) }
          return play.apply(this, a)
        }
      }`,
    })
    await tab.send('Network.enable')
    await tab.send('Network.setCacheDisabled', { cacheDisabled: true })
    // Lighthouse's mobile profile, applied: slow 4G as DevTools applies it, 4x CPU.
    await tab.send('Network.emulateNetworkConditions', { offline: false, latency: 562.5, downloadThroughput: (1474.56 * 1024) / 8, uploadThroughput: (675 * 1024) / 8 })
    await tab.send('Emulation.setCPUThrottlingRate', { rate: 4 })
    await tab.send('Emulation.setDeviceMetricsOverride', { width: 412, height: 823, deviceScaleFactor: 1.75, mobile: true })
    await navigate(tab.send, tab.events, `${app}/`)
    const button = `document.querySelector('[data-testid="track-card"] button[aria-label^="Play "]')`
    await until(async () => (await tab.send('Runtime.evaluate', { expression: `!!${button}`, returnByValue: true })).result.value, 60_000, 'a Play button on home')
    if (lookMs) await new Promise((r) => setTimeout(r, lookMs))
    const clicked = await tab.send('Runtime.evaluate', { expression: `window.__benchClick = performance.now(); ${button}.click(); window.__benchClick`, returnByValue: true })
    if (clicked.exceptionDetails) throw new Error(`click: ${clicked.exceptionDetails.text}`)
    let ms
    await until(
      async () => {
        const r = await tab.send('Runtime.evaluate', { expression: 'window.__benchPlaying === undefined ? null : window.__benchPlaying - window.__benchClick', returnByValue: true })
        ms = r.result.value
        return ms !== null
      },
      30_000,
      'the audio to play',
    )
    return ms
  } finally {
    await tab.close()
  }
}

/**
 * playerTimespan opens home on a phone-sized screen, then records a
 * Lighthouse timespan around a real tap on Play on the first track card,
 * ended once the audio plays and the player bar names the track.
 */
async function playerTimespan(port, app, token) {
  await session(port, app, token)
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${port}`, defaultViewport: null })
  const page = await browser.newPage()
  try {
    await page.evaluateOnNewDocument(() => {
      const play = HTMLMediaElement.prototype.play
      HTMLMediaElement.prototype.play = function (...a) {
        if (!this.__benchWatched) {
          this.__benchWatched = true
          this.addEventListener('playing', () => {
            window.__benchPlaying ??= performance.now()
          })
        }
        return play.apply(this, a)
      }
    })
    // The screen Lighthouse's mobile profile emulates, set before the page
    // loads so that starting the timespan does not resize it.
    await page.setViewport({ width: 412, height: 823, deviceScaleFactor: 1.75, isMobile: true, hasTouch: true })
    await page.goto(`${app}/`, { waitUntil: 'load', timeout: 60_000 })
    const button = '[data-testid="track-card"] button[aria-label^="Play "]'
    const first = await page.waitForSelector(button, { timeout: 60_000 })
    const title = (await first.evaluate((b) => b.getAttribute('aria-label'))).replace(/^Play /, '')
    // In the middle of the screen, as a thumb finds it: the fixed bottom
    // navigation covers the edge where scrolling into view would leave it.
    await first.evaluate((b) => b.scrollIntoView({ block: 'center' }))
    const span = await startTimespan(page, { flags: { throttlingMethod: 'devtools', screenEmulation: { disabled: true }, onlyCategories: ['performance'], logLevel: 'error' } })
    await first.tap()
    await page.waitForFunction(() => window.__benchPlaying !== undefined, { timeout: 30_000 })
    await page.waitForFunction((t) => [...document.querySelectorAll('[data-testid="player-bar"]')].some((el) => el.textContent.includes(t)), { timeout: 30_000 }, title)
    const r = await span.endTimespan()
    if (!r?.lhr || r.lhr.runtimeError) throw new Error(`lighthouse timespan: ${r?.lhr?.runtimeError?.message ?? 'no result'}`)
    const audits = r.lhr.audits
    const refs = r.lhr.categories.performance.auditRefs.map((a) => audits[a.id]).filter((a) => a && a.scoreDisplayMode !== 'notApplicable' && a.scoreDisplayMode !== 'manual' && a.scoreDisplayMode !== 'informative' && a.score !== null)
    return {
      tbt_ms: audits['total-blocking-time']?.numericValue,
      inp_ms: audits['interaction-to-next-paint']?.numericValue,
      cls: audits['cumulative-layout-shift']?.numericValue,
      applicable: refs.length,
      passed: refs.filter((a) => a.score >= 0.9).length,
      failing: refs.filter((a) => a.score < 0.9).map((a) => a.id),
    }
  } finally {
    await page.close()
    browser.disconnect()
  }
}

let code = 0
try {
  await main()
} catch (e) {
  console.error(String(e?.stack ?? e))
  code = 1
} finally {
  await stop()
}
process.exit(code)
