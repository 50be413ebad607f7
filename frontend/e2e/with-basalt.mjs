// Runs the e2e suite against a private `basalt dev`: free ports, a fresh data
// directory, keys read from `basalt status --json`, and a clean stop at the
// end. The binary is ../bin/basalt (built by `just build`) or BASALT_BIN; the
// frontend must be built into dist/ first. For this run only, Google sign-in
// goes to a local OpenID Connect provider (auth/testidp, built here with go
// unless TESTIDP_BIN names it), so "Continue with Google" works offline;
// and Basalt's OAuth server is on, for the "Sign in with Backline" journey.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

const root = new URL('../../', import.meta.url).pathname
const bin = process.env.BASALT_BIN ?? join(root, 'bin/basalt')
const dataDir = mkdtempSync(join(tmpdir(), 'backline-e2e-'))

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address()
      s.close(() => resolve(port))
    })
  })

// The provider prints its issuer, client and control origin on its first line.
const toolDir = mkdtempSync(join(tmpdir(), 'backline-e2e-idp-'))
const idpBin = process.env.TESTIDP_BIN ?? join(toolDir, 'testidp')
if (!process.env.TESTIDP_BIN) {
  const b = spawnSync('go', ['build', '-o', idpBin, './auth/testidp/cmd/testidp'], { cwd: root, stdio: 'inherit' })
  if (b.status !== 0) {
    console.error('go build ./auth/testidp/cmd/testidp failed')
    rmSync(dataDir, { recursive: true, force: true })
    rmSync(toolDir, { recursive: true, force: true })
    process.exit(1)
  }
}
const idp = spawn(idpBin, ['-addr', '127.0.0.1:0'], { stdio: ['pipe', 'pipe', 'inherit'] })
const idpInfo = JSON.parse(
  await new Promise((resolve, reject) => {
    createInterface({ input: idp.stdout }).once('line', resolve)
    idp.once('exit', (code) => reject(new Error(`testidp exited (${code})`)))
  }),
)

const env = {
  ...process.env,
  BASALT_API_PORT: String(await freePort()),
  BASALT_DB_PORT: String(await freePort()),
  BASALT_APP_PORT: String(await freePort()),
  BASALT_AUTH_EXTERNAL_GOOGLE_ENABLED: 'true',
  BASALT_AUTH_EXTERNAL_GOOGLE_CLIENT_ID: idpInfo.client_id,
  BASALT_AUTH_EXTERNAL_GOOGLE_SECRET: idpInfo.client_secret,
  BASALT_AUTH_EXTERNAL_GOOGLE_ISSUER: idpInfo.issuer,
  // "Sign in with Backline" (e2e/oauth.mjs): the OAuth server, whose
  // consent page basalt dev already points at /oauth/consent.
  BASALT_AUTH_OAUTH_SERVER_ENABLED: 'true',
}
// basalt dev serves frontend/dist relative to the repository root.
const basalt = spawn(bin, ['dev', '--data-dir', dataDir], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] })
let log = ''
const ready = new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`basalt dev not ready after 180 s:\n${log}`)), 180_000)
  const onData = (d) => {
    log += d
    if (log.includes('basalt dev ready')) {
      clearTimeout(timer)
      resolve()
    }
  }
  basalt.stdout.on('data', onData)
  basalt.stderr.on('data', onData)
  basalt.on('exit', (code) => reject(new Error(`basalt dev exited with ${code}:\n${log}`)))
})

// Stop basalt (and with it PostgreSQL) and the provider also when this runner is interrupted.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => {
  basalt.kill('SIGINT')
  idp.stdin.end()
})

let code = 1
try {
  await ready
  const status = spawnSync(bin, ['status', '--json', '--data-dir', dataDir], { cwd: root, env, encoding: 'utf8' })
  if (status.status !== 0) throw new Error(`basalt status: ${status.stderr}`)
  const s = JSON.parse(status.stdout)
  const run = spawn(process.execPath, [new URL('./run.mjs', import.meta.url).pathname], {
    stdio: 'inherit',
    env: {
      ...process.env,
      BASALT_APP_URL: s.app_url,
      BASALT_API_URL: s.api_url,
      BASALT_ANON_KEY: s.anon_key,
      BASALT_SERVICE_ROLE_KEY: s.service_role_key,
      DATABASE_URL: s.db_url,
      E2E_OIDC_CONTROL: idpInfo.control,
    },
  })
  code = await new Promise((resolve) => run.on('exit', (c) => resolve(c ?? 1)))
  // Keep the server's log next to the screenshots when something failed.
  if (code !== 0) writeFileSync(new URL('./screenshots/basalt.log', import.meta.url), log)
} catch (e) {
  console.error(String(e))
} finally {
  basalt.kill('SIGINT')
  await new Promise((r) => (basalt.exitCode !== null ? r() : basalt.on('exit', r)))
  rmSync(dataDir, { recursive: true, force: true })
  idp.stdin.end() // testidp stops when its stdin closes
  await new Promise((r) => (idp.exitCode !== null ? r() : idp.on('exit', r)))
  rmSync(toolDir, { recursive: true, force: true })
}
process.exit(code)
