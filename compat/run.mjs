// Runs the compat suite: builds basalt, starts `basalt dev` on free ports in
// a temporary data dir, waits for /health, reads `basalt status --json`, runs
// `node --test` over compat/tests (or the files given as arguments) with the
// URL and keys in the environment, then stops basalt and exits with the
// tests' status.
//
//   node compat/run.mjs                        # every compat/tests/*.test.mjs
//   node compat/run.mjs tests/auth.test.mjs    # some files (relative to compat/)
//
// BASALT_BIN skips the build and uses that binary. KEEP_DATA=1 keeps the
// temporary data dir and the server log for inspection.
import { spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const compatDir = path.dirname(fileURLToPath(import.meta.url))
const root = path.dirname(compatDir)

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.unref()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

function log(msg) {
  process.stderr.write(`compat: ${msg}\n`)
}

async function main() {
  if (!fs.existsSync(path.join(compatDir, 'node_modules', '@supabase', 'supabase-js'))) {
    log('installing compat dependencies (npm ci)')
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: compatDir, stdio: 'inherit' })
    if (r.status !== 0) throw new Error('npm ci failed in compat/')
  }

  // A private temp dir; world-traversable because PostgreSQL runs as an
  // unprivileged user when the suite runs as root.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-compat-'))
  fs.chmodSync(tmp, 0o755)
  let bin = process.env.BASALT_BIN
  if (!bin) {
    bin = path.join(tmp, 'basalt')
    log('building basalt')
    const r = spawnSync('go', ['build', '-o', bin, './cmd/basalt'], { cwd: root, stdio: 'inherit' })
    if (r.status !== 0) throw new Error('go build ./cmd/basalt failed')
  }

  const [apiPort, dbPort, appPort] = [await freePort(), await freePort(), await freePort()]
  const dataDir = path.join(tmp, 'data')
  const logFile = path.join(tmp, 'basalt.log')
  const logFd = fs.openSync(logFile, 'a')
  const env = {
    ...process.env,
    BASALT_API_PORT: String(apiPort),
    BASALT_DB_PORT: String(dbPort),
    BASALT_APP_PORT: String(appPort),
    BASALT_DATA_DIR: dataDir,
    // A second exposed schema for the schema-switching tests (.schema()).
    REST_DB_SCHEMAS: 'public,compat_rest_extra',
  }
  log(`starting basalt dev (api :${apiPort}, db :${dbPort}, app :${appPort}, data ${dataDir})`)
  const child = spawn(bin, ['dev', '--data-dir', dataDir], { cwd: root, env, stdio: ['ignore', logFd, logFd] })
  let exited = null
  const exitPromise = new Promise((resolve) => child.on('exit', (code, signal) => {
    exited = { code, signal }
    resolve(exited)
  }))

  const tail = () => {
    const text = fs.readFileSync(logFile, 'utf8')
    return text.split('\n').slice(-60).join('\n')
  }
  let status = 1
  try {
    const deadline = Date.now() + 180_000
    for (;;) {
      if (exited) throw new Error(`basalt dev exited early (${JSON.stringify(exited)}):\n${tail()}`)
      try {
        const res = await fetch(`http://127.0.0.1:${apiPort}/health`)
        if (res.ok) break
      } catch {}
      if (Date.now() > deadline) throw new Error(`basalt dev did not become healthy in time:\n${tail()}`)
      await new Promise((r) => setTimeout(r, 200))
    }
    const st = spawnSync(bin, ['status', '--json', '--data-dir', dataDir], { cwd: root, env, encoding: 'utf8' })
    if (st.status !== 0) throw new Error(`basalt status --json failed: ${st.stderr}`)
    const info = JSON.parse(st.stdout)

    const files = process.argv.slice(2).map((f) => path.resolve(compatDir, f))
    const targets = files.length > 0 ? files : testFiles(path.join(compatDir, 'tests'))
    if (targets.length === 0) throw new Error('no compat tests found in compat/tests')
    log(`running ${targets.length} test file(s)`)
    const testEnv = {
      ...process.env,
      SUPABASE_URL: info.api_url,
      SUPABASE_ANON_KEY: info.anon_key,
      SUPABASE_SERVICE_ROLE_KEY: info.service_role_key,
      SUPABASE_JWT_SECRET: info.jwt_secret,
      SUPABASE_DB_URL: info.db_url,
      SUPABASE_PUBLISHABLE_KEY: info.publishable_key ?? '',
      SUPABASE_SECRET_KEY: info.secret_key ?? '',
      SUPABASE_JWKS_URL: info.jwks_url,
      BASALT_APP_URL: info.app_url ?? '',
      BASALT_DATA_DIR: dataDir,
    }
    // supabase-js's realtime client needs a global WebSocket, which Node 20
    // has only behind a flag (Node 22 has it by default).
    if (Number(process.versions.node.split('.')[0]) < 22) {
      testEnv.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --experimental-websocket`.trim()
    }
    const r = spawnSync(process.execPath, ['--test', ...targets], { cwd: compatDir, env: testEnv, stdio: 'inherit' })
    status = r.status ?? 1
    if (status !== 0) log(`tests failed; last lines of the basalt log:\n${tail()}`)
  } catch (err) {
    log(err.message)
    status = 1
  } finally {
    if (!exited) {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
      await exitPromise
      clearTimeout(timer)
      if (exited.code !== 0) {
        log(`basalt dev did not stop cleanly (${JSON.stringify(exited)}):\n${tail()}`)
        status = status || 1
      }
    }
    fs.closeSync(logFd)
    if (process.env.KEEP_DATA) log(`kept ${tmp}`)
    else fs.rmSync(tmp, { recursive: true, force: true })
  }
  process.exit(status)
}

// testFiles lists *.test.mjs under dir, sorted.
function testFiles(dir) {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => path.join(dir, f))
}

main().catch((err) => {
  log(err.stack || String(err))
  process.exit(1)
})
