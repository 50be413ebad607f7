// Studio's end-to-end journey in headless Chromium (Debian's chromium driven
// by playwright-core) against a private `basalt dev` with Backline's schema
// and seed: browse and filter tracks, edit a row and read it back through
// supabase-js, write a policy and see "view as" anon and a fan change, run
// SQL and an EXPLAIN, the API page; create a user and sign in as them, ban
// them and see sign-in refused; upload a file and preview it; find a failed
// REST call by its request id in Logs, and a failed statement in Postgres's
// own log; see a broadcast sent from supabase-js
// in the realtime inspector; the Database screen (migrations, an extension
// enabled and disabled, functions, slots, a backup restored into a new
// database), a cron job that runs, a queue's messages, and a webhook
// delivered to a local receiver. Screenshots at 1440×900 land in
// e2e/screenshots/ (git-ignored).
//
//   node e2e/journey.mjs        (starts its own basalt dev; BASALT_BIN to reuse a binary; E2E_ONLY=text|text for some steps)
import assert from 'node:assert/strict'
import { mkdirSync, rmSync } from 'node:fs'
import { deflateSync } from 'node:zlib'
import { createServer } from 'node:http'
import { chromium } from 'playwright-core'
import { createClient } from '@supabase/supabase-js'
import { buildBasalt, freePort, startBasalt, tempDir } from '../../../compat/lib/basalt.mjs'

const shots = new URL('./screenshots/', import.meta.url).pathname
mkdirSync(shots, { recursive: true })
const dir = tempDir('basalt-studio-e2e-')
const bin = buildBasalt(dir)
const basalt = await startBasalt({ bin, dir, env: { BASALT_STUDIO_PORT: String(await freePort()) } })
const { studio_url: studio, api_url: api, anon_key: anonKey } = basalt.info
assert.ok(studio, 'basalt status --json names no studio_url')

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
const page = await context.newPage()
page.setDefaultTimeout(15_000)
const problems = []
page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
const shot = (name) => page.screenshot({ path: `${shots}${name}.png` })

const steps = []
const step = (name, fn) => steps.push({ name, fn })
const grid = page.getByTestId('rows-grid')
const rowCount = page.getByTestId('row-count')
const openTable = async (name) => {
  await page.getByRole('link', { name: 'Table editor' }).click()
  await page.getByRole('list', { name: 'Tables' }).getByRole('link', { name: new RegExp(`(^|\\s)${name}(\\s|$)`) }).click()
  await grid.waitFor()
}
const viewAs = async (label) => {
  await page.getByLabel('View as').selectOption({ label })
}
// countOf reads "1–12 of 12" once the page settled on a number.
const countOf = async () => Number((await rowCount.innerText()).split(' of ')[1].replace(/[^\d]/g, ''))

step('Home shows every service healthy', async () => {
  await page.goto(studio)
  for (const svc of ['gateway', 'auth', 'rest', 'storage', 'realtime', 'functions']) {
    await page.getByTestId(`service-${svc}`).getByText('healthy').waitFor()
  }
  await page.getByText('Database size').waitFor()
  await shot('01-home')
})

step('browse tracks and filter them', async () => {
  await openTable('tracks')
  await rowCount.filter({ hasText: 'of 12' }).waitFor()
  await shot('02-tracks')
  await page.getByLabel('Filter column').selectOption('title')
  await page.getByLabel('Filter operator').selectOption('ilike')
  await page.getByLabel('Filter value').fill('lagos')
  await page.getByRole('button', { name: 'Apply filter' }).click()
  await page.getByTestId('filter-chip').filter({ hasText: 'title=ilike.lagos' }).waitFor()
  await rowCount.filter({ hasText: 'of 1' }).waitFor()
  await grid.getByText('Lagos Sunrise', { exact: true }).waitFor()
  await shot('03-tracks-filtered')
})

step('edit a row and see it through supabase-js', async () => {
  await grid.getByText('Lagos Sunrise', { exact: true }).click()
  const dialog = page.getByRole('dialog')
  await dialog.getByLabel('title', { exact: true }).fill('Lagos Sunrise (Studio edit)')
  await shot('04-row-editor')
  await dialog.getByRole('button', { name: 'Save' }).click()
  await dialog.waitFor({ state: 'detached' })
  await page.getByTestId('filter-chip').getByRole('button', { name: 'Remove filter' }).click()
  await grid.getByText('Lagos Sunrise (Studio edit)', { exact: true }).waitFor()
  const supabase = createClient(api, anonKey, { auth: { persistSession: false } })
  const { data, error } = await supabase.from('tracks').select('title').eq('title', 'Lagos Sunrise (Studio edit)')
  assert.equal(error, null)
  assert.deepEqual(data, [{ title: 'Lagos Sunrise (Studio edit)' }])
})

step('insert a row with a foreign key picked from the referenced table, then delete it', async () => {
  await page.getByRole('button', { name: 'Insert row' }).click()
  const dialog = page.getByRole('dialog', { name: 'Insert a row into tracks' })
  await dialog.getByLabel('title', { exact: true }).fill('Studio test track')
  await dialog.getByRole('button', { name: 'Pick artist_id' }).click()
  const picker = page.getByRole('dialog', { name: 'Pick a row of artist_profiles' })
  await picker.getByLabel('Search rows').fill('zara')
  await picker.getByRole('button', { name: /Zara Obi/ }).click()
  await picker.waitFor({ state: 'detached' })
  assert.match(await dialog.getByLabel('artist_id', { exact: true }).inputValue(), /^[0-9a-f-]{36}$/)
  await dialog.getByLabel('genre', { exact: true }).fill('highlife')
  await shot('05-insert-with-picker')
  await dialog.getByRole('button', { name: 'Insert' }).click()
  await dialog.waitFor({ state: 'detached' })
  await rowCount.filter({ hasText: 'of 13' }).waitFor()
  const row = grid.getByRole('row').filter({ hasText: 'Studio test track' })
  await row.getByRole('checkbox', { name: 'Select row' }).check()
  await page.getByRole('button', { name: 'Delete 1 row' }).click()
  await page.getByRole('dialog', { name: 'Delete 1 row?' }).getByRole('button', { name: 'Delete', exact: true }).click()
  await rowCount.filter({ hasText: 'of 12' }).waitFor()
})

