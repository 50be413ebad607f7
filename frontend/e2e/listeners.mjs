// Listeners' journeys: search with a typo and play the result, share a
// track and open the link elsewhere (and what a chat app's crawler is
// answered), follow an artist and see their new release raise the badge
// live.
import assert from 'node:assert/strict'

/** register adds the journeys to the suite; h carries run.mjs's helpers. */
export function register(test, h) {
  const { app, newPage, mobile, desktop, rest, psql, adminCreateUser, signIn, fixture, newTrack } = h
  // A word no other test uses, so a search finds only this run's track.
  const word = () =>
    Array.from({ length: 8 }, () => 'bcdfghjklmnprstvz'[Math.floor(Math.random() * 17)])
      .join('')
      .replace(/^./, (c) => c.toUpperCase())

  test('listeners: search with a typo finds the track and plays it (390 px, the Search tab; 1440 px, the top bar)', async () => {
    const { artistId } = await fixture()
    const name = `${word()}ọ́la`
    const t = await newTrack({ artistId, label: 'Search' })
    await rest(`tracks?id=eq.${t.id}`, { method: 'PATCH', body: { title: `${name} Anthem` } })
    const { context, page } = await newPage(mobile)
    await page.goto(app)
    await page.getByRole('navigation', { name: 'Bottom' }).getByRole('link', { name: 'Search' }).click()
    await page.waitForURL(/\/search/)
    // One letter dropped, the accent left out.
    const typo = `${name.slice(0, 3)}${name.slice(4)}`.normalize('NFD').replace(/\p{M}/gu, '')
    await page.getByRole('searchbox', { name: 'Search' }).fill(typo)
    const play = page.getByTestId('search-tracks').getByRole('button', { name: `Play ${name} Anthem` })
    await play.waitFor({ timeout: 15000 })
    await play.click()
    await page.getByTestId('player-bar').waitFor()
    await page.getByTestId('search-tracks').getByRole('button', { name: `Pause ${name} Anthem` }).waitFor()
    // The search is kept on the device.
    await page.getByRole('searchbox', { name: 'Search' }).fill('')
    await page.getByRole('list', { name: 'Recent searches' }).getByText(typo).waitFor()
    await context.close()

    // At 1440 px the top bar's box searches as one types.
    const wide = await newPage(desktop)
    await wide.page.goto(app)
    await wide.page.getByRole('searchbox', { name: 'Search tracks, artists, sponsors and playlists' }).pressSequentially(typo)
    await wide.page.getByTestId('search-tracks').getByRole('button', { name: `Play ${name} Anthem` }).waitFor({ timeout: 15000 })
    await wide.context.close()
  })

  test('listeners: share a track and open the link in a new context; a crawler gets its preview', async () => {
    const { artistId } = await fixture()
    const t = await newTrack({ artistId, label: 'Share' })
    const { context, page } = await newPage(desktop)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app })
    await page.goto(`${app}/profile/${artistId}`)
    const hasShare = await page.evaluate(() => typeof navigator.share === 'function')
    assert.equal(hasShare, false, 'desktop Chromium on Linux has no share sheet: the link is copied')
    await page.getByRole('button', { name: `Share ${t.title}` }).first().click()
    await page.getByText('Link copied to clipboard!').waitFor()
    const link = await page.evaluate(() => navigator.clipboard.readText())
    assert.equal(link, `${app}/track/${t.id}`)
    await context.close()

    const other = await newPage(mobile)
    await other.page.goto(link)
    await other.page.getByRole('heading', { name: t.title }).waitFor()
    await other.page.getByRole('button', { name: `Play ${t.title}` }).waitFor()
    await other.context.close()

    // A chat app fetching the link is answered with the track's Open Graph tags.
    const crawled = await (await fetch(link, { headers: { 'user-agent': 'WhatsApp/2.23.20.0 A' } })).text()
    assert.match(crawled, new RegExp(`<meta property="og:title" content="${t.title}">`))
    assert.match(crawled, /<meta property="og:description" content="Song by [^"]+ on Backline">/)
    const browser = await (await fetch(link)).text()
    assert.doesNotMatch(browser, /og:title/, 'browsers get the app shell as it is')
  })

  test("listeners: follow an artist, the artist uploads, the follower's badge goes up live", async () => {
    const stamp = Date.now()
    const artistId = await adminCreateUser({ email: `follow-artist${stamp}@e2e.backline.test`, password: 'artist-password-123', role: 'artist', username: `followed${stamp}` })
    const email = `follower${stamp}@e2e.backline.test`
    const password = 'fan-password-123'
    const fanId = await adminCreateUser({ email, password, role: 'fan', username: `follower${stamp}` })
    const { context, page } = await newPage(mobile)
    await signIn(page, email, password)
    await page.goto(`${app}/profile/${artistId}`)
    await page.getByTestId('follower-count').filter({ hasText: /^0$/ }).waitFor()
    await page.getByRole('button', { name: 'Follow', exact: true }).click()
    await page.getByRole('button', { name: 'Following', pressed: true }).waitFor()
    await page.getByTestId('follower-count').filter({ hasText: /^1$/ }).waitFor()
    assert.deepEqual(await rest(`follows?follower_id=eq.${fanId}&select=artist_id`), [{ artist_id: artistId }])

    await page.locator('button[aria-label="Notifications"][data-live="true"]').waitFor({ timeout: 15_000 })
    const unread = Number(psql(`SELECT count(*) FROM public.notifications WHERE user_id = '${fanId}' AND NOT is_read`))
    const badgeShows = (want) =>
      page.waitForFunction((w) => Number(document.querySelector('[data-testid="unread-badge"]')?.textContent ?? 0) === w, want, { timeout: 15_000 })
    await badgeShows(unread)
    const t = await newTrack({ artistId, label: 'Release' })
    await badgeShows(unread + 1)
    await page.getByRole('button', { name: 'Notifications' }).click()
    await page.getByText(`released "${t.title}"`).waitFor()
    await context.close()
  })
}
