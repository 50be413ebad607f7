// Every route for every role at 360×740, 390×844 and 1440×900: no page
// scrolls sideways, nothing sticks out past the screen (unless it sits in a
// container made to scroll or clip), and every action of a table or of its
// phone cards can be seen and clicked. Signs in the demo seed's accounts
// (sql/seed), so it needs `basalt dev`'s seed. One browser, one page per
// role, routes opened inside the running app (as a tap on a link does), each
// checked at the three sizes; screenshots in screenshots/layout/.
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'

export const SIZES = [
  { width: 360, height: 740 },
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
]

const SEED_PASSWORD = 'backline123'
const KOLA = '5eed0000-0000-4000-8000-000000000011'

const ADA = '5eed0000-0000-4000-8000-000000000031'
/** seedId is the seed's id for a name: md5(name)::uuid, as sql/seed writes them. */
const seedId = (name) => createHash('md5').update(name).digest('hex').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5')
/** LAYOUT_PLAYLIST is a public playlist the run creates for ada (the seed has none). */
const LAYOUT_PLAYLIST = seedId('layout-playlist')

const PUBLIC = [
  '/', '/artists', '/sponsors', '/charts', '/profiles', '/profiles/kolaade', `/profile/${KOLA}`, '/about', '/faq', '/support', '/terms', '/privacy', '/copyright', '/aml-policy', '/no/such/page',
  '/search', '/search?q=lagos', `/track/${seedId('seed-track-lagos-sunrise')}`, `/playlists/${LAYOUT_PLAYLIST}`, '/offline',
]
const VISITOR_ONLY = ['/register', '/register/fan', '/register/artist', '/register/sponsor', '/login', '/forgot-password', '/reset-password']
const SIGNED_IN = ['/profile', '/favorites', '/playlist', '/playlists/liked', '/following', '/verification', '/verification/success']
const ADMIN_SECTIONS = ['users', 'activities', 'tracks', 'cashouts', 'verifications', 'sponsorships', 'transactions', 'system']

/** ROLES lists who signs in and what each of them opens, beyond the public routes. */
const ROLES = [
  { role: 'visitor', routes: [...PUBLIC, ...VISITOR_ONLY] },
  { role: 'fan', email: 'ada@backline.test', routes: [...PUBLIC, ...SIGNED_IN, '/dashboard/fan'] },
  { role: 'artist', email: 'kola@backline.test', routes: [...PUBLIC, ...SIGNED_IN, '/dashboard/artist', '/dashboard/artist/statement'] },
  { role: 'sponsor', email: 'lagoon@backline.test', routes: [...PUBLIC, ...SIGNED_IN, '/dashboard/sponsor', '/transactions'] },
  {
    role: 'admin',
    email: 'admin@backline.test',
    routes: [...PUBLIC, ...SIGNED_IN, ...ADMIN_SECTIONS.map((s) => `/dashboard/admin/${s}`), '/dashboard/fan', '/dashboard/artist', '/dashboard/sponsor', '/transactions'],
  },
]

/** Pages that must show table actions to the role: a layout that hides them fails here. */
const MUST_ACT = {
  artist: { '/dashboard/artist': ['Pitch', 'Edit ', 'Delete '] },
  admin: { '/dashboard/admin/cashouts': ['Complete', 'Reject'], '/dashboard/admin/users': ['Open '], '/dashboard/admin/verifications': ['Approve', 'Reject'] },
}