step('a policy that does not compile is refused; one that does changes what anon and a fan see', async () => {
  await viewAs('as anon')
  await page.getByTestId('view-as-banner').waitFor()
  await rowCount.filter({ hasText: 'of 12' }).waitFor()
  await viewAs('as operator (no RLS)')

  await page.getByRole('tab', { name: 'Policies' }).click()
  await page.getByRole('button', { name: 'New policy' }).click()
  let dialog = page.getByRole('dialog')
  await dialog.getByRole('button', { name: 'Blank' }).click()
  await dialog.getByLabel('Name', { exact: true }).fill('fans see unsponsored tracks only')
  await dialog.getByLabel('Kind').selectOption('RESTRICTIVE')
  await dialog.getByLabel('Roles (comma-separated)').fill('anon, authenticated')
  await dialog.getByLabel(/^USING/).fill('not is_sponsored and')
  await dialog.getByRole('button', { name: 'Save policy' }).click()
  await dialog.getByRole('alert').filter({ hasText: 'syntax error' }).waitFor()
  await shot('06-policy-error')
  await dialog.getByLabel(/^USING/).fill('not is_sponsored')
  await dialog.getByRole('button', { name: 'Save policy' }).click()
  await dialog.waitFor({ state: 'detached' })
  await page.getByTestId('policy').filter({ hasText: 'fans see unsponsored tracks only' }).waitFor()
  await shot('07-policies')

  await page.getByRole('tab', { name: 'Data' }).click()
  await grid.waitFor()
  await rowCount.filter({ hasText: 'of 12' }).waitFor() // the operator is not bound by RLS
  await viewAs('as anon')
  await page.waitForFunction(() => !document.querySelector('[data-testid="row-count"]')?.textContent?.includes('of 12'))
  const anonCount = await countOf()
  assert.ok(anonCount > 0 && anonCount < 12, `anon sees ${anonCount} tracks`)
  assert.equal(await grid.getByText('Lagos Sunrise (Studio edit)', { exact: true }).count(), 0, 'a sponsored track is visible to anon')
  await shot('08-view-as-anon')

  await viewAs('as a user…')
  dialog = page.getByRole('dialog')
  await dialog.getByLabel('Search users').fill('ada@')
  await dialog.getByRole('button', { name: /ada@backline\.test/ }).click()
  await page.getByTestId('view-as-banner').filter({ hasText: 'ada@backline.test' }).waitFor()
  await rowCount.filter({ hasText: `of ${anonCount}` }).waitFor()
  await shot('09-view-as-fan')

  // Drop the policy: the fan sees every track again.
  await page.getByRole('tab', { name: 'Policies' }).click()
  await page.getByRole('button', { name: 'Drop fans see unsponsored tracks only' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Drop policy' }).click()
  await page.getByTestId('policy').filter({ hasText: 'fans see unsponsored tracks only' }).waitFor({ state: 'detached' })
  await page.getByRole('tab', { name: 'Data' }).click()
  await page.getByTestId('view-as-banner').filter({ hasText: 'ada@backline.test' }).waitFor()
  await rowCount.filter({ hasText: 'of 12' }).waitFor()
})

step('run select 1+1, an error with its position, and an EXPLAIN', async () => {
  await page.getByRole('link', { name: 'SQL editor' }).click()
  const sql = page.getByLabel('SQL')
  await sql.fill('select 1+1')
  await page.getByRole('button', { name: /^Run/ }).click()
  await page.getByTestId('sql-grid').getByRole('cell', { name: '2', exact: true }).waitFor()
  await page.getByTestId('sql-command').filter({ hasText: 'SELECT 1' }).waitFor()
  await shot('10-sql')
  await sql.fill('select 1;\nselect titel from tracks')
  await page.getByRole('button', { name: /^Run/ }).click()
  await page.getByTestId('sql-error').getByText('line 2, column 8').waitFor()
  await shot('11-sql-error')
  await sql.fill("select t.title, a.display_name from tracks t join public_profiles a on a.id = t.artist_id where t.streams > 0")
  await page.getByRole('button', { name: 'Explain', exact: true }).click()
  await page.getByTestId('explain-tree').waitFor()
  assert.ok((await page.getByTestId('plan-node').count()) >= 2, 'the plan has one node')
  await shot('12-explain')
})

step('API page: keys and supabase-js for a table', async () => {
  await page.getByRole('link', { name: 'API' }).click()
  await page.getByTestId('key-anon key').filter({ hasText: anonKey }).waitFor()
  assert.equal(await page.getByText(basalt.info.service_role_key).count(), 0, 'the service_role key reached the page')
  await page.getByRole('list', { name: 'API tables' }).getByRole('link', { name: 'tracks', exact: true }).click()
  await page.getByTestId('js-snippet').filter({ hasText: "supabase.from('tracks')" }).first().waitFor()
  await shot('13-api-tracks')
})

step('API keys: create a publishable key, use it with supabase-js, revoke it (confirmed) and see supabase-js refused', async () => {
  await page.getByRole('list', { name: 'API tables' }).getByRole('link', { name: 'Project and keys' }).click()
  await page.getByRole('button', { name: 'Create publishable key' }).click()
  const dialog = page.getByRole('dialog', { name: 'Create a publishable key' })
  await dialog.getByLabel(/^Name/).fill('e2e_mobile')
  await dialog.getByRole('button', { name: 'Create key' }).click()
  const key = (await page.getByTestId('key-new').innerText()).trim()
  assert.match(key, /^sb_publishable_/)
  const row = page.getByTestId('api-key-e2e_mobile')
  await row.getByText('valid', { exact: true }).waitFor()
  assert.equal(await row.getByText(key).count(), 0, 'the list shows the key itself')
  const supabase = createClient(api, key, { auth: { persistSession: false, autoRefreshToken: false } })
  const ok = await supabase.from('tracks').select('title').limit(1)
  assert.equal(ok.error, null, `the new key was refused: ${JSON.stringify(ok.error)}`)
  assert.equal(ok.data.length, 1)
  await shot('13b-api-key-created')
  await row.getByRole('button', { name: 'Revoke' }).click()
  await page.getByRole('dialog', { name: 'Revoke e2e_mobile?' }).getByRole('button', { name: 'Revoke key' }).click()
  await row.getByText(/^revoked/).waitFor()
  // Every node learns of it by NOTIFY: wait for the refusal.
  let refused
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    refused = await supabase.from('tracks').select('title').limit(1)
    if (refused.error) break
    await new Promise((r) => setTimeout(r, 50))
  }
  assert.equal(refused.error?.message, 'Invalid API key', `the revoked key: ${JSON.stringify(refused)}`)
  assert.equal(refused.status, 401)
  await shot('13c-api-key-revoked')
})


// png draws a w×h image in two colours: a real file for the preview.
const png = (w, h) => {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    return c >>> 0
  })
  const crc = (buf) => {
    let c = 0xffffffff
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8)
    return (c ^ 0xffffffff) >>> 0
  }
  const chunk = (type, data) => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(data.length)
    const td = Buffer.concat([Buffer.from(type), data])
    const c = Buffer.alloc(4)
    c.writeUInt32BE(crc(td))
    return Buffer.concat([len, td, c])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(w, 0)
  ihdr.writeUInt32BE(h, 4)
  ihdr.set([8, 2, 0, 0, 0], 8) // 8-bit RGB
  const raw = Buffer.alloc((w * 3 + 1) * h)
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = y * (w * 3 + 1) + 1 + x * 3
      const on = (x >> 4) % 2 === (y >> 4) % 2
      raw.set(on ? [16, 185, 129] : [30, 41, 59], o)
    }
  }
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))])
}

