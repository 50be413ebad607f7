// The track upload journey (resumable upload with progress, then the track
// row), for an artist who has just registered through the app and for an
// existing one. Run it many times with E2E_ONLY and E2E_REPEAT, under load
// with E2E_CPU_HOGS:
//
//   E2E_ONLY=upload: E2E_REPEAT=20 E2E_CPU_HOGS=4 node e2e/with-basalt.mjs
import assert from 'node:assert/strict'

/** register adds the upload journeys to the suite; h carries run.mjs's helpers. */
export function register(test, h) {
  const { app, newPage, mobile, rest, adminCreateUser, confirmUser, signIn, toneWav } = h
  // The length the failing uploads had; the server measures it.
  const SECONDS = 35
  const audio = toneWav(SECONDS)
  let n = 0

  /** upload runs the dialog on the artist dashboard and checks the track the server created. */
  const upload = async (page, artistId, label) => {
    const title = `Upload ${label} ${Date.now()}-${++n}`
    await page.getByRole('heading', { name: 'Artist Dashboard' }).waitFor()
    await page.getByRole('button', { name: 'Upload track' }).click()
    await page.setInputFiles('#track-audio', { name: 'tone.wav', mimeType: 'audio/wav', buffer: audio })
    await page.fill('#track-title', title)
    await page.selectOption('#track-genre', 'Afrobeats')
    await page.getByRole('button', { name: 'Upload', exact: true }).click()
    // Either outcome ends the wait, so a failure reports its toast at once.
    const done = page.getByText('Track uploaded')
    const failed = page.getByText('Upload failed')
    await done.or(failed).first().waitFor({ timeout: 60000 })
    assert.equal(await failed.count(), 0, `upload failed: ${await page.locator('[data-sonner-toast]').allInnerTexts()}`)
    const row = page.getByTestId('artist-track-row').filter({ hasText: title })
    await row.first().waitFor()
    const [t] = await rest(`tracks?title=eq.${encodeURIComponent(title)}&select=duration,audio_url`)
    assert.equal(t.duration, SECONDS)
    assert.match(t.audio_url, new RegExp(`^/storage/v1/object/public/tracks/${artistId}/`))
  }

  test('upload: a new artist registers through the app and uploads a track', async () => {
    const stamp = `${Date.now()}${++n}`
    const email = `newartist${stamp}@e2e.backline.test`
    const password = 'artist-password-123'
    const { context, page } = await newPage(mobile)
    await page.goto(`${app}/register/artist`)
    await page.fill('#display_name', `New Artist ${stamp}`)
    await page.fill('#username', `na${stamp}`)
    await page.fill('#email', email)
    await page.fill('#password', password)
    await page.fill('#confirm_password', password)
    await page.selectOption('#genre', 'Afrobeats')
    await page.check('input[name=accept_terms]')
    await page.click('button[type=submit]')
    await Promise.race([page.getByTestId('check-email').waitFor({ timeout: 15000 }), page.waitForURL(/\/dashboard\//, { timeout: 15000 })])
    const [p] = await rest(`public_profiles?username=eq.na${stamp}&select=id`)
    assert.ok(p, 'sign-up created the public profile')
    if (!/\/dashboard\//.test(page.url())) {
      await confirmUser(p.id)
      await signIn(page, email, password)
    }
    assert.match(page.url(), /\/dashboard\/artist$/)
    await upload(page, p.id, 'new')
    await context.close()
  })

  test('upload: an existing artist uploads a track', async () => {
    const stamp = `${Date.now()}${++n}`
    const email = `oldartist${stamp}@e2e.backline.test`
    const password = 'artist-password-123'
    const id = await adminCreateUser({ email, password, role: 'artist', username: `oa${stamp}` })
    const { context, page } = await newPage(mobile)
    await signIn(page, email, password)
    await upload(page, id, 'existing')
    await context.close()
  })
}