/** overflowIn lists what sticks out sideways, in the page (run with page.evaluate). */
function overflowIn() {
  const vw = window.innerWidth
  const problems = []
  const se = document.scrollingElement
  if (se.scrollWidth > vw) problems.push(`the page is ${se.scrollWidth}px wide`)
  const name = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.getAttribute('data-testid') ? `[${e.getAttribute('data-testid')}]` : ''}.${String(e.className).slice(0, 50)} "${(e.textContent ?? '').trim().slice(0, 30)}"`
  // A container that scrolls or clips sideways is meant to hold wider content.
  const held = (e) => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      if (getComputedStyle(p).overflowX !== 'visible') return true
    }
    return false
  }
  // A table never scrolls sideways: it fits as cards or fewer columns.
  for (const t of document.querySelectorAll('table')) {
    for (let p = t.parentElement; p && p !== document.body; p = p.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX) && p.scrollWidth > p.clientWidth + 1) {
        problems.push(`${name(t)} scrolls sideways in ${name(p)} (${p.scrollWidth}px in ${p.clientWidth}px)`)
        break
      }
    }
  }
  for (const e of document.body.querySelectorAll('*')) {
    const r = e.getBoundingClientRect()
    if (r.width === 0 || r.height === 0) continue
    if (r.right <= vw + 0.5 && r.left >= -0.5) continue
    if (getComputedStyle(e).visibility === 'hidden' || held(e)) continue
    problems.push(`${name(e)} spans ${Math.round(r.left)}..${Math.round(r.right)}px`)
    if (problems.length >= 6) break
  }
  return problems
}

/**
 * actionsIn checks every action of every table row or row card (run with
 * page.evaluate): scrolled to vertically (never sideways), it must be inside
 * the screen and be what a tap at its centre hits.
 */
async function actionsIn() {
  const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
  const rows = [...document.querySelectorAll('table tbody tr, [data-slot="row-card"]')]
  const found = []
  const problems = []
  const label = (e) => (e.getAttribute('aria-label') || e.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 40)
  for (const row of rows) {
    const acts = [...row.querySelectorAll('button, a[href], [role="button"], select, input:not([type="hidden"])')]
    if (row.getAttribute('role') === 'button') acts.push(row)
    for (const a of acts) {
      const what = label(a)
      found.push(what)
      // Clear of the fixed top bar and the bottom bars, or scrolled there (down only, never sideways).
      const before = a.getBoundingClientRect()
      if (before.top < 80 || before.bottom > window.innerHeight - 170) {
        window.scrollTo(0, Math.max(0, before.top + window.scrollY - window.innerHeight / 3))
        await frame()
      }
      const r = a.getBoundingClientRect()
      if (r.width === 0 || r.height === 0) {
        problems.push(`"${what}" is not shown`)
        continue
      }
      const x = r.left + r.width / 2
      const y = r.top + r.height / 2
      if (x < 0 || x > window.innerWidth || y < 0 || y > window.innerHeight) {
        problems.push(`"${what}" is off screen at ${Math.round(r.left)}..${Math.round(r.right)}px`)
        continue
      }
      const hit = document.elementFromPoint(x, y)
      // A disabled button lets taps through to its wrapper (which carries its tooltip).
      if (!hit || !(a.contains(hit) || (hit.contains(a) && row.contains(hit)))) problems.push(`"${what}" is covered by ${hit ? `${hit.tagName.toLowerCase()}.${String(hit.className).slice(0, 40)}` : 'nothing'}`)
    }
  }
  window.scrollTo(0, 0)
  await frame()
  return { found, problems }
}

/** register adds the layout run to the suite; h carries run.mjs's helpers. */
export function register(test, h) {
  const { app, api, anonKey, newPage, shots, psql, signIn, adminCreateUser } = h
  const dir = `${shots}/layout`

  // ada's public playlist of four seeded tracks (the seed has none).
  const layoutPlaylist = () =>
    psql(`INSERT INTO public.playlists (id, user_id, name, is_public, description) VALUES ('${LAYOUT_PLAYLIST}', '${ADA}', 'Lagos on a long bus ride home', true, 'Songs for the third-mainland bridge')
          ON CONFLICT (id) DO NOTHING;
          INSERT INTO public.playlist_tracks (playlist_id, track_id, position)
          SELECT '${LAYOUT_PLAYLIST}', id, row_number() OVER (ORDER BY created_at) FROM public.tracks WHERE status = 'active' LIMIT 4
          ON CONFLICT DO NOTHING`)

  // Rows with actions for the admin's queues: a pending cash-out and a
  // pending KYC submission, made through the API as the seeded artists.
  const fixtures = async () => {
    const token = async (email) => {
      const r = await fetch(`${api}/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: { apikey: anonKey, 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: SEED_PASSWORD }),
      })
      return (await r.json()).access_token
    }
    const rpcAs = async (email, fn, args) => {
      const res = await fetch(`${api}/rest/v1/rpc/${fn}`, {
        method: 'POST',
        headers: { apikey: anonKey, authorization: `Bearer ${await token(email)}`, 'content-type': 'application/json' },
        body: JSON.stringify(args),
      })
      return { status: res.status, body: await res.json() }
    }
    layoutPlaylist()
    psql(`SELECT backline.fund_wallet('${KOLA}', 1500, 'layout-cashout-${Date.now()}')`)
    const cash = await rpcAs('kola@backline.test', 'request_cashout', { p_amount: 1000, p_bank_name: 'Zenith Bank', p_account_number: '0123456789', p_account_name: 'Kola Ade' })
    assert.equal(cash.status, 200, JSON.stringify(cash.body))
    // Every seeded artist's KYC is approved: a new artist submits one.
    const stamp = Date.now()
    const email = `layoutkyc${stamp}@e2e.backline.test`
    await adminCreateUser({ email, password: SEED_PASSWORD, role: 'artist', username: `layoutkyc${stamp}` })
    const kyc = await rpcAs(email, 'submit_kyc', { p_full_name: 'Layout Artist', p_document_type: 'nin', p_document_number: '12345678901' })
    assert.equal(kyc.status, 200, JSON.stringify(kyc.body))
  }

  /** settle waits until the page has nothing in flight and nothing on screen still loading. */
  const settle = async (page, inflight) => {
    const until = Date.now() + 20_000
    while (inflight.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50))
    await page.waitForFunction(
      () =>
        !!document.querySelector('h1') &&
        ![...document.querySelectorAll('[data-slot="skeleton"], [aria-busy="true"]')].some((e) => {
          const r = e.getBoundingClientRect()
          return r.height > 0 && r.top < window.innerHeight && r.bottom > 0
        }),
      null,
      { timeout: 20_000 },
    )
  }

  /** scrollThrough scrolls the page down a screen at a time, so sections that load when seen load. */
  const scrollThrough = (page) =>
    page.evaluate(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
      for (let y = 0; y < document.scrollingElement.scrollHeight; y += window.innerHeight) {
        window.scrollTo(0, y)
        await frame()
      }
      window.scrollTo(0, 0)
      await frame()
    })

  /** go opens a route inside the running app, as following a link does (no reload). */
  const go = (page, path) =>
    page.evaluate((p) => {
      window.history.pushState(null, '', p)
      window.dispatchEvent(new PopStateEvent('popstate', { state: null }))
    }, path)

  test('layout: every route × role at 360, 390 and 1440 px: no sideways scroll, every table action reachable', async () => {
    mkdirSync(dir, { recursive: true })
    await fixtures()
    const failures = []
    let visits = 0
    for (const { role, email, routes } of ROLES) {
      const { context, page } = await newPage(SIZES[2])
      const inflight = new Set()
      page.on('request', (r) => r.resourceType() !== 'websocket' && inflight.add(r))
      page.on('requestfinished', (r) => inflight.delete(r))
      page.on('requestfailed', (r) => inflight.delete(r))
      if (email) await signIn(page, email, SEED_PASSWORD)
      else await page.goto(app)
      await page.locator('h1').first().waitFor()
      for (const path of routes) {
        await go(page, path)
        // The route's code and data requests start within a frame of the navigation.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
        for (const [i, size] of [...SIZES].reverse().entries()) {
          await page.setViewportSize(size)
          await page.waitForFunction((w) => window.innerWidth === w, size.width)
          // Layouts that follow their width (ResizeObserver) have rendered for it.
          await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
          await settle(page, inflight)
          // Once per route is enough for the sections that load when seen.
          if (i === 0) {
            await scrollThrough(page)
            await settle(page, inflight)
          }
          const where = `${role} ${path} at ${size.width}px`
          for (const p of await page.evaluate(overflowIn)) failures.push(`${where}: ${p}`)
          const acts = await page.evaluate(actionsIn)
          for (const p of acts.problems) failures.push(`${where}: ${p}`)
          for (const want of MUST_ACT[role]?.[path] ?? []) {
            if (!acts.found.some((f) => f.startsWith(want))) failures.push(`${where}: no "${want}" action among ${JSON.stringify(acts.found.slice(0, 12))}`)
          }
          const slug = path === '/' ? 'home' : path.slice(1).replace(/[^a-z0-9]+/gi, '-').slice(0, 50)
          await page.screenshot({ path: `${dir}/${role}-${slug}-${size.width}x${size.height}.png` })
          visits++
        }
      }
      await context.close()
    }
    console.log(`    ${visits} route × role × size checks`)
    // At most three lines per page and size, so every failing page shows.
    const shown = new Map()
    for (const f of failures) {
      const where = f.slice(0, f.indexOf(': '))
      const n = (shown.get(where) ?? 0) + 1
      shown.set(where, n)
      if (n <= 3) console.log(`    ${f}`)
      else if (n === 4) console.log(`    ${where}: …`)
    }
    assert.equal(failures.length, 0, `${failures.length} layout problems (listed above)`)
  })

  test('layout: on a phone, toasts sit above the bottom navigation and the player bar', async () => {
    mkdirSync(dir, { recursive: true })
    const { context, page } = await newPage(SIZES[1])
    await page.goto(`${app}/charts`)
    await page.getByRole('main').getByRole('button', { name: /^Play / }).first().click()
    const bar = page.getByTestId('player-bar')
    await bar.waitFor()
    // A visitor's like asks them to sign in: a toast while the player bar is up.
    await bar.getByRole('button', { name: 'Like' }).filter({ visible: true }).first().click()
    const toast = page.locator('[data-sonner-toast]').filter({ hasText: 'Sign in to like tracks' })
    await toast.waitFor()
    // Where it rests once its entry animation is over.
    await page.waitForFunction(() => [...document.querySelectorAll('[data-sonner-toast]')].every((t) => t.getAnimations().every((a) => a.playState !== 'running')))
    const box = await toast.boundingBox()
    const barBox = await bar.boundingBox()
    const nav = await page.getByRole('navigation', { name: 'Bottom' }).boundingBox()
    assert.ok(box.y + box.height <= barBox.y, `the toast (bottom ${box.y + box.height}) covers the player bar (top ${barBox.y})`)
    assert.ok(box.y + box.height <= nav.y, `the toast (bottom ${box.y + box.height}) covers the bottom navigation (top ${nav.y})`)
    await page.screenshot({ path: `${dir}/toast-over-player-390x844.png` })
    await context.close()
  })

  test('layout: the playlist description editor and the queue editor at 360 and 390 px: nothing sideways, every control in reach', async () => {
    mkdirSync(dir, { recursive: true })
    layoutPlaylist()
    const failures = []
    // inReach: each control inside the screen and what a tap at its centre hits.
    const inReach = (selector) =>
      page.evaluate((sel) => {
        const problems = []
        for (const a of document.querySelectorAll(sel)) {
          a.scrollIntoView({ block: 'center', inline: 'nearest' })
          const r = a.getBoundingClientRect()
          const what = a.getAttribute('aria-label') || a.textContent.trim()
          if (r.left < 0 || r.right > window.innerWidth) problems.push(`"${what}" spans ${Math.round(r.left)}..${Math.round(r.right)}px`)
          const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
          if (!hit || !a.contains(hit)) problems.push(`"${what}" is covered`)
        }
        return problems
      }, selector)
    let page
    for (const size of SIZES.slice(0, 2)) {
      const opened = await newPage(size)
      page = opened.page
      await signIn(page, 'ada@backline.test', SEED_PASSWORD)
      await go(page, `/playlists/${LAYOUT_PLAYLIST}`)
      await page.getByRole('button', { name: 'Edit description' }).click()
      await page.getByRole('textbox', { name: 'Playlist description' }).waitFor()
      const where = `ada's playlist, editing its description, at ${size.width}px`
      for (const p of await page.evaluate(overflowIn)) failures.push(`${where}: ${p}`)
      for (const p of await inReach('[data-testid="playlist-description-editor"] :is(button, textarea)')) failures.push(`${where}: ${p}`)
      await page.screenshot({ path: `${dir}/playlist-description-${size.width}x${size.height}.png` })
      // The owner saves a description; it shows and is stored (then put back for the other checks).
      const said = `Songs for the bridge at ${size.width} px`
      await page.getByRole('textbox', { name: 'Playlist description' }).fill(said)
      await page.getByRole('button', { name: 'Save description' }).click()
      await page.getByRole('main').getByText(said, { exact: true }).waitFor()
      assert.equal(psql(`SELECT description FROM public.playlists WHERE id = '${LAYOUT_PLAYLIST}'`), said)
      psql(`UPDATE public.playlists SET description = 'Songs for the third-mainland bridge' WHERE id = '${LAYOUT_PLAYLIST}'`)
      // The "Description saved" toast goes before the queue is checked: it
      // would cover the queue's first row, as any toast covers what is under it.
      await page.locator('[data-sonner-toast]').first().waitFor({ state: 'detached', timeout: 15000 })

      // Played from the playlist, the rest of it is the queue; the editor lists it.
      await page.getByRole('main').getByRole('button', { name: /^Play .+/ }).nth(1).click()
      await page.getByRole('button', { name: 'Expand player' }).filter({ visible: true }).first().click()
      await page.getByTestId('up-next').waitFor()
      const q = `the queue editor at ${size.width}px`
      for (const p of await page.evaluate(overflowIn)) failures.push(`${q}: ${p}`)
      for (const p of await inReach('[data-testid="up-next"] button:not([disabled])')) failures.push(`${q}: ${p}`)
      await page.screenshot({ path: `${dir}/queue-editor-${size.width}x${size.height}.png` })
      await opened.context.close()
    }
    for (const f of failures) console.log(`    ${f}`)
    assert.equal(failures.length, 0, `${failures.length} layout problems (listed above)`)
  })
}