step('Auth: create a user, sign in as them with supabase-js, revoke the session, ban them and see sign-in refused; invite; the mailbox', async () => {
  await page.getByRole('link', { name: 'Authentication' }).click()
  await page.getByRole('table', { name: 'Users' }).getByText('ada@backline.test').waitFor()
  await page.getByRole('button', { name: 'Add user' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add a user' })
  const email = 'studio-made@backline.test'
  const password = 'a long studio password'
  await dialog.getByLabel('Email', { exact: true }).fill(email)
  await dialog.getByLabel('Password', { exact: true }).fill(password)
  await dialog.getByRole('button', { name: 'Create user' }).click()
  await dialog.waitFor({ state: 'detached' })
  const panel = page.getByRole('complementary', { name: 'User' })
  await panel.getByTestId('user-title').filter({ hasText: email }).waitFor()
  await page.getByLabel('Search users').fill('studio-made')
  await page.getByTestId('user-count').filter({ hasText: '1–1 of 1' }).waitFor()

  const supabase = createClient(api, anonKey, { auth: { persistSession: false, autoRefreshToken: false } })
  const signedIn = await supabase.auth.signInWithPassword({ email, password })
  assert.equal(signedIn.error, null, `sign-in refused: ${signedIn.error?.message}`)
  assert.equal(signedIn.data.user.email, email)
  await page.getByRole('table', { name: 'Users' }).getByText(email).click()
  await panel.getByTestId('auth-session').first().waitFor()
  await shot('14-auth-user')

  // Revoking the session ends it: its refresh token no longer works.
  await panel.getByTestId('auth-session').getByRole('button', { name: 'Revoke' }).click()
  await panel.getByText('No live session.').waitFor()
  const refreshed = await supabase.auth.refreshSession()
  assert.ok(refreshed.error, 'a revoked session was refreshed')

  await panel.getByRole('button', { name: 'Send password recovery' }).click()
  await panel.getByText('A password recovery mail was sent.').waitFor()

  await panel.getByRole('button', { name: 'Ban user' }).click()
  const confirm = page.getByRole('dialog', { name: `Ban ${email}?` })
  await confirm.getByLabel('Ban duration').selectOption('876000h')
  await confirm.getByRole('button', { name: 'Ban user' }).click()
  await confirm.waitFor({ state: 'detached' })
  await panel.getByRole('button', { name: 'Unban user' }).waitFor()
  await page.getByRole('table', { name: 'Users' }).getByText('banned').waitFor()
  const refused = await supabase.auth.signInWithPassword({ email, password })
  assert.ok(refused.error, 'a banned user signed in')
  assert.equal(refused.error.code, 'user_banned')
  await shot('15-auth-banned')

  await page.getByRole('tab', { name: 'Providers' }).click()
  await page.getByTestId('provider-email').getByText('enabled').waitFor()
  await page.getByRole('tab', { name: 'Users' }).click()
  await page.getByRole('button', { name: 'Invite user' }).click()
  const invite = page.getByRole('dialog', { name: 'Invite a user' })
  await invite.getByLabel('Email', { exact: true }).fill('invited@backline.test')
  await invite.getByRole('button', { name: 'Send invitation' }).click()
  await invite.waitFor({ state: 'detached' })
  await page.getByLabel('Search users').fill('invited@')
  await page.getByRole('table', { name: 'Users' }).getByRole('row').filter({ hasText: 'invited@backline.test' }).getByText('invited').last().waitFor()

  await page.getByRole('tab', { name: 'Mailbox' }).click()
  await page.getByLabel('Filter mailbox').fill('backline.test')
  await page.getByTestId('mail').filter({ hasText: 'recovery' }).filter({ hasText: email }).waitFor()
  await page.getByTestId('mail').filter({ hasText: 'invite' }).filter({ hasText: 'invited@backline.test' }).waitFor()
  await shot('16-auth-mailbox')
})

step('Storage: create a bucket, upload an image and preview it, sign a URL', async () => {
  await page.getByRole('link', { name: 'Storage' }).click()
  await page.getByRole('button', { name: 'New bucket' }).click()
  const dialog = page.getByRole('dialog', { name: 'New bucket' })
  await dialog.getByLabel('Name', { exact: true }).fill('studio-e2e')
  await dialog.getByLabel(/File size limit/).fill('5 MB')
  await dialog.getByLabel(/Allowed MIME types/).fill('image/*, audio/*')
  await dialog.getByRole('button', { name: 'Create bucket' }).click()
  await dialog.waitFor({ state: 'detached' })
  await page.getByRole('heading', { name: 'studio-e2e' }).waitFor()
  await page.getByText('up to 5.0 MB a file').waitFor()

  await page.getByRole('button', { name: 'New folder' }).click()
  await page.getByLabel('Folder name').fill('covers')
  await page.getByRole('button', { name: 'Open folder' }).click()
  await page.getByLabel('Files to upload').setInputFiles({ name: 'tile.png', mimeType: 'image/png', buffer: png(320, 200) })
  const files = page.getByRole('table', { name: 'Files' })
  await files.getByText('tile.png').click()
  const img = page.getByTestId('file-preview').getByRole('img', { name: 'covers/tile.png' })
  await img.waitFor()
  await page.waitForFunction(() => (document.querySelector('[data-testid="file-preview"] img')?.naturalWidth ?? 0) === 320)
  await page.getByRole('button', { name: 'Sign', exact: true }).click()
  const signed = await page.getByLabel('Signed URL').inputValue()
  assert.match(signed, /\/storage\/v1\/object\/sign\/studio-e2e\/covers\/tile\.png\?token=/)
  const res = await fetch(signed)
  assert.equal(res.status, 200)
  assert.equal(Buffer.from(await res.arrayBuffer()).length, png(320, 200).length)
  await shot('17-storage-preview')

  // Lift the size limit, then a 13 MB audio file goes up in three resumable chunks and plays.
  await page.getByRole('button', { name: 'Bucket settings' }).click()
  const settings = page.getByRole('dialog', { name: 'Bucket studio-e2e' })
  await settings.getByLabel(/File size limit/).fill('')
  await settings.getByRole('button', { name: 'Save' }).click()
  await settings.waitFor({ state: 'detached' })
  await page.getByText('no size limit').waitFor()
  const wav = Buffer.alloc(13 * 1024 * 1024, 0)
  await page.getByLabel('Files to upload').setInputFiles({ name: 'long.wav', mimeType: 'audio/wav', buffer: wav })
  await files.getByRole('row').filter({ hasText: 'long.wav' }).filter({ hasText: '13.0 MB' }).click()
  await page.getByTestId('file-preview').getByLabel('Play covers/long.wav').waitFor()
  await page.getByRole('button', { name: 'Sign', exact: true }).click()
  const longURL = await page.getByLabel('Signed URL').inputValue()
  assert.match(longURL, /\/covers\/long\.wav\?token=/)
  const long = await fetch(longURL)
  assert.equal(long.status, 200)
  assert.equal((await long.arrayBuffer()).byteLength, wav.length)

  // A folder at the bucket's root, and a type the bucket refuses.
  await page.getByRole('navigation', { name: 'Folder' }).getByRole('button', { name: 'studio-e2e' }).click()
  await files.getByText('covers').waitFor()
  await page.getByLabel('Files to upload').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') })
  await page.getByRole('alert').filter({ hasText: /mime type|not supported|not allowed/i }).waitFor()
  await page.getByRole('button', { name: 'Storage policies' }).click()
  await page.getByRole('heading', { name: 'Storage policies' }).waitFor()
  await shot('18-storage-policies')
})

step('Logs: find a failed REST call by its request id', async () => {
  let requestId = ''
  const supabase = createClient(api, anonKey, {
    auth: { persistSession: false },
    global: {
      fetch: async (url, init) => {
        const res = await fetch(url, init)
        requestId = res.headers.get('x-request-id') ?? ''
        return res
      },
    },
  })
  const { error } = await supabase.from('no_such_table').select('*')
  assert.ok(error, 'a query of a missing table succeeded')
  assert.ok(requestId, 'the failed call had no request id')
  await page.getByRole('link', { name: 'Logs' }).click()
  await page.getByLabel('Service').selectOption('rest')
  await page.getByLabel('Status').selectOption('4xx')
  await page.getByLabel('Request id').fill(requestId)
  const row = page.getByTestId('log-row').filter({ hasText: requestId })
  await row.filter({ hasText: '/rest/v1/no_such_table' }).waitFor()
  assert.match(await row.innerText(), /404/)
  await row.click()
  await page.getByText('user agent').waitFor()
  // Every row names the node that answered; filtering by another hides the row, by its own shows it.
  const node = (await row.locator('xpath=following-sibling::tr[1]').innerText()).match(/node\s+(\S+)/)[1]
  await page.getByLabel('Node').fill('no-such-node:1')
  await page.getByText('No request matches.').waitFor()
  await page.getByLabel('Node').fill(node)
  await row.waitFor()
  await shot('19-logs-request')
  await page.getByLabel('Node').fill('')
  await page.getByLabel('Request id').fill('')
  await page.getByLabel('Status').selectOption('')
  await page.getByLabel('Service').selectOption('')
  await page.getByTestId('log-row').nth(5).waitFor()
  await shot('20-logs')
  await page.getByRole('tab', { name: 'Edge functions' }).click()
  await page.getByRole('table', { name: 'Function log' }).waitFor()
})

step("Logs: a statement that fails in the SQL editor shows in Postgres's own log with its SQLSTATE", async () => {
  const table = `no_such_table_${Date.now()}`
  await page.getByRole('link', { name: 'SQL editor' }).click()
  await page.getByLabel('SQL').fill(`select * from ${table}`)
  await page.getByRole('button', { name: /^Run/ }).click()
  await page.getByTestId('sql-error').getByText(table).first().waitFor()
  await page.getByRole('link', { name: 'Logs' }).click()
  await page.getByRole('tab', { name: 'Postgres' }).click()
  await page.getByLabel('Severity').selectOption('error')
  await page.getByLabel('Time').selectOption({ label: 'last 15 minutes' })
  await page.getByLabel('Text').fill(table)
  const row = page.getByTestId('pg-log-row').filter({ hasText: `relation "${table}" does not exist` })
  await row.waitFor()
  assert.match(await row.innerText(), /ERROR[\s\S]*42P01[\s\S]*STATEMENT: select \* from no_such_table_/)
  await shot('20b-logs-postgres')
  await page.getByLabel('Text').fill(`${table}_other`)
  await page.getByText('No line of the server log matches.').waitFor()
})

step('Realtime: join a channel and see a broadcast sent from supabase-js, and the other way', async () => {
  await page.getByRole('link', { name: 'Realtime' }).click()
  await page.getByLabel('Channel', { exact: true }).fill('studio-e2e')
  await page.getByRole('button', { name: 'Join channel' }).click()
  await page.getByTestId('channel-state').getByText('SUBSCRIBED').waitFor()
  const supabase = createClient(api, anonKey, { auth: { persistSession: false } })
  let heard
  const fromStudio = new Promise((resolve) => (heard = resolve))
  const ch = supabase.channel('studio-e2e', { config: { broadcast: { ack: true } } })
  ch.on('broadcast', { event: 'from-studio' }, (m) => heard(m.payload))
  await new Promise((resolve, reject) =>
    ch.subscribe((s, err) => (s === 'SUBSCRIBED' ? resolve() : s !== 'CLOSED' && reject(err ?? new Error(s)))),
  )
  assert.equal(await ch.send({ type: 'broadcast', event: 'from-js', payload: { n: 42 } }), 'ok')
  await page.getByTestId('channel-event').filter({ hasText: 'broadcast from-js' }).filter({ hasText: '{"n":42}' }).waitFor()
  await page.getByLabel('Broadcast event').fill('from-studio')
  await page.getByRole('button', { name: 'Send broadcast' }).click()
  assert.deepEqual(await fromStudio, { text: 'hello from Studio' })
  await page.getByTestId('realtime-sockets').filter({ hasText: /[1-9]\d* open socket/ }).waitFor()
  // Every node's sockets in channels (one node here): the inspector's and supabase-js's.
  await page.getByTestId('realtime-node').filter({ hasText: '(this node)' }).filter({ hasText: /\b([2-9]|\d{2,}) in channels/ }).waitFor()
  await shot('21-realtime')
  await supabase.removeAllChannels()
})


// A receiver for the webhook: it records each request and answers 200.
const received = []
const receiver = createServer((req, res) => {
  let body = ''
  req.on('data', (c) => (body += c))
  req.on('end', () => {
    received.push({ method: req.method, url: req.url, headers: req.headers, body })
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('thanks')
  })
})
await new Promise((ok) => receiver.listen(0, '127.0.0.1', ok))
const hookURL = `http://127.0.0.1:${receiver.address().port}/hooks/orders`

// runSQL runs one statement in the SQL editor and waits for its command tag.
const runSQL = async (query, tag) => {
  await page.getByRole('link', { name: 'SQL editor' }).click()
  await page.getByLabel('SQL').fill(query)
  await page.getByRole('button', { name: /^Run/ }).click()
  await page.getByTestId('sql-command').filter({ hasText: tag }).waitFor()
}

step('Database: migrations, an extension enabled and disabled, functions, triggers, publications, roles, slots', async () => {
  await page.getByRole('link', { name: 'Database', exact: true }).click()
  await page.getByTestId('migrations-pending').filter({ hasText: 'Up to date' }).waitFor()
  const migrations = page.getByRole('table', { name: 'Migrations' })
  await migrations.getByRole('row').filter({ hasText: '0017_studio.sql' }).getByText('applied').waitFor()
  await shot('14-database-migrations')

  const sections = page.getByRole('navigation', { name: 'Database sections' })
  await sections.getByRole('link', { name: 'Extensions' }).click()
  await page.getByLabel('Search extensions').fill('citext')
  await page.getByRole('button', { name: 'Enable citext' }).click()
  await page.getByRole('dialog', { name: 'Enable citext?' }).getByRole('button', { name: 'Enable extension' }).click()
  const row = page.getByRole('table', { name: 'Extensions' }).getByRole('row').filter({ hasText: 'citext' })
  await row.getByText(/^enabled/).waitFor()
  await shot('15-database-extensions')
  await page.getByRole('button', { name: 'Disable citext' }).click()
  await page.getByRole('dialog', { name: 'Disable citext?' }).getByRole('button', { name: 'Disable extension' }).click()
  await row.getByText(/^available/).waitFor()

  await sections.getByRole('link', { name: 'Functions' }).click()
  await page.getByLabel('Search functions').fill('admin_hide_track')
  const fn = page.getByRole('table', { name: 'Functions' }).getByRole('row').filter({ hasText: 'admin_hide_track' }).first()
  await fn.click()
  await page.getByTestId('function-definition').filter({ hasText: 'CREATE OR REPLACE FUNCTION' }).waitFor()
  await shot('16-database-function')
  await page.keyboard.press('Escape')

  await sections.getByRole('link', { name: 'Triggers' }).click()
  await page.getByRole('table', { name: 'Triggers' }).getByRole('row').nth(1).waitFor()
  await sections.getByRole('link', { name: 'Publications' }).click()
  await page.getByRole('table', { name: 'Publications' }).getByRole('row').nth(1).waitFor()
  await sections.getByRole('link', { name: 'Roles' }).click()
  await page.getByRole('table', { name: 'Roles' }).getByRole('row').filter({ hasText: 'authenticated' }).first().waitFor()
  await sections.getByRole('link', { name: 'Replication slots' }).click()
  await page.getByRole('table', { name: 'Replication slots' }).getByRole('row').nth(1).waitFor()
  await shot('17-database-replication-slots')
})

step('Database: create a role (LOGIN, a password, a membership), edit it, drop it; reserved roles stay read-only', async () => {
  const sections = page.getByRole('navigation', { name: 'Database sections' })
  await page.getByRole('link', { name: 'Database', exact: true }).click()
  await sections.getByRole('link', { name: 'Roles' }).click()
  const roles = page.getByRole('table', { name: 'Roles' })
  await roles.getByRole('row').filter({ hasText: /^service_role\s*reserved/ }).waitFor()
  for (const reserved of ['anon', 'authenticated', 'service_role', 'authenticator', 'postgres']) {
    assert.equal(await page.getByRole('button', { name: `Edit role ${reserved}`, exact: true }).count(), 0, `${reserved} can be edited`)
  }
  await page.getByRole('button', { name: 'New role' }).click()
  const dialog = page.getByRole('dialog', { name: 'New role' })
  await dialog.getByLabel('Name').fill('e2e_reporter')
  await dialog.getByLabel('Can log in (LOGIN)').check()
  await dialog.getByLabel('Password').fill('reports-only-please')
  await dialog.getByLabel('Member of authenticated').check()
  await shot('17b-database-role-new')
  await dialog.getByRole('button', { name: 'Create role' }).click()
  await dialog.waitFor({ state: 'detached' })
  const row = roles.getByRole('row').filter({ hasText: /^e2e_reporter/ })
  await row.getByText('authenticated').waitFor()
  await page.getByRole('button', { name: 'Edit role e2e_reporter' }).click()
  const edit = page.getByRole('dialog', { name: 'Edit role e2e_reporter' })
  await edit.getByLabel('Member of authenticated').uncheck()
  await edit.getByLabel('Member of anon').check()
  await edit.getByLabel('Connection limit (-1: none)').fill('3')
  await edit.getByRole('button', { name: 'Save role' }).click()
  await edit.waitFor({ state: 'detached' })
  await row.filter({ hasText: '/ 3' }).getByText('anon').waitFor()
  await runSQL(
    "select rolcanlogin, rolpassword like 'SCRAM-SHA-256$%' as scram, pg_has_role('e2e_reporter', 'anon', 'member') as anon, pg_has_role('e2e_reporter', 'authenticated', 'member') as auth from pg_authid where rolname = 'e2e_reporter'",
    'SELECT 1',
  )
  assert.deepEqual(await page.getByTestId('sql-grid').getByRole('row').nth(1).getByRole('cell').allInnerTexts().then((c) => c.slice(-4)), ['t', 't', 't', 'f'])
  await page.getByRole('link', { name: 'Database', exact: true }).click()
  await sections.getByRole('link', { name: 'Roles' }).click()
  await page.getByRole('button', { name: 'Drop role e2e_reporter' }).click()
  await page.getByRole('dialog', { name: 'Drop role e2e_reporter?' }).getByRole('button', { name: 'Drop role' }).click()
  await row.waitFor({ state: 'detached' })
})

step('Database: publications: supabase_realtime gets a table and supabase-js sees its inserts; one created, its events toggled, dropped', async () => {
  await runSQL('create table public.e2e_feed (id int primary key, body text)', 'CREATE TABLE')
  await runSQL('grant select on public.e2e_feed to service_role', 'GRANT')
  const sections = page.getByRole('navigation', { name: 'Database sections' })
  await page.getByRole('link', { name: 'Database', exact: true }).click()
  await sections.getByRole('link', { name: 'Publications' }).click()
  const pubs = page.getByRole('table', { name: 'Publications' })
  assert.equal(await page.getByRole('button', { name: 'Drop publication supabase_realtime' }).count(), 0, 'supabase_realtime can be dropped')
  await page.getByRole('button', { name: 'Edit publication supabase_realtime' }).click()
  const edit = page.getByRole('dialog', { name: 'Edit publication supabase_realtime' })
  await edit.getByLabel('Publish table public.e2e_feed').check()
  await shot('17c-database-publication-edit')
  await edit.getByRole('button', { name: 'Save publication' }).click()
  await edit.waitFor({ state: 'detached' })
  await pubs.getByRole('row').filter({ hasText: 'supabase_realtime' }).getByText('public.e2e_feed').waitFor()
  // Realtime now streams the table: an insert reaches a supabase-js subscriber.
  const supabase = createClient(api, basalt.info.service_role_key, { auth: { persistSession: false } })
  const seen = []
  let gotInsert
  const inserted = new Promise((ok) => (gotInsert = ok))
  const channel = supabase.channel('e2e-feed').on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'e2e_feed' }, (p) => {
    seen.push(p.new.body)
    gotInsert()
  })
  await new Promise((ok, fail) => {
    let joined = false
    let ready = false
    channel.on('system', {}, (m) => {
      if (m.extension === 'postgres_changes' && m.status === 'ok') (ready = true), joined && ok()
      else if (m.status === 'error') fail(new Error(m.message))
    })
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') (joined = true), ready && ok()
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') fail(err ?? new Error(status))
    })
  })
  await runSQL("insert into public.e2e_feed values (1, 'first post')", 'INSERT 0 1')
  let timer
  await Promise.race([inserted, new Promise((_, fail) => (timer = setTimeout(() => fail(new Error('the insert did not reach supabase-js in 10 s')), 10_000)))])
  clearTimeout(timer)
  await supabase.removeChannel(channel)
  assert.deepEqual(seen, ['first post'])

  await page.getByRole('link', { name: 'Database', exact: true }).click()
  await sections.getByRole('link', { name: 'Publications' }).click()
  await page.getByRole('button', { name: 'New publication' }).click()
  const dialog = page.getByRole('dialog', { name: 'New publication' })
  await dialog.getByLabel('Name').fill('e2e_feed_pub')
  await dialog.getByLabel('Publish table public.e2e_feed').check()
  await dialog.getByLabel('Publish truncate').uncheck()
  await dialog.getByRole('button', { name: 'Create publication' }).click()
  await dialog.waitFor({ state: 'detached' })
  const row = pubs.getByRole('row').filter({ hasText: 'e2e_feed_pub' })
  await row.getByText('public.e2e_feed').waitFor()
  await page.getByRole('button', { name: 'Edit publication e2e_feed_pub' }).click()
  const edit2 = page.getByRole('dialog', { name: 'Edit publication e2e_feed_pub' })
  await edit2.getByLabel('Publish delete').uncheck()
  await edit2.getByRole('button', { name: 'Save publication' }).click()
  await edit2.waitFor({ state: 'detached' })
  await row.getByText('delete').waitFor({ state: 'detached' })
  assert.deepEqual(await row.getByRole('cell').nth(1).innerText().then((t) => t.split(/\s+/).filter(Boolean)), ['insert', 'update'])
  await page.getByRole('button', { name: 'Drop publication e2e_feed_pub' }).click()
  await page.getByRole('dialog', { name: 'Drop publication e2e_feed_pub?' }).getByRole('button', { name: 'Drop publication' }).click()
  await row.waitFor({ state: 'detached' })
})

