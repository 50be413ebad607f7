// Runs the official supabase-js test suites, from a checkout of the
// supabase-js monorepo kept outside this repository, against a private
// `basalt dev`, and prints a tally. See README.md next to this file.
//
//   node compat/official/run.mjs DIR [SUITE...]    # SUITE: postgrest auth storage functions supabase
//
// BASALT_BIN skips the build. KEEP_DATA=1 keeps the temporary dirs (basalt
// logs, jest results). Exit status 0 when every test passed.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildBasalt, log, startBasalt, tempDir } from '../lib/basalt.mjs'
import { cliEnv, suites } from './suites.mjs'

const here = path.dirname(fileURLToPath(import.meta.url))
const modules = path.join(here, 'node_modules')

async function main() {
  const [dirArg, ...names] = process.argv.slice(2)
  if (!dirArg) throw new Error('usage: run.mjs DIR [SUITE...] (DIR: a checkout of supabase/supabase-js)')
  const dir = path.resolve(dirArg)
  if (!fs.existsSync(path.join(dir, 'packages', 'core', 'postgrest-js'))) {
    throw new Error(`${dir} is not a supabase-js monorepo checkout (no packages/core/postgrest-js)`)
  }
  const wanted = names.length > 0 ? names : Object.keys(suites).filter((n) => !suites[n].optional)
  for (const n of wanted) if (!suites[n]) throw new Error(`unknown suite ${n} (have ${Object.keys(suites).join(', ')})`)
  if (!fs.existsSync(path.join(modules, 'jest'))) {
    log('installing the runner dependencies (npm ci)')
    const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: here, stdio: 'inherit' })
    if (r.status !== 0) throw new Error('npm ci failed in compat/official')
  }

  const tmp = tempDir('basalt-official-')
  const bin = buildBasalt(tmp)
  const tallies = []
  try {
    for (const name of wanted) {
      tallies.push(await runSuite(name, suites[name], dir, bin, path.join(tmp, name)))
    }
  } finally {
    if (process.env.KEEP_DATA) log(`kept ${tmp}`)
    else fs.rmSync(tmp, { recursive: true, force: true })
  }
  let passed = 0
  let failed = 0
  for (const t of tallies) {
    console.log(`${t.name.padEnd(10)} ${t.passed} passed, ${t.failed} failed${t.note ? ` (${t.note})` : ''}`)
    passed += t.passed
    failed += t.failed
  }
  console.log(`${passed} passed, ${failed} failed`)
  process.exit(failed === 0 ? 0 : 1)
}

// runSuite starts a fresh basalt dev with the suite's fixtures and
// settings, runs the package's jest tests against it and counts results.
async function runSuite(name, suite, dir, bin, work) {
  fs.mkdirSync(work, { recursive: true, mode: 0o755 })
  fs.chmodSync(work, 0o755)
  const pkgDir = path.join(dir, 'packages', 'core', suite.pkg)
  const ctx = { dir, pkgDir, work }
  const sqlDir = path.join(work, 'sql')
  writeSQL(sqlDir, suite.sql ? suite.sql(ctx) : {})
  const dataDir = path.join(work, 'data')
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 })
  // Keys as the suite's fixtures sign them: written before the first start,
  // as basalt dev keeps them in its data dir.
  const keys = suite.keys(ctx)
  fs.writeFileSync(path.join(dataDir, 'keys.json'), JSON.stringify(keys, null, 2), { mode: 0o600 })

  log(`== ${name}: ${suite.pkg}`)
  let basalt
  let result = { name, passed: 0, failed: 0 }
  try {
    basalt = await startBasalt({ bin, dir: work, env: { BASALT_SQL_DIR: sqlDir, ...cliEnv, ...suite.env } })
    if (suite.functions) deployFunctions(bin, suite.functions(ctx), work, dataDir)
    result = { name, ...runJest(name, suite, ctx, basalt.info) }
  } catch (err) {
    log(`${name}: ${err.message}`)
    result.failed = 1
    result.note = 'did not run'
  } finally {
    if (basalt) await basalt.stop()
  }
  return result
}

