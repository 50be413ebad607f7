// A listener's player, end to end in the browser at both sizes: playing from
// the charts queues the chart (Next plays the second entry), shuffle and
// repeat, the queue kept across a reload, the lock-screen metadata (Media
// Session), and offline listening: a download played from the Offline
// library with no network, which never becomes a stream.
import assert from 'node:assert/strict'

/** register adds the journeys to the suite; h carries run.mjs's helpers. */
export function register(test, h) {
  const { app, api, newPage, mobile, desktop, shots, rest, psql, adminCreateUser, signIn, newTrack, fixture } = h
  const stamp = Date.now()
  let fans = 0
  const newFan = async () => {
    const n = ++fans
    const email = `listener${stamp}-${n}@e2e.backline.test`
    const password = 'listener-password-123'
    await adminCreateUser({ email, password, role: 'fan', username: `listener${stamp}x${n}` })
    return { email, password }
  }

  const audio = (page) => page.getByTestId('player-audio')
  // What the player is playing: the audio element's track title is the bar's.
  const nowPlaying = (page) => page.locator('[data-testid="player-bar"] p.font-semibold, [data-testid="player-expanded"] p.text-2xl').filter({ visible: true }).first()
  const playingTitle = async (page, title) => {
    await page.waitForFunction(
      (t) => {
        const shown = [...document.querySelectorAll('[data-testid="player-bar"] p, [data-testid="player-expanded"] p')].some((p) => p.textContent === t && p.offsetParent !== null)
        const a = document.querySelector('[data-testid="player-audio"]')
        return shown && a && !a.paused && a.currentTime > 0
      },
      title,
      { timeout: 15000 },
    )
  }
  // Transport buttons live in the bar on desktop and in the expanded player on a phone.
  const control = async (page, viewport, name) => {
    if (viewport === mobile && !(await page.getByTestId('player-expanded').isVisible())) {
      await page.getByRole('button', { name: 'Expand player' }).filter({ visible: true }).first().click()
    }
    await page.getByRole('button', { name }).filter({ visible: true }).first().click()
  }
  // endTrack jumps to the last half second, so the track ends by itself.
  const endTrack = (page) => audio(page).evaluate((a) => (a.currentTime = Math.max(a.duration - 0.5, 0)))

  test('listening: play from charts, Next plays the second entry; shuffle, repeat, the queue after a reload, Media Session (390 and 1440)', async () => {
    const { artistId } = await fixture()
    const tracks = []
    for (const label of ['Chart One', 'Chart Two', 'Chart Three']) tracks.push(await newTrack({ artistId, label }))
    // The three new tracks head the chart, in this order.
    psql(`WITH top AS (SELECT max(streams) AS m FROM public.tracks) UPDATE public.tracks t SET streams = top.m + v.n FROM top, (VALUES ('${tracks[0].id}'::uuid, 3), ('${tracks[1].id}'::uuid, 2), ('${tracks[2].id}'::uuid, 1)) AS v(id, n) WHERE t.id = v.id`)
    const [one, two, three] = tracks.map((t) => t.title)
    for (const viewport of [mobile, desktop]) {
      const fan = await newFan()
      const { context, page } = await newPage(viewport)
      await signIn(page, fan.email, fan.password)
      await page.goto(`${app}/charts`)
      await page.getByRole('button', { name: `Play ${one}` }).click()
      await playingTitle(page, one)

      // Media Session: the lock screen names the track.
      const meta = await page.evaluate(() => {
        const m = navigator.mediaSession.metadata
        return { title: m?.title, artist: m?.artist, album: m?.album, state: navigator.mediaSession.playbackState }
      })
      assert.deepEqual({ ...meta, artist: undefined }, { title: one, artist: undefined, album: 'Backline', state: 'playing' })
      assert.match(meta.artist ?? '', /^e2eartist\d+$/, 'the artist is named')

      await control(page, viewport, 'Next')
      await playingTitle(page, two)
      assert.equal(await page.evaluate(() => navigator.mediaSession.metadata?.title), two)

      // The queue is kept on the device: after a reload the same track waits, paused, and Next goes on down the chart.
      await page.reload()
      await nowPlaying(page).waitFor()
      assert.equal(await nowPlaying(page).textContent(), two)
      assert.equal(await audio(page).evaluate((a) => a.paused), true, 'a reload does not start sound')
      await control(page, viewport, 'Next')
      await playingTitle(page, three)

      // Previous within the first 3 s goes back; repeat all wraps from the end of the chart's queue only when it ends.
      await control(page, viewport, 'Previous')
      await playingTitle(page, two)

      // Repeat one: the track ends and plays again from its start.
      await control(page, viewport, 'Repeat: off')
      await control(page, viewport, 'Repeat: all')
      assert.equal(await page.getByRole('button', { name: 'Repeat: one' }).filter({ visible: true }).count(), 1)
      await endTrack(page)
      await page.waitForFunction(() => {
        const a = document.querySelector('[data-testid="player-audio"]')
        return a && !a.paused && a.currentTime > 0 && a.currentTime < 5
      })
      assert.equal(await nowPlaying(page).textContent(), two)
      // Repeat off again: the end of a track plays the next one (autoplay).
      await control(page, viewport, 'Repeat: one')
      await endTrack(page)
      await playingTitle(page, three)

      // Shuffle: on, Next plays another chart entry; off, the chart's order is back (Previous past 3 s restarts).
      await control(page, viewport, 'Shuffle')
      assert.equal(await page.getByRole('button', { name: 'Shuffle' }).filter({ visible: true }).first().getAttribute('aria-pressed'), 'true')
      await control(page, viewport, 'Next')
      await page.waitForFunction((t) => navigator.mediaSession.metadata?.title !== t, three)
      await control(page, viewport, 'Shuffle')
      assert.equal(await page.getByRole('button', { name: 'Shuffle' }).filter({ visible: true }).first().getAttribute('aria-pressed'), 'false')
      await page.screenshot({ path: `${shots}/player-queue-${viewport.width}x${viewport.height}.png` })
      await context.close()
    }
  })

  test('listening: a fan downloads a track, goes offline, reloads into the Offline library and plays it; no stream is written (390 and 1440)', async () => {
    const { artistId } = await fixture()
    for (const viewport of [mobile, desktop]) {
      const t = await newTrack({ artistId, label: 'Offline' })
      const fan = await newFan()
      const { context, page } = await newPage(viewport)
      await signIn(page, fan.email, fan.password)
      // The worker is installed and controls the page.
      await page.waitForFunction(async () => !!(await navigator.serviceWorker.ready) && !!navigator.serviceWorker.controller, null, { timeout: 20000 })
      await page.goto(`${app}/profile/${artistId}`)
      await page.getByRole('button', { name: `More options for ${t.title}` }).first().click()
      await page.getByRole('menuitem', { name: 'Download' }).click()
      await page.getByText(`${t.title} is ready for offline listening`).waitFor({ timeout: 20000 })

      await context.setOffline(true)
      await page.reload()
      // The app starts in the Offline library.
      await page.waitForURL(/\/offline$/, { timeout: 15000 })
      await page.getByRole('heading', { name: 'Offline library' }).waitFor()
      assert.match(await page.getByTestId('offline-space').textContent(), /^1 track · \d+(\.\d)? (KB|MB) of 500 MB used$/)
      await page.getByRole('button', { name: `Play ${t.title}` }).click()
      await playingTitle(page, t.title)
      await page.getByText("You're offline - offline plays are not counted as streams and pay no one").waitFor()
      // Seeking works from the cache (byte ranges).
      await audio(page).evaluate((a) => (a.currentTime = 20))
      await page.waitForFunction(() => {
        const a = document.querySelector('[data-testid="player-audio"]')
        return a.currentTime > 20.5 && !a.paused
      })
      await page.screenshot({ path: `${shots}/offline-library-${viewport.width}x${viewport.height}.png` })
      // Back online mid-play, past the 30 s a stream needs: the offline play stays the device's own.
      await context.setOffline(false)
      await page.waitForFunction(() => {
        const a = document.querySelector('[data-testid="player-audio"]')
        return a.ended || a.currentTime > 52
      }, null, { timeout: 60000 })
      const streams = await rest(`streams?track_id=eq.${t.id}&select=id`)
      const plays = await rest(`play_sessions?track_id=eq.${t.id}&select=id`)
      assert.deepEqual({ streams, plays }, { streams: [], plays: [] })

      // Removing frees the space.
      await page.getByRole('button', { name: `Remove ${t.title}` }).click()
      await page.getByText('0 tracks · 0 KB of 500 MB used').waitFor()
      const kept = await page.evaluate(async () => (await (await caches.open('backline-offline')).keys()).length)
      assert.equal(kept, 0)
      await context.close()
    }
  })

  test('listening: audio plays only through signed URLs; the queue editor moves and removes tracks; sign-out takes the downloads, the queue and the player off the device (390 and 1440)', async () => {
    const { artistId } = await fixture()
    for (const viewport of [mobile, desktop]) {
      const kept = await newTrack({ artistId, label: 'Kept' })
      // Its own audio: the other one is downloaded, and a download plays from the device.
      const queued = await newTrack({ artistId, label: 'Queued', audio: 'queued.wav' })
      const third = await newTrack({ artistId, label: 'Third' })
      const fan = await newFan()
      const { context, page } = await newPage(viewport)
      // The public path a row keeps no longer serves the bytes.
      const direct = await fetch(`${api}${kept.audio_url}`)
      assert.notEqual(direct.status, 200)
      assert.match(kept.audio_url, /^\/storage\/v1\/object\/public\/tracks\//)
      await signIn(page, fan.email, fan.password)
      await page.waitForFunction(async () => !!(await navigator.serviceWorker.ready) && !!navigator.serviceWorker.controller, null, { timeout: 20000 })
      // Each track's own page plays it alone, so the queue is what this journey builds.
      await page.goto(`${app}/track/${kept.id}`)
      await page.getByRole('button', { name: `More options for ${kept.title}` }).first().click()
      await page.getByRole('menuitem', { name: 'Download' }).click()
      await page.getByText(`${kept.title} is ready for offline listening`).waitFor({ timeout: 20000 })
      await page.goto(`${app}/track/${queued.id}`)
      await page.getByRole('button', { name: `Play ${queued.title}` }).first().click()
      await playingTitle(page, queued.title)
      assert.match(await audio(page).getAttribute('src'), /\/storage\/v1\/object\/sign\/tracks\/.+\?token=/)
      for (const t of [kept, third]) {
        await page.goto(`${app}/track/${t.id}`)
        await page.getByRole('button', { name: `More options for ${t.title}` }).first().click()
        await page.getByRole('menuitem', { name: 'Add to queue' }).click()
      }
      // The queue as the device keeps it, by title.
      const queueOf = () => page.evaluate(() => (JSON.parse(localStorage.getItem('backline-player') ?? 'null')?.state?.queue ?? []).map((t) => t.title))
      const queueIs = async (want) => {
        await page.waitForFunction((w) => JSON.stringify((JSON.parse(localStorage.getItem('backline-player') ?? 'null')?.state?.queue ?? []).map((t) => t.title)) === JSON.stringify(w), want)
      }
      await queueIs([queued.title, kept.title, third.title])

      // The queue editor, in the expanded player: move with the buttons, drag by the handle, remove.
      await page.getByRole('button', { name: 'Expand player' }).filter({ visible: true }).first().click()
      const upNext = page.getByTestId('up-next')
      await upNext.waitFor()
      await page.getByRole('button', { name: `Move ${third.title} up` }).click()
      await queueIs([queued.title, third.title, kept.title])
      await page.getByRole('button', { name: `Move ${third.title} down` }).click()
      await queueIs([queued.title, kept.title, third.title])
      // Drag the last row's handle onto the first row.
      const handle = await page.getByRole('button', { name: `Drag ${third.title}` }).boundingBox()
      const target = await upNext.locator('li').first().boundingBox()
      await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2)
      await page.mouse.down()
      await page.mouse.move(target.x + target.width / 2, target.y + target.height / 2, { steps: 5 })
      await page.mouse.up()
      await queueIs([queued.title, third.title, kept.title])
      // Every control is in reach: nothing scrolls sideways.
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'the queue editor scrolls sideways')
      for (const name of [`Drag ${kept.title}`, `Move ${kept.title} up`, `Move ${kept.title} down`, `Remove ${kept.title} from the queue`]) {
        const box = await page.getByRole('button', { name }).boundingBox()
        assert.ok(box && box.x >= 0 && box.x + box.width <= viewport.width, `${name} is out of reach`)
      }
      await page.screenshot({ path: `${shots}/queue-editor-${viewport.width}x${viewport.height}.png` })
      await page.getByRole('button', { name: `Remove ${third.title} from the queue` }).click()
      await queueIs([queued.title, kept.title])
      await page.getByRole('button', { name: 'Minimize' }).click()

      const kept0 = await page.evaluate(async () => (await (await caches.open('backline-offline')).keys()).length)
      assert.ok(kept0 > 0, 'the download is not in the cache before sign-out')
      if (viewport === mobile) {
        await page.getByRole('button', { name: 'Profile', exact: true }).filter({ visible: true }).first().click()
        await page.getByRole('button', { name: 'Sign Out' }).click()
      } else {
        await page.getByTestId('user-menu').click()
        await page.getByRole('menuitem', { name: 'Sign out' }).click()
      }
      await page.getByText('Signed out successfully').waitFor()
      assert.deepEqual(await queueOf(), [])
      await page.getByTestId('player-bar').waitFor({ state: 'detached' })
      // The worker opens the downloads' cache again to look in it: it is empty.
      const left = await page.evaluate(async () => {
        const n = async (name) => ((await caches.has(name)) ? (await (await caches.open(name)).keys()).length : 0)
        return { downloads: await n('backline-offline'), played: await n('audio') }
      })
      assert.deepEqual(left, { downloads: 0, played: 0 })
      await page.goto(`${app}/offline`)
      await page.getByRole('heading', { name: 'Offline library' }).waitFor()
      await page.getByText('0 tracks · 0 KB of 500 MB used').waitFor()
      await context.close()
    }
  })
}