step('Cron: schedule a job every minute (its run is checked later)', async () => {
  await runSQL('create table public.e2e_ticks (at timestamptz default now())', 'CREATE TABLE')
  await page.getByRole('link', { name: 'Cron' }).click()
  await page.getByRole('button', { name: 'New job' }).click()
  const dialog = page.getByRole('dialog', { name: 'New cron job' })
  await dialog.getByLabel('Name').fill('e2e_tick')
  await dialog.getByRole('button', { name: 'every minute' }).click()
  await dialog.getByLabel('Command (SQL)').fill('insert into public.e2e_ticks default values')
  await dialog.getByRole('button', { name: 'Schedule job' }).click()
  await dialog.waitFor({ state: 'detached' })
  await page.getByRole('table', { name: 'Cron jobs' }).getByRole('row').filter({ hasText: 'e2e_tick' }).getByText('* * * * *').waitFor()
  await shot('18-cron')
})

step('Queues: create, send, peek, archive, delete, drop (confirmed)', async () => {
  await page.getByRole('link', { name: 'Queues' }).click()
  await page.getByRole('button', { name: 'New queue' }).click()
  await page.getByRole('dialog', { name: 'New queue' }).getByLabel(/^Name/).fill('e2e_emails')
  await page.getByRole('button', { name: 'Create queue' }).click()
  await page.getByRole('heading', { name: 'e2e_emails' }).waitFor()
  for (const to of ['ada@backline.test', 'zara@backline.test']) {
    await page.getByRole('button', { name: 'Send message' }).click()
    const dialog = page.getByRole('dialog', { name: 'Send a message to e2e_emails' })
    await dialog.getByLabel('Message (JSON)').fill(JSON.stringify({ to, template: 'welcome' }))
    await dialog.getByRole('button', { name: 'Send', exact: true }).click()
    await dialog.waitFor({ state: 'detached' })
  }
  // A message sent with pgmq's SQL interface shows up too.
  await runSQL(`select * from pgmq.send('e2e_emails', '{"to": "ops@backline.test", "template": "digest"}')`, 'SELECT 1')
  await page.getByRole('link', { name: 'Queues' }).click()
  await page.getByRole('list', { name: 'Queues' }).getByRole('link', { name: /e2e_emails/ }).click()
  const messages = page.getByRole('table', { name: 'Messages' })
  await messages.getByText('ops@backline.test').waitFor()
  await page.getByTestId('queue-depth').filter({ hasText: '3' }).waitFor()
  await shot('19-queues')
  await page.getByRole('button', { name: 'Archive message 1' }).click()
  await page.getByRole('button', { name: 'Delete message 2' }).click()
  await page.getByRole('dialog', { name: 'Delete message 2?' }).getByRole('button', { name: 'Delete message' }).click()
  await page.getByTestId('queue-depth').filter({ hasText: '1' }).waitFor()
  await page.getByRole('tab', { name: 'Archive' }).click()
  await messages.getByText('ada@backline.test').waitFor()
  await page.getByRole('button', { name: 'Drop queue' }).click()
  await page.getByRole('dialog', { name: 'Drop queue e2e_emails?' }).getByRole('button', { name: 'Drop queue' }).click()
  await page.getByRole('list', { name: 'Queues' }).getByText('e2e_emails').waitFor({ state: 'detached' })
})