// deployFunctions lays the suite's Deno functions out as a Supabase project
// (supabase/functions/<name>/index.ts, verify_jwt off as the suite's relay
// checks tokens itself) and deploys them into the running basalt with
// `basalt functions deploy`. The functions import the old Deno standard
// library's http server from its web address, which this machine cannot
// reach; an import map (Supabase's config.toml import_map) points it at
// std_http_server.ts beside this file, which offers the same serve().
function deployFunctions(bin, from, work, dataDir) {
  const fnDir = path.join(work, 'supabase', 'functions')
  const shared = path.join(fnDir, '_shared')
  fs.mkdirSync(shared, { recursive: true })
  fs.copyFileSync(path.join(here, 'std_http_server.ts'), path.join(shared, 'std_http_server.ts'))
  fs.writeFileSync(path.join(shared, 'import_map.json'),
    JSON.stringify({ imports: { 'https://deno.land/std/http/server.ts': './std_http_server.ts' } }, null, 2))
  let config = ''
  for (const name of fs.readdirSync(from)) {
    const src = path.join(from, name)
    if (!fs.statSync(src).isDirectory()) continue
    fs.cpSync(src, path.join(fnDir, name), { recursive: true })
    config += `[functions.${name}]\nverify_jwt = false\nimport_map = "./functions/_shared/import_map.json"\n\n`
  }
  fs.writeFileSync(path.join(work, 'supabase', 'config.toml'), config)
  const r = spawnSync(bin, ['functions', 'deploy', '--data-dir', dataDir], { cwd: work, encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`basalt functions deploy failed: ${r.stdout}${r.stderr}`)
  log(r.stdout.trim())
}

// writeSQL lays out a BASALT_SQL_DIR: app/ migrations and seed/ files, each
// given as [name, text].
function writeSQL(sqlDir, { app = [], seed = [] }) {
  for (const [sub, files] of [['app', app], ['seed', seed]]) {
    fs.mkdirSync(path.join(sqlDir, sub), { recursive: true })
    for (const [file, text] of files) fs.writeFileSync(path.join(sqlDir, sub, file), text)
  }
}

// runJest runs the package's tests with this runner's jest, TypeScript
// transpiled without type checks (the packages' own type tests are a
// separate tool), and the fetch adapter of setup.cjs loaded first.
function runJest(name, suite, ctx, info) {
  const { dir, pkgDir, work } = ctx
  const core = path.join(dir, 'packages', 'core')
  const config = {
    rootDir: pkgDir,
    testEnvironment: 'node',
    testTimeout: 30_000,
    maxWorkers: 1,
    modulePaths: [modules],
    moduleFileExtensions: ['ts', 'tsx', 'js', 'cjs', 'mjs', 'json', 'node'],
    transform: {
      '^.+\\.tsx?$': [
        path.join(modules, 'ts-jest'),
        {
          diagnostics: false,
          tsconfig: {
            target: 'es2022',
            module: 'commonjs',
            lib: ['es2022', 'dom'],
            esModuleInterop: true,
            resolveJsonModule: true,
            isolatedModules: true,
            skipLibCheck: true,
            strict: false,
          },
        },
      ],
    },
    moduleNameMapper: {
      '^@supabase/(auth-js|functions-js|postgrest-js|realtime-js|storage-js|supabase-js)$': `${core}/$1/src/index.ts`,
      '^@supabase/supabase-js/(cors|tracing)$': `${core}/supabase-js/src/$1.ts`,
      '^@supabase/tracing$': path.join(dir, 'packages', 'shared', 'tracing', 'src', 'index.ts'),
      ...(suite.moduleNameMapper ?? {}),
    },
    setupFiles: [path.join(here, 'setup.cjs')],
    setupFilesAfterEnv: (suite.setupFilesAfterEnv ?? []).map((f) => path.join(pkgDir, f)),
    testMatch: suite.testMatch ?? ['**/test/**/?(*.)+(spec|test).[jt]s?(x)'],
    testPathIgnorePatterns: ['/node_modules/', ...(suite.ignore ?? [])],
    ...(suite.jest ? suite.jest(ctx) : {}),
  }
  const out = path.join(work, 'jest.json')
  const env = {
    ...process.env,
    NODE_PATH: modules,
    BASALT_OFFICIAL_API_URL: info.api_url,
    BASALT_OFFICIAL_ANON_KEY: suite.keys(ctx).anon_key,
    BASALT_OFFICIAL_HOOKS: JSON.stringify(suite.hooks ?? {}),
  }
  const args = [
    path.join(modules, 'jest', 'bin', 'jest.js'),
    '--config', JSON.stringify(config),
    '--runInBand', '--ci', '--json', '--outputFile', out,
    ...(process.env.JEST_ARGS ? process.env.JEST_ARGS.split(' ') : []),
  ]
  spawnSync(process.execPath, args, { cwd: pkgDir, env, stdio: 'inherit' })
  if (!fs.existsSync(out)) return { passed: 0, failed: 1, note: 'jest wrote no results' }
  const res = JSON.parse(fs.readFileSync(out, 'utf8'))
  // A file that fails to load counts as one failure: its tests never ran.
  const broken = res.testResults.filter((f) => f.status === 'failed' && f.assertionResults.length === 0).length
  if (process.env.KEEP_DATA) fs.copyFileSync(out, path.join(work, `${name}-jest.json`))
  return { passed: res.numPassedTests, failed: res.numFailedTests + broken }
}

main().catch((err) => {
  log(err.stack || String(err))
  process.exit(2)
})
