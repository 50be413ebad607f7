// End-to-end journeys of the admin dashboard. run.mjs registers them with
// its runner and hands over its helpers (browser pages, service-role REST,
// psql fixtures, sign-in).

const sections = ['users', 'activities', 'tracks', 'cashouts', 'verifications', 'sponsorships', 'transactions', 'system']

// A 1×1 PNG, the KYC journey's document scan.
const onePixelPng = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

/** registerAdminTests adds the admin journeys to the suite. */
export function registerAdminTests(h) {
  const { test, newPage, app, api, anonKey, psql, adminCreateUser, signIn, newTrack, fixture, shots, desktop, mobile, assert } = h

  let admin
  /** adminAccount creates (once per run) an admin through the operator command. */
  async function adminAccount() {
    if (admin) return admin
    const stamp = Date.now()
    admin = { email: `admin${stamp}@e2e.backline.test`, password: 'admin-password-123' }
    admin.id = await adminCreateUser({ ...admin, role: 'fan', username: `e2eadmin${stamp}` })
    psql(`SELECT backline.promote_to_admin('${admin.id}')`)
    return admin
  }

  /** person creates a confirmed user of a role with a unique username. */
  async function person(role, label) {
    const stamp = `${Date.now()}${Math.floor(Math.random() * 1000)}`
    const p = { email: `${label}${stamp}@e2e.backline.test`, password: `${role}-password-123`, username: `${label}${stamp}` }
    p.id = await adminCreateUser({ ...p, role })
    return p
  }

  /** rpcAs calls a database function as a signed-in user through the REST API. */
  async function rpcAs(p, fn, args) {
    const t = await fetch(`${api}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: p.email, password: p.password }),
    })
    const { access_token: token } = await t.json()
    const res = await fetch(`${api}/rest/v1/rpc/${fn}`, {
      method: 'POST',
      headers: { apikey: anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    })
    const body = await res.json()
    if (!res.ok) throw new Error(`${fn}: ${res.status} ${JSON.stringify(body)}`)
    return body
  }

  /** adminPage signs the admin in and opens a section (with its query string, if any). */
  async function adminPage(section, viewport = desktop) {
    const a = await adminAccount()
    const { context, page } = await newPage(viewport)
    await signIn(page, a.email, a.password)
    assert.match(page.url(), /\/dashboard\/admin/)
    await page.goto(`${app}/dashboard/admin/${section}`)
    await page.getByTestId(`admin-section-${section.split('?')[0]}`).waitFor()
    return { context, page }
  }

  /** confirmDialog fills the reason (when given) and presses the dialog's confirm button. */
  async function confirmDialog(page, button, reason) {
    // The action dialog (a detail panel is a dialog too): the one with Cancel.
    const dialog = page.getByRole('dialog').filter({ has: page.getByRole('button', { name: 'Cancel' }) })
    await dialog.waitFor()
    if (reason !== undefined) await dialog.locator('#admin-reason').fill(reason)
    await dialog.getByRole('button', { name: button }).click()
    await dialog.waitFor({ state: 'detached', timeout: 10000 })
  }

  test('admin: a non-admin is denied the admin dashboard and its functions', async () => {
    const fan = await person('fan', 'nosy')
    const { context, page } = await newPage()
    await signIn(page, fan.email, fan.password)
    await page.goto(`${app}/dashboard/admin/users`)
    await page.getByText("You don't have permission to access this page.").waitFor()
    // The database refuses the call itself, whatever the UI shows.
    await assert.rejects(rpcAs(fan, 'admin_search_users', {}), /: 403 .*42501/)
    await context.close()
  })

  test("admin: finds a fan and suspends them; the fan's open tab shows Account Suspended", async () => {
    const fan = await person('fan', 'suspect')
    const fanTab = await newPage()
    await signIn(fanTab.page, fan.email, fan.password)
    await fanTab.page.goto(`${app}/favorites`)
    await fanTab.page.getByRole('heading', { name: /favorites/i }).first().waitFor()
    // The tab follows its account in realtime (the 10 s poll only stands in while it cannot).
    await fanTab.page.waitForFunction(() => (window.__backlineLive?.() ?? []).some((t) => t.startsWith('live:suspension:')), null, { timeout: 15000 })
    let navigations = 0
    fanTab.page.on('framenavigated', (f) => f === fanTab.page.mainFrame() && navigations++)

    const { context, page } = await adminPage('users')
    await page.fill('#user-search', fan.username)
    await page.getByRole('button', { name: 'Search' }).first().click()
    await page.locator(`[data-row="${fan.id}"]`).click()
    const panel = page.getByTestId('user-detail')
    await panel.getByText(fan.email).waitFor()
    await panel.getByRole('button', { name: 'Suspend' }).click()
    await confirmDialog(page, 'Suspend', 'Chargeback fraud')
    await page.getByText('User suspended').waitFor()
    const suspended = Date.now()

    // The fan's tab, left open, switches within 3 s, without a reload.
    await fanTab.page.getByText('Account Suspended').waitFor({ timeout: 3000 })
    await fanTab.page.getByText('Chargeback fraud').waitFor({ timeout: Math.max(1, 3000 - (Date.now() - suspended)) })
    console.log(`    the fan's open tab showed Account Suspended ${Date.now() - suspended} ms after the suspension`)
    assert.equal(navigations, 0, "the fan's tab navigated")
    await panel.getByText('Suspended: Chargeback fraud').waitFor()
    // The audit trail shows it in the activity feed, as a sentence naming the fan.
    await page.goto(`${app}/dashboard/admin/activities?kind=admin`)
    await page.getByTestId('admin-activity').getByText(`suspended ${fan.username}: Chargeback fraud`).first().waitFor()
    await fanTab.context.close()
    await context.close()
  })

  test('admin: completes one cash-out and rejects another; the artist sees both in wallet and notifications', async () => {
    const artist = await person('artist', 'payee')
    psql(`SELECT backline.fund_wallet('${artist.id}', 5000, 'e2e-cashout-${artist.id}')`)
    const first = await rpcAs(artist, 'request_cashout', { p_amount: 1000, p_bank_name: 'Zenith Bank', p_account_number: '0123456789', p_account_name: 'E2E Payee' })
    const second = await rpcAs(artist, 'request_cashout', { p_amount: 2000, p_bank_name: 'Zenith Bank', p_account_number: '0123456789', p_account_name: 'E2E Payee' })

    const { context, page } = await adminPage('cashouts')
    const table = page.getByTestId('admin-cashouts')
    await table.locator(`[data-row="${first.id}"]`).getByRole('button', { name: 'Complete' }).click()
    await confirmDialog(page, 'Mark as paid')
    await page.getByText('Cash-out completed').waitFor()
    await table.locator(`[data-row="${second.id}"]`).getByRole('button', { name: 'Reject' }).click()
    await confirmDialog(page, 'Reject', 'Account name does not match')
    await page.getByText('Cash-out rejected').waitFor()
    await table.locator(`[data-row="${first.id}"]`).waitFor({ state: 'detached' })
    await context.close()

    // The artist: ₦5,000 − ₦1,000 paid out (the ₦2,000 came back).
    const a = await newPage()
    await signIn(a.page, artist.email, artist.password)
    await a.page.getByTestId('wallet-balance').getByText('₦4,000').waitFor({ timeout: 15000 })
    await a.page.getByRole('button', { name: 'Notifications' }).first().click()
    await a.page.getByText('Your cash-out of ₦1,000 has been completed.').waitFor()
    await a.page.getByText(/₦2,000 was rejected: Account name does not match/).waitFor()
    await a.context.close()
  })

  test('admin: an artist submits KYC, the admin rejects it, the artist resubmits, the admin approves; the artist sees each decision', async () => {
    const artist = await person('artist', 'kycartist')
    const a = await newPage()
    await signIn(a.page, artist.email, artist.password)
    const card = a.page.getByTestId('kyc-status')
    await card.getByText('Not submitted').waitFor()
    // The artist's open page follows the review in realtime.
    await a.page.waitForFunction(() => (window.__backlineLive?.() ?? []).some((t) => t.startsWith('live:kyc_submissions:')), null, { timeout: 15000 })
    let navigations = 0
    a.page.on('framenavigated', (f) => f === a.page.mainFrame() && navigations++)
    const submit = async (button, number) => {
      await card.getByRole('button', { name: button }).click()
      await a.page.fill('#kyc-name', 'Kemi Adeyemi')
      await a.page.selectOption('#kyc-type', 'nin')
      await a.page.fill('#kyc-number', number)
      await a.page.setInputFiles('#kyc-file', { name: 'nin-slip.png', mimeType: 'image/png', buffer: onePixelPng })
      await a.page.getByRole('button', { name: 'Submit for review' }).click()
    }
    // The form's rule first (the database has the same one): a NIN is 11 digits.
    await submit('Submit KYC', '1234')
    await a.page.getByRole('alert').filter({ hasText: 'A NIN is 11 digits' }).waitFor()
    await a.page.fill('#kyc-number', '12345678901')
    await a.page.getByRole('button', { name: 'Submit for review' }).click()
    await a.page.getByText('KYC submitted').waitFor()
    await card.getByText('Pending review').waitFor()
    for (const viewport of [mobile, desktop]) {
      await a.page.setViewportSize(viewport)
      await card.scrollIntoViewIfNeeded()
      await a.page.screenshot({ path: `${shots}/kyc-pending-${viewport.width}x${viewport.height}.png` })
    }
    const pendingId = () => psql(`SELECT id FROM public.kyc_submissions WHERE artist_id = '${artist.id}' AND status = 'pending'`)
    const first = pendingId()

    const { context, page } = await adminPage('verifications')
    const row = (id) => page.getByTestId('admin-kyc').locator(`[data-row="${id}"]`)
    await row(first).getByRole('button', { name: /View document/ }).waitFor()
    await row(first).getByRole('button', { name: 'Reject' }).click()
    await confirmDialog(page, 'Reject', 'The slip is unreadable')
    await page.getByText('KYC rejected').waitFor()
    await card.getByText('Rejected').waitFor({ timeout: 5000 })
    await a.page.getByTestId('kyc-reason').getByText('The slip is unreadable').waitFor()

    // After a rejection the artist submits again.
    await submit('Resubmit KYC', '12345678901')
    await a.page.getByText('KYC submitted').first().waitFor()
    await card.getByText('Pending review').waitFor()
    const second = pendingId()
    assert.notEqual(second, first)
    // The database refuses the artist's own approval, whatever the client sends.
    await assert.rejects(rpcAs(artist, 'admin_review_kyc', { p_submission_id: second, p_approve: true, p_expires_at: new Date(Date.now() + 86400000 * 365).toISOString() }), /: 403 .*42501/)

    await page.reload()
    await row(second).getByRole('button', { name: 'Approve' }).click()
    await confirmDialog(page, 'Approve')
    await page.getByText('KYC approved').waitFor()
    await card.getByText('Approved').waitFor({ timeout: 5000 })
    await card.getByText(/Valid until/).waitFor()
    assert.equal(navigations, 0, "the artist's page navigated")
    assert.equal(psql(`SELECT a.has_valid_kyc FROM public.artist_profiles a WHERE id = '${artist.id}'`), 't')
    // Approved: no new submission is offered until the last 30 days.
    assert.equal(await card.getByRole('button').count(), 0)
    for (const viewport of [mobile, desktop]) {
      await a.page.setViewportSize(viewport)
      await card.scrollIntoViewIfNeeded()
      await a.page.screenshot({ path: `${shots}/kyc-approved-${viewport.width}x${viewport.height}.png` })
    }
    await context.close()
    await a.context.close()
  })

  test('admin: hides a track and it leaves the home page', async () => {
    const { artistId } = await fixture()
    const track = await newTrack({ artistId, label: 'Hide me' })
    const visitor = await newPage(mobile)
    await visitor.page.goto(app)
    await visitor.page.getByText(track.title).first().waitFor({ timeout: 15000 })

    const { context, page } = await adminPage('tracks')
    await page.fill('#track-search', track.title)
    await page.getByRole('button', { name: 'Search' }).first().click()
    await page.locator(`[data-row="${track.id}"]`).getByRole('button', { name: 'Hide', exact: true }).click()
    await confirmDialog(page, 'Hide track', 'Reported as stolen')
    await page.getByText('Track hidden').waitFor()
    await page.locator(`[data-row="${track.id}"]`).getByText('hidden').waitFor()
    await context.close()

    await visitor.page.reload()
    await visitor.page.getByTestId('track-card').first().waitFor({ timeout: 15000 })
    assert.equal(await visitor.page.getByText(track.title).count(), 0, 'the hidden track is gone from the home page')
    await visitor.context.close()
  })

  test('admin: the activity feed writes a payment as what it charged, VAT and fee included', async () => {
    const sponsor = await person('sponsor', 'payer')
    // An amount no other journey uses: VAT is 7.5% rounded to whole naira.
    const payment = await rpcAs(sponsor, 'create_payment', { p_provider: 'sandbox', p_purpose: 'topup', p_amount: 5123 })
    assert.deepEqual([payment.amount, payment.vat, payment.fee, payment.total], [5123, 384, 1000, 6507])
    psql(`SELECT public.complete_payment('sandbox', '${payment.tx_ref}', NULL, 6507, 'successful', NULL)`)
    const { context, page } = await adminPage('activities?kind=payment')
    const feed = page.getByTestId('admin-activity')
    await feed.getByText('Started a payment of ₦6,507 for a wallet top-up (₦5,123 + ₦384 VAT + ₦1,000 fee)').first().waitFor()
    await feed.getByText('Topped up their wallet with ₦5,123, paying ₦6,507 (₦5,123 + ₦384 VAT + ₦1,000 fee)').first().waitFor()
    // The figures come with the feed: no read of the payments beside it.
    const reads = []
    page.on('request', (r) => r.url().includes('/rest/v1/payments') && reads.push(r.url()))
    await page.reload()
    await feed.getByText('Topped up their wallet with ₦5,123, paying ₦6,507 (₦5,123 + ₦384 VAT + ₦1,000 fee)').first().waitFor()
    assert.deepEqual(reads, [])
    await context.close()
  })

  test('admin: system status shows the database healthy and the API up', async () => {
    const { context, page } = await adminPage('system')
    await page.getByTestId('system-database').getByText('Healthy').waitFor({ timeout: 15000 })
    await page.getByTestId('system-health').getByText('OK').waitFor()
    await page.getByText(/sockets?\b|Not running/).first().waitFor()
    await context.close()
  })

  test('admin: every section renders at both sizes (screenshots)', async () => {
    for (const viewport of [desktop, mobile]) {
      const { context, page } = await adminPage('users', viewport)
      for (const section of sections) {
        await page.goto(`${app}/dashboard/admin/${section}`)
        await page.getByTestId(`admin-section-${section}`).waitFor()
        // Wait for the section's data (no loading placeholder left).
        await page.waitForFunction(() => !document.querySelector('[data-testid^="admin-section-"] .animate-pulse'), null, { timeout: 15000 })
        if (section === 'transactions') await page.getByTestId('ledger-check').getByText('Ledger balanced').waitFor()
        if (section === 'transactions' && viewport === desktop) {
          // The full recount agrees with the running totals the banner read.
          await page.getByRole('button', { name: 'Recount the whole ledger' }).click()
          await page.getByTestId('ledger-recount').getByText(/^Full recount: ledger balanced over \d+ movements$/).waitFor({ timeout: 15000 })
        }
        await page.screenshot({ path: `${shots}/admin-${section}-${viewport.width}x${viewport.height}.png` })
      }
      await context.close()
    }
  })
}