step('Webhooks: an INSERT posts Supabase\'s payload to a local receiver, seen as delivered; edit it in place; pause and delete', async () => {
  await runSQL('create table public.e2e_orders (id int primary key, total int)', 'CREATE TABLE')
  await page.getByRole('link', { name: 'Webhooks' }).click()
  await page.getByRole('button', { name: 'New webhook' }).click()
  const dialog = page.getByRole('dialog', { name: 'New database webhook' })
  await dialog.getByLabel('Name').fill('order placed')
  await dialog.getByLabel('Table').selectOption('e2e_orders')
  await dialog.getByLabel('URL').fill(hookURL)
  await dialog.getByRole('button', { name: 'Create webhook' }).click()
  await dialog.waitFor({ state: 'detached' })
  await runSQL('insert into public.e2e_orders values (1, 4200)', 'INSERT 0 1')
  await page.getByRole('link', { name: 'Webhooks' }).click()
  await page.getByTestId('delivery-state').filter({ hasText: 'delivered 200' }).waitFor({ timeout: 30_000 })
  await page.getByRole('table', { name: 'Webhooks' }).getByText(/^1 · /).waitFor()
  assert.equal(received.length, 1, `the receiver got ${received.length} requests`)
  const payload = JSON.parse(received[0].body)
  assert.deepEqual([received[0].method, received[0].url, payload.type, payload.table, payload.schema, payload.record, payload.old_record], ['POST', '/hooks/orders', 'INSERT', 'e2e_orders', 'public', { id: 1, total: 4200 }, null])
  await shot('20-webhooks')
  // Edited in place: another URL, UPDATE too, a header; an UPDATE reaches the new URL with it.
  await page.getByRole('button', { name: 'Edit order placed' }).click()
  const edit = page.getByRole('dialog', { name: 'Edit webhook order placed' })
  assert.equal(await edit.getByLabel('URL').inputValue(), hookURL)
  await edit.getByLabel('URL').fill(`${hookURL}-v2`)
  await edit.getByLabel('UPDATE').check()
  await edit.getByLabel('Headers (JSON)').fill('{"Content-Type": "application/json", "X-Team": "backline"}')
  await edit.getByLabel('Timeout (ms)').fill('3000')
  await shot('20b-webhook-edit')
  await edit.getByRole('button', { name: 'Save webhook' }).click()
  await edit.waitFor({ state: 'detached' })
  await page.getByRole('table', { name: 'Webhooks' }).getByText(`POST ${hookURL}-v2`).waitFor()
  await runSQL('update public.e2e_orders set total = 4300 where id = 1', 'UPDATE 1')
  await page.getByRole('link', { name: 'Webhooks' }).click()
  await page.getByRole('table', { name: 'Webhooks' }).getByText(/^2 · /).waitFor({ timeout: 30_000 })
  await page.getByTestId('delivery-state').filter({ hasText: 'delivered 200' }).nth(1).waitFor({ timeout: 30_000 })
  assert.equal(received.length, 2, `the receiver got ${received.length} requests`)
  const second = JSON.parse(received[1].body)
  assert.deepEqual([received[1].url, received[1].headers['x-team'], second.type, second.record.total, second.old_record.total], ['/hooks/orders-v2', 'backline', 'UPDATE', 4300, 4200])
  await page.getByLabel('Enabled order placed').click()
  await page.getByRole('table', { name: 'Webhooks' }).getByText('paused').waitFor()
  await page.getByRole('button', { name: 'Delete order placed' }).click()
  await page.getByRole('dialog', { name: 'Delete webhook order placed?' }).getByRole('button', { name: 'Delete webhook' }).click()
  await page.getByRole('table', { name: 'Webhooks' }).getByText('No webhooks yet.').waitFor()
})

