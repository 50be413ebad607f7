// Money journeys through the dashboards, end to end in the browser: an
// artist uploads a track (resumable, with progress), a sponsor tops up in
// the payment sandbox and invites the artist, the artist accepts in the
// notifications panel while the sponsor's dashboard is open and follows, a
// fan streams for 30 s and both open dashboards show the ₦50 (realtime, no
// reload), the artist cashes out ₦1,000 and a concurrent over-balance
// request is refused. Screenshots of every dashboard at both sizes.
import assert from 'node:assert/strict'

/** register adds the journeys to the suite; h carries run.mjs's helpers. */
export function register(test, h) {
  const { app, api, anonKey, newPage, mobile, desktop, shots, rest, psql, adminCreateUser, signIn, toneWav, pngImage, balance } = h
  const people = {}
  const stamp = Date.now()
  const make = async (role) => {
    const email = `${role}${stamp}@e2e.backline.test`
    const password = `${role}-password-123`
    const id = await adminCreateUser({ email, password, role, username: `d${role}${stamp}` })
    people[role] = { id, email, password, name: `d${role}${stamp}` }
    return people[role]
  }
  const shoot = async (page, name) => {
    for (const viewport of [mobile, desktop]) {
      await page.setViewportSize(viewport)
      // The page has the new size and has painted a frame laid out for it.
      await page.waitForFunction((w) => window.innerWidth === w, viewport.width)
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
      await page.screenshot({ path: `${shots}/${name}-${viewport.width}x${viewport.height}.png`, fullPage: false })
    }
  }
  const noSidewaysScroll = async (page, path) => {
    await page.setViewportSize({ width: 360, height: 740 })
    await page.goto(`${app}${path}`)
    await page.locator('h1').first().waitFor()
    // Measure the page as it settles: nothing on screen is still loading
    // (sections further down load only when scrolled to).
    await page.waitForFunction(
      () => ![...document.querySelectorAll('[data-slot="skeleton"], [aria-busy="true"]')].some((e) => e.getBoundingClientRect().top < window.innerHeight),
      null,
      { timeout: 15000 },
    )
    // What a person can do: try to scroll the page sideways; and what the
    // layout says: nothing wider than the screen (no clipping hides it).
    const over = await page.evaluate(() => {
      window.scrollTo(10000, window.scrollY)
      const x = window.scrollX
      window.scrollTo(0, window.scrollY)
      return Math.max(x, document.documentElement.scrollWidth - document.documentElement.clientWidth)
    })
    // Name the widest elements, so a failure says what overflows.
    const culprits = over > 0 ? await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 5).map((e) => `${e.tagName.toLowerCase()}.${String(e.className).slice(0, 60)}`)) : []
    assert.ok(over <= 0, `${path} scrolls sideways by ${over}px at 360 px: ${culprits.join(' | ')}`)
  }
  /** stayPut starts watching a page: the check it returns fails if the page navigated or reloaded since. */
  const stayPut = async (page) => {
    let navigations = 0
    page.on('framenavigated', (f) => f === page.mainFrame() && navigations++)
    await page.evaluate(() => {
      window.__e2eSamePage = true
    })
    return async (what) => {
      assert.equal(navigations, 0, `${what}: the page navigated`)
      assert.equal(await page.evaluate(() => window.__e2eSamePage === true), true, `${what}: the page was reloaded`)
    }
  }
  /** liveDashboard signs someone in on their dashboard and waits until it follows their rows in realtime. */
  const liveDashboard = async (who, role) => {
    const p = await newPage(desktop)
    await signIn(p.page, who.email, who.password)
    await p.page.locator(`[data-testid="${role}-dashboard"][data-live="true"]`).waitFor({ timeout: 15000 })
    p.samePage = await stayPut(p.page)
    return p
  }
  /** LIVE_MS bounds how long a change may take to reach an open dashboard. */
  const LIVE_MS = 5000
  const trackTitle = `Dash Upload ${stamp}`

  test('dashboards: the artist uploads a track with progress and it appears on home', async () => {
    const artist = await make('artist')
    await make('sponsor')
    await make('fan')
    const { context, page } = await newPage(desktop)
    await signIn(page, artist.email, artist.password)
    await page.getByRole('heading', { name: 'Artist Dashboard' }).waitFor()
    await page.getByRole('button', { name: 'Upload track' }).click()
    await page.setInputFiles('#track-audio', { name: 'dash-tone.wav', mimeType: 'audio/wav', buffer: toneWav(60) })
    // The dialog reads the file's length in the browser before uploading anything.
    await page.getByTestId('audio-length').getByText('1:00').waitFor({ timeout: 10000 })
    await page.setInputFiles('#track-cover', { name: 'dash-cover.png', mimeType: 'image/png', buffer: pngImage(64, [30, 120, 200]) })
    await page.getByRole('img', { name: 'Cover preview' }).waitFor()
    await page.fill('#track-title', trackTitle)
    await page.selectOption('#track-genre', 'Afrobeats')
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    await page.getByRole('progressbar', { name: 'Upload progress' }).waitFor({ timeout: 10000 })
    await page.getByText('Track uploaded').waitFor({ timeout: 30000 })
    const row = page.getByTestId('artist-track-row').filter({ hasText: trackTitle })
    await row.waitFor()
    // The length is the server's measurement of the file (60 s), not a claim.
    await row.getByText('1:00').waitFor({ timeout: 10000 })
    const [t] = await rest(`tracks?title=eq.${encodeURIComponent(trackTitle)}&select=id,duration,audio_url`)
    assert.equal(t.duration, 60)
    assert.match(t.audio_url, new RegExp(`^/storage/v1/object/public/tracks/${artist.id}/`))
    people.track = t
    await shoot(page, 'dashboard-artist')
    await context.close()
    // Home (mobile lists the recently added tracks).
    const home = await newPage(mobile)
    await home.page.goto(app)
    await home.page.getByText(trackTitle).first().waitFor({ timeout: 15000 })
    await home.context.close()
  })

  test('dashboards: the sponsor tops up in the sandbox (credited once) and invites the artist', async () => {
    const { sponsor, artist } = people
    const { context, page } = await newPage(desktop)
    await signIn(page, sponsor.email, sponsor.password)
    await page.getByRole('heading', { name: 'Sponsor Dashboard' }).waitFor()
    await page.getByTestId('low-balance').waitFor()
    await page.getByRole('button', { name: 'Top up' }).click()
    await page.fill('#topup-amount', '5000')
    await page.getByRole('button', { name: /^Pay ₦/ }).click()
    await page.getByText('Sandbox Flutterwave checkout').waitFor({ timeout: 15000 })
    await page.getByRole('button', { name: /^Pay NGN/ }).click()
    // Back on /dashboard: verified, credited, and on the sponsor dashboard well within 7 s.
    const back = Date.now()
    await page.getByText('Wallet top-up successful! ₦5,000 has been added to your wallet.').waitFor({ timeout: 7000 })
    await page.waitForURL(/\/dashboard\/sponsor$/, { timeout: 7000 - (Date.now() - back) })
    await page.getByTestId('wallet-balance').getByText('₦5,000').waitFor({ timeout: 5000 })
    assert.equal(await balance(sponsor.id), 5000)
    // The same return again, in another tab (a new session, so the app asks
    // the server again), credits nothing: the server answers it was done.
    const [p] = await rest(`payments?user_id=eq.${sponsor.id}&select=tx_ref`)
    const again = await context.newPage()
    const verified = again.waitForResponse((r) => r.url().endsWith('/functions/v1/flutterwave-verify'), { timeout: 15000 })
    await again.goto(`${app}/dashboard?gateway=flutterwave&status=successful&tx_ref=${p.tx_ref}`)
    const answer = await (await verified).json()
    assert.equal(answer.success, true, JSON.stringify(answer))
    assert.equal(answer.data.already_processed, true, JSON.stringify(answer))
    await again.waitForURL(/\/dashboard\/sponsor$/, { timeout: 7000 })
    assert.equal(await balance(sponsor.id), 5000, 'a reference is credited once')
    await again.close()

    await page.getByLabel('Search artists').fill(artist.name)
    const card = page.getByTestId('browse-artist').filter({ hasText: artist.name })
    await card.getByRole('button', { name: `Invite for ${trackTitle}` }).click()
    // The dialog names the track (required); the invite is stored for it.
    assert.equal(await page.locator('#invite-track').inputValue(), people.track.id)
    await page.fill('#invite-pitch', 'Your tone is the sound of the summer')
    await page.getByRole('button', { name: 'Send invitation' }).click()
    await page.getByText('Invitation sent').waitFor()
    assert.deepEqual(await rest(`sponsor_artist_invites?sponsor_id=eq.${sponsor.id}&select=track_id`), [{ track_id: people.track.id }])
    await page.getByTestId('invite').filter({ hasText: 'Pending' }).waitFor()
    await shoot(page, 'dashboard-sponsor')
    await context.close()
  })

  test("dashboards: the artist accepts in the notifications panel, the sponsor's open dashboard follows without a reload; a second answer is refused", async () => {
    const { artist, sponsor } = people
    // The sponsor's dashboard is open before the artist answers.
    const s = await liveDashboard(sponsor, 'sponsor')
    const sponsorInvite = s.page.getByTestId('invite').filter({ hasText: trackTitle })
    await sponsorInvite.getByText('Pending').waitFor()
    const { context, page } = await newPage(desktop)
    await signIn(page, artist.email, artist.password)
    await page.getByRole('button', { name: 'Notifications' }).click()
    const item = page.getByRole('listitem').filter({ hasText: 'Your tone is the sound of the summer' })
    await item.getByRole('button', { name: 'Accept' }).click()
    await page.getByText('Invitation Accepted').first().waitFor()
    const accepted = Date.now()
    await sponsorInvite.getByText('Accepted').waitFor({ timeout: LIVE_MS })
    await s.page.getByTestId('sponsored-tracks').getByText(trackTitle).waitFor({ timeout: LIVE_MS - (Date.now() - accepted) })
    console.log(`    the sponsor's open dashboard showed the acceptance ${Date.now() - accepted} ms after it`)
    await s.samePage("the sponsor's dashboard")
    await s.context.close()
    await item.getByTestId('invite-state').getByText('Accepted').waitFor()
    const [t] = await rest(`tracks?id=eq.${people.track.id}&select=is_sponsored,sponsor_id`)
    assert.deepEqual(t, { is_sponsored: true, sponsor_id: sponsor.id })
    // The database refuses a second answer, whatever the client sends.
    const token = await page.evaluate(() => JSON.parse(localStorage.getItem(Object.keys(localStorage).find((k) => k.endsWith('-auth-token')))).access_token)
    const [inv] = await rest(`sponsor_artist_invites?track_id=eq.${people.track.id}&select=id`)
    const res = await fetch(`${api}/rest/v1/rpc/respond_to_invite`, {
      method: 'POST',
      headers: { apikey: anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ p_invite_id: inv.id, p_accept: false }),
    })
    assert.equal(res.status, 400)
    assert.equal((await res.json()).message, 'This invitation has already been answered')
    people.artistToken = token
    await context.close()
  })

  test("dashboards: a fan streams 30 s and both open dashboards show the ₦50 without a reload", async () => {
    const { fan, artist, sponsor } = people
    // Both dashboards are open, and live, before the fan plays.
    const a = await liveDashboard(artist, 'artist')
    const s = await liveDashboard(sponsor, 'sponsor')
    await a.page.getByTestId('wallet-balance').getByText('₦0').waitFor()
    await s.page.getByTestId('wallet-balance').getByText('₦5,000').waitFor()
    const { context, page } = await newPage(desktop)
    await signIn(page, fan.email, fan.password)
    await page.goto(`${app}/profile/${artist.id}`)
    await page.getByRole('button', { name: `Play ${trackTitle}` }).first().click()
    await page.getByText('Sponsored stream counted!').waitFor({ timeout: 50000 })
    const paid = Date.now()
    const left = () => Math.max(1, LIVE_MS - (Date.now() - paid))
    await a.page.getByTestId('wallet-balance').getByText('₦50').waitFor({ timeout: left() })
    await a.page.getByTestId('artist-track-row').filter({ hasText: trackTitle }).getByText('₦50').waitFor({ timeout: left() })
    await s.page.getByTestId('wallet-balance').getByText('₦4,950').waitFor({ timeout: left() })
    await s.page.getByTestId('sponsored-artists').getByText('₦50').waitFor({ timeout: left() })
    console.log(`    both open dashboards showed the ₦50 ${Date.now() - paid} ms after the payment`)
    await a.samePage("the artist's dashboard")
    await s.samePage("the sponsor's dashboard")
    // Leaving the dashboard leaves its channels (the app's other ones stay).
    await a.page.getByRole('link', { name: 'Charts' }).first().click()
    await a.page.getByRole('heading', { name: 'Charts' }).waitFor()
    await a.page.waitForFunction(() => {
      const live = window.__backlineLive?.() ?? []
      return live.some((t) => t.startsWith('live:suspension:')) && !live.some((t) => /^live:(wallets|sponsor_artist_invites|cashout_requests|kyc_submissions):/.test(t))
    }, null, { timeout: 5000 })
    await a.context.close()
    await s.context.close()
    // The fan listens on past the stream's 30 s and pauses: the player
    // reports the whole listen, which the history then shows.
    await page.waitForFunction(() => document.querySelector('[data-testid="player-audio"]')?.currentTime >= 36, null, { timeout: 30000 })
    const reported = page.waitForResponse((r) => r.url().includes('/rest/v1/rpc/record_listen'))
    await page.getByRole('button', { name: 'Pause' }).first().click()
    assert.equal((await reported).status(), 200)
    const played = await page.evaluate(() => document.querySelector('[data-testid="player-audio"]').currentTime)
    const listened = Number(psql(`SELECT listened_seconds FROM public.play_sessions WHERE user_id = '${fan.id}' AND stream_id IS NOT NULL ORDER BY started_at DESC LIMIT 1`))
    assert.ok(listened >= 35 && listened <= Math.ceil(played) + 1, `the play kept ${listened} s of ${played} s played`)
    await page.goto(`${app}/dashboard/fan`)
    const listen = page.getByTestId('history-item').filter({ hasText: trackTitle })
    await listen.getByText(/Counted/).waitFor()
    await listen.getByText(`listened ${Math.floor(listened / 60)}:${String(listened % 60).padStart(2, '0')}`).waitFor()
    // The cover the artist uploaded, from the history itself, resized by
    // storage's image transform to the size shown.
    const [{ cover_url: cover }] = await rest(`tracks?title=eq.${encodeURIComponent(trackTitle)}&select=cover_url`)
    assert.match(cover, /^\/storage\/v1\/object\/public\/covers\/[^/]+\/.+/)
    const rendered = cover.replace('/storage/v1/object/public/', '/storage/v1/render/image/public/')
    await listen.scrollIntoViewIfNeeded()
    const img = await listen.locator('img').elementHandle()
    await page.waitForFunction(([el, path]) => decodeURIComponent(new URL(el.src).pathname) === path && el.complete && el.naturalWidth > 0, [img, rendered], { timeout: 10000 })
    await page.getByTestId('reset-countdown').waitFor()
    await shoot(page, 'dashboard-fan')
    await noSidewaysScroll(page, '/charts')
    await noSidewaysScroll(page, '/dashboard/fan')
    await context.close()
    assert.equal(await balance(artist.id), 50)
    assert.equal(await balance(sponsor.id), 4950)
  })

  test("dashboards: each dashboard's first screen comes from at most 3 requests", async () => {
    const failures = []
    // The admin dashboard's first screen is its default section (users).
    for (const role of ['artist', 'sponsor', 'fan', 'admin']) {
      const email = `first${role}${stamp}@e2e.backline.test`
      const id = await adminCreateUser({ email, password: 'first-screen-123', role: role === 'admin' ? 'fan' : role, username: `f${role}${stamp}` })
      if (role === 'admin') psql(`SELECT backline.promote_to_admin('${id}')`)
      const { context, page } = await newPage(desktop)
      await signIn(page, email, 'first-screen-123')
      // Let the page sign-in landed on finish first, so none of its
      // requests is counted as the fresh load's.
      await page.waitForLoadState('networkidle')
      // A fresh load of the dashboard, signed in: count what it asks the API
      // for until the page is quiet. Token refreshes and the realtime socket
      // are not data requests.
      const seen = []
      page.on('request', (r) => {
        const u = new URL(r.url())
        if (r.url().startsWith(api) && !u.pathname.startsWith('/auth/v1/') && !u.pathname.startsWith('/realtime/v1/') && r.method() !== 'OPTIONS') seen.push(`${r.method()} ${u.pathname}`)
      })
      await page.goto(`${app}/dashboard/${role}`)
      const first = { artist: 'wallet-balance', sponsor: 'wallet-balance', fan: 'reset-countdown', admin: 'admin-users' }[role]
      await page.getByTestId(first).waitFor({ timeout: 15000 })
      await page.waitForLoadState('networkidle')
      console.log(`    ${role}: ${seen.length} requests: ${seen.join(', ')}`)
      if (seen.length > 3) failures.push(`${role} dashboard's first screen made ${seen.length} requests: ${seen.join(', ')}`)
      await context.close()
    }
    assert.deepEqual(failures, [])
  })

  test('dashboards: the artist cashes out ₦1,000 (held at once); concurrent over-balance requests are refused', async () => {
    const { artist } = people
    psql(`SELECT backline.fund_wallet('${artist.id}', 950, 'e2e-cashout-${stamp}')`)
    const { context, page } = await newPage(desktop)
    await signIn(page, artist.email, artist.password)
    await page.getByTestId('wallet-balance').getByText('₦1,000').waitFor()
    await page.getByRole('button', { name: 'Cash out' }).click()
    await page.fill('#cashout-amount', '1000')
    await page.selectOption('#cashout-bank', 'Zenith Bank')
    await page.fill('#cashout-number', '0123456789')
    await page.fill('#cashout-name', 'Dash Artist')
    await page.getByRole('button', { name: 'Request cash-out' }).click()
    await page.getByText('Cash-out requested').waitFor()
    await page.getByTestId('wallet-held').getByText('₦1,000').waitFor()
    await page.getByTestId('wallet-balance').getByText('₦0').waitFor()
    await page.getByTestId('cashouts').getByText('Pending').waitFor()
    // Two ₦600 requests at once against ₦1,000: the database holds one.
    psql(`SELECT backline.fund_wallet('${artist.id}', 1000, 'e2e-cashout2-${stamp}')`)
    const token = await page.evaluate(() => JSON.parse(localStorage.getItem(Object.keys(localStorage).find((k) => k.endsWith('-auth-token')))).access_token)
    const ask = () =>
      fetch(`${api}/rest/v1/rpc/request_cashout`, {
        method: 'POST',
        headers: { apikey: anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ p_amount: 1000, p_bank_name: 'Zenith Bank', p_account_number: '0123456789', p_account_name: 'Dash Artist' }),
      }).then(async (r) => ({ status: r.status, body: await r.json() }))
    const results = await Promise.all([ask(), ask()])
    const ok = results.filter((r) => r.status === 200)
    const refused = results.filter((r) => r.status !== 200)
    assert.equal(ok.length, 1, JSON.stringify(results))
    assert.deepEqual(refused, [{ status: 400, body: { code: 'P0001', details: null, hint: null, message: 'Insufficient balance. Has ₦0, needs ₦1,000' } }])
    assert.equal(await balance(artist.id), 0)
    await noSidewaysScroll(page, '/dashboard/artist')
    await context.close()
  })
}
