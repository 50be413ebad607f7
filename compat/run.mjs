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
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { buildBasalt, compatDir, freePort, log, startBasalt, tempDir } from './lib/basalt.mjs'

async function main() {
  if (!fs.existsSync(path.join(compatDir, 'node_modules', '@supabase', 'supabase-js'))) {
    log('installing compat dependencies (npm ci)')
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: compatDir, stdio: 'inherit' })
    if (r.status !== 0) throw new Error('npm ci failed in compat/')
  }

  const tmp = tempDir('basalt-compat-')
  let status = 1
  let basalt
  try {
    const bin = buildBasalt(tmp)
    // The passkey tests serve their page from this origin (WebAuthn binds
    // credentials to the page's origin and host, so it is fixed up front).
    const webauthnOrigin = `http://localhost:${await freePort()}`
    basalt = await startBasalt({
      bin,
      dir: tmp,
      env: {
        // A second exposed schema for the schema-switching tests (.schema()),
        // and pgmq_public for the queue tests, as Supabase's self-hosting
        // guide adds it to the exposed schemas.
        REST_DB_SCHEMAS: 'public,compat_rest_extra,pgmq_public',
        BASALT_AUTH_WEBAUTHN_RP_ID: 'localhost',
        BASALT_AUTH_WEBAUTHN_RP_DISPLAY_NAME: 'Basalt compat',
        BASALT_AUTH_WEBAUTHN_RP_ORIGINS: webauthnOrigin,
        BASALT_AUTH_PASSKEY_ENABLED: 'true',
        BASALT_AUTH_MFA_WEB_AUTHN_ENROLL_ENABLED: 'true',
        BASALT_AUTH_MFA_WEB_AUTHN_VERIFY_ENABLED: 'true',
        // The OAuth 2.1 server (tests/auth-oauth-server.test.mjs).
        BASALT_AUTH_OAUTH_SERVER_ENABLED: 'true',
        BASALT_AUTH_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION: 'true',
        // The suite's own Supabase project (TypeScript functions on Deno).
        BASALT_FUNCTIONS_DIR: path.join(compatDir, 'supabase', 'functions'),
      },
    })
    const { info, dataDir } = basalt
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
      BASALT_BIN: bin,
      COMPAT_WEBAUTHN_ORIGIN: webauthnOrigin,
    }
    // supabase-js's realtime client needs a global WebSocket, which Node 20
    // has only behind a flag (Node 22 has it by default).
    if (Number(process.versions.node.split('.')[0]) < 22) {
      testEnv.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --experimental-websocket`.trim()
    }
    const r = spawnSync(process.execPath, ['--test', ...targets], { cwd: compatDir, env: testEnv, stdio: 'inherit' })
    status = r.status ?? 1
    if (status !== 0) log(`tests failed; last lines of the basalt log:\n${basalt.tail()}`)
  } catch (err) {
    log(err.message)
    status = 1
  } finally {
    if (basalt && !(await basalt.stop())) status = status || 1
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