step('Database: run a backup, then restore it into a new database (confirmed)', async () => {
  await page.getByRole('link', { name: 'Database', exact: true }).click()
  await page.getByRole('navigation', { name: 'Database sections' }).getByRole('link', { name: 'Backups' }).click()
  await page.getByRole('button', { name: 'Run backup' }).click()
  const row = page.getByRole('table', { name: 'Backups' }).getByRole('row').filter({ hasText: 'basalt-backup-' })
  await row.waitFor({ timeout: 60_000 })
  const name = (await row.getByRole('cell').first().innerText()).trim()
  // The demo media are in the backup, bytes and all (the store is the storage service's).
  assert.doesNotMatch(await row.innerText(), /\(0 B\)/, 'the backup holds no object bytes')
  await row.getByRole('button', { name: `Restore ${name}` }).click()
  const dialog = page.getByRole('dialog', { name: `Restore ${name}?` })
  await dialog.getByLabel('New database name').fill('e2e_restored')
  await dialog.getByRole('button', { name: 'Restore into a new database' }).click()
  await page.getByTestId('restored').filter({ hasText: 'e2e_restored' }).waitFor({ timeout: 90_000 })
  await shot('22-database-backups')
})

step('Cron: the job ran (cron.job_run_details), then unschedule it (confirmed)', async () => {
  await page.getByRole('link', { name: 'Cron' }).click()
  await page.getByRole('button', { name: 'Runs of e2e_tick' }).click()
  // pg_cron runs minute schedules at the start of the next minute.
  await page.getByRole('table', { name: 'Runs' }).getByText('succeeded').first().waitFor({ timeout: 90_000 })
  await page.getByRole('table', { name: 'Cron jobs' }).getByText('succeeded').waitFor()
  await shot('23-cron-runs')
  await page.getByRole('button', { name: 'Unschedule e2e_tick' }).click()
  await page.getByRole('dialog', { name: 'Unschedule e2e_tick?' }).getByRole('button', { name: 'Unschedule' }).click()
  await page.getByRole('table', { name: 'Cron jobs' }).getByText(/No jobs yet/).waitFor()
})

// reachIn lists, for the page as it is, what a phone could not reach: the
// page scrolling sideways, or anything shown outside the screen that no
// sideways-scrolling container holds (clipped, or pushed off the page).
function reachIn() {
  const vw = window.innerWidth
  const problems = []
  const se = document.scrollingElement
  if (se.scrollWidth > vw) problems.push(`the page is ${se.scrollWidth}px wide`)
  const name = (e) => `${e.tagName.toLowerCase()} "${(e.getAttribute('aria-label') ?? e.textContent ?? '').trim().slice(0, 30)}"`
  const scrolls = (e, axis = 'overflowX') => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p)[axis]
      if (o === 'auto' || o === 'scroll') return true
    }
    return false
  }
  const vh = window.innerHeight
  const pageScrolls = se.scrollHeight > vh
  for (const e of document.body.querySelectorAll('*')) {
    const r = e.getBoundingClientRect()
    if (r.width === 0 || r.height === 0 || getComputedStyle(e).visibility === 'hidden') continue
    // Below the screen with nothing to scroll it up: cut off.
    if (r.top >= vh && !pageScrolls && !scrolls(e, 'overflowY')) {
      problems.push(`${name(e)} starts at ${Math.round(r.top)}px, below the screen, and nothing scrolls to it`)
    } else if (r.left >= -0.5 && r.right <= vw + 0.5) continue
    else if (!scrolls(e)) problems.push(`${name(e)} spans ${Math.round(r.left)}..${Math.round(r.right)}px`)
    else continue
    if (problems.length >= 6) break
  }
  return problems
}

step('every screen at 360×740 and 390×844: no sideways scroll, the navigation and every control reachable', async () => {
  const screens = ['/', '/tables/public/tracks', '/sql', '/auth', '/storage', '/realtime', '/logs', '/docs', '/docs/tracks', '/database', '/database/roles', '/database/publications', '/cron', '/queues', '/webhooks']
  const failures = []
  for (const size of [{ width: 360, height: 740 }, { width: 390, height: 844 }]) {
    await page.setViewportSize(size)
    for (const path of screens) {
      await page.goto(new URL(path, studio).href)
      await page.locator('main').filter({ hasNotText: 'Loading' }).waitFor()
      await page.waitForLoadState('networkidle')
      for (const p of await page.evaluate(reachIn)) failures.push(`${path} at ${size.width}px: ${p}`)
      await page.screenshot({ path: `${shots}phone-${path === '/' ? 'home' : path.slice(1).replaceAll('/', '-')}-${size.width}x${size.height}.png` })
    }
    // The side panels: a user's, and a bucket's files.
    await page.goto(new URL('/auth', studio).href)
    await page.getByRole('table', { name: 'Users' }).getByText('ada@backline.test').click()
    await page.getByRole('complementary', { name: 'User' }).getByTestId('user-title').waitFor()
    // Under the list on a phone, the panel comes into view by itself.
    await page.waitForFunction(() => {
      const r = document.querySelector('aside[aria-label="User"]').getBoundingClientRect()
      return r.top >= 0 && r.top < window.innerHeight - 120
    })
    for (const p of await page.evaluate(reachIn)) failures.push(`/auth with a user open at ${size.width}px: ${p}`)
    await page.screenshot({ path: `${shots}phone-auth-user-${size.width}x${size.height}.png` })
    await page.goto(new URL('/storage', studio).href)
    await page.getByRole('list', { name: 'Buckets' }).getByRole('button', { name: /covers/ }).click()
    await page.getByRole('heading', { name: 'covers' }).waitFor()
    await page.waitForLoadState('networkidle')
    for (const p of await page.evaluate(reachIn)) failures.push(`/storage in a bucket at ${size.width}px: ${p}`)
    await page.screenshot({ path: `${shots}phone-storage-bucket-${size.width}x${size.height}.png` })
    // Postgres's log, a tab of Logs.
    await page.goto(new URL('/logs', studio).href)
    await page.getByRole('tab', { name: 'Postgres' }).click()
    await page.getByRole('table', { name: 'Postgres log' }).waitFor()
    for (const p of await page.evaluate(reachIn)) failures.push(`/logs on Postgres's log at ${size.width}px: ${p}`)
    await page.screenshot({ path: `${shots}phone-logs-postgres-${size.width}x${size.height}.png` })
    // The navigation opens from the top bar and reaches every screen.
    await page.getByRole('button', { name: 'Open navigation' }).click()
    const nav = page.getByRole('navigation', { name: 'Studio' })
    await nav.getByRole('link', { name: 'Logs' }).click()
    await nav.waitFor({ state: 'hidden' })
    await page.getByRole('button', { name: 'Open navigation' }).waitFor()
    assert.match(new URL(page.url()).pathname, /\/logs$/)
  }
  await page.setViewportSize({ width: 1440, height: 900 })
  // Every failing page is listed (the runner shows a failure's first lines only).
  if (failures.length) console.log(`     ${failures.join('\n     ')}`)
  assert.equal(failures.length, 0, `${failures.length} places a phone cannot reach`)
})

let failed = 0
try {
  // E2E_ONLY=text runs the steps whose names contain it, or one of its
  // |-separated parts (later steps build on earlier ones: for steps that
  // stand alone, after the first, which opens Studio).
  const only = process.env.E2E_ONLY?.split('|').filter(Boolean) ?? []
  for (const s of steps.filter((s) => !only.length || only.some((o) => s.name.includes(o)))) {
    const t0 = Date.now()
    try {
      await s.fn()
      console.log(`ok   ${s.name} (${Date.now() - t0} ms)`)
    } catch (e) {
      failed++
      console.log(`FAIL ${s.name}\n     ${String(e.stack ?? e).split('\n').slice(0, 6).join('\n     ')}`)
      await shot(`failed-${steps.indexOf(s) + 1}`).catch(() => {})
      break // later steps build on earlier ones
    }
  }
  if (problems.length) {
    failed++
    console.log(`FAIL the page reported errors:\n     ${problems.join('\n     ')}`)
  }
} finally {
  await browser.close()
  receiver.close()
  const clean = await basalt.stop()
  if (failed) console.log(basalt.tail(40))
  rmSync(dir, { recursive: true, force: true })
  if (!clean) failed++
}
console.log(failed ? `studio e2e: ${failed} failed` : `studio e2e: ${steps.length} steps passed`)
process.exit(failed ? 1 : 0)
