// The official suites the runner knows: which package, the fixtures and
// settings the upstream tests expect of the Supabase CLI stack they were
// written against, and the jest options they need. Fixture files are read
// from the checkout at run time; nothing of it is kept here.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(path.join(here, 'node_modules', 'x.js'))

// The Supabase CLI's development JWT secret, which every suite's hard-coded
// keys are signed with.
export const cliJWTSecret = 'super-secret-jwt-token-with-at-least-32-characters-long'

// cliKey signs the CLI's well-known legacy API key for role, byte for byte.
function cliKey(role) {
  const jwt = require('jsonwebtoken')
  return jwt.sign({ iss: 'supabase-demo', role, exp: 1983812996 }, cliJWTSecret, { noTimestamp: true })
}

// cliKeys is basalt's keys.json for a CLI-like project: the shared HS256
// secret and legacy keys, plus an asymmetric JWK set when given.
function cliKeys(jwtKeys) {
  const k = {
    jwt_secret: cliJWTSecret,
    signing_alg: 'HS256',
    anon_key: cliKey('anon'),
    service_role_key: cliKey('service_role'),
  }
  if (jwtKeys) {
    k.jwt_keys = jwtKeys
    k.signing_alg = jwtKeys[0].alg
  }
  return k
}

const read = (...p) => fs.readFileSync(path.join(...p), 'utf8')

// files lists [name, text] of the .sql files in dir, in name order.
function files(dir) {
  if (!fs.existsSync(dir)) return []
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => [f, read(dir, f)])
}

// The CLI's database role finds extension functions (crypt, gen_salt…)
// without a schema; seeds written for it need the same search path.
const withExtensions = ([name, text]) => [name, 'SET search_path TO public, extensions;\n' + text]

export const suites = {
  postgrest: {
    pkg: 'postgrest-js',
    keys: () => cliKeys(),
    sql: ({ pkgDir }) => ({
      app: files(path.join(pkgDir, 'test', 'supabase', 'migrations')),
      seed: [withExtensions(['seed.sql', read(pkgDir, 'test', 'supabase', 'seed.sql')])],
    }),
    // test/supabase/config.toml: [api] schemas (graphql_public is not served).
    env: { REST_DB_SCHEMAS: 'public,personal', REST_DB_MAX_ROWS: '1000' },
    ignore: ['/test/v12/'],
    jest: ({ pkgDir }) => ({ testSequencer: path.join(pkgDir, 'test', 'testSequencer.js') }),
  },

  auth: {
    pkg: 'auth-js',
    // The suite signs its keys with an RS256 JWK set it generates (as its
    // own test:infra step does) into test/supabase/signing_keys.json.
    keys: ({ pkgDir }) => {
      const file = path.join(pkgDir, 'test', 'supabase', 'signing_keys.json')
      if (!fs.existsSync(file)) {
        const r = spawnSync(process.execPath, [path.join(pkgDir, 'test', 'generate-signing-keys.js')], { stdio: 'ignore' })
        if (r.status !== 0) throw new Error('generate-signing-keys.js failed')
      }
      return cliKeys(JSON.parse(fs.readFileSync(file, 'utf8')))
    },
    // test/supabase/config.toml, in basalt's settings.
    env: {
      BASALT_AUTH_SITE_URL: 'http://127.0.0.1:3000',
      BASALT_AUTH_URI_ALLOW_LIST: 'https://127.0.0.1:3000,http://localhost:5173',
      BASALT_AUTH_JWT_EXP: '3600',
      BASALT_AUTH_MAILER_AUTOCONFIRM: 'true',
      BASALT_AUTH_MAILER_SECURE_EMAIL_CHANGE_ENABLED: 'true',
      BASALT_AUTH_EXTERNAL_PHONE_ENABLED: 'true',
      BASALT_AUTH_SMS_TEST_OTP: '1234567890:123456',
      BASALT_AUTH_SMS_MAX_FREQUENCY: '1s',
      BASALT_AUTH_SMTP_MAX_FREQUENCY: '1s',
      BASALT_AUTH_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: '10',
      // The suite's stack has no SMS provider (twilio disabled): no dev
      // mailbox standing in for one.
      BASALT_AUTH_DEV_MAILBOX: 'false',
      // [auth.mfa.web_authn], [auth.passkey], [auth.webauthn]
      BASALT_AUTH_MFA_WEB_AUTHN_ENROLL_ENABLED: 'true',
      BASALT_AUTH_MFA_WEB_AUTHN_VERIFY_ENABLED: 'true',
      BASALT_AUTH_PASSKEY_ENABLED: 'true',
      BASALT_AUTH_WEBAUTHN_RP_ID: 'localhost',
      BASALT_AUTH_WEBAUTHN_RP_DISPLAY_NAME: 'auth-js tests',
      BASALT_AUTH_WEBAUTHN_RP_ORIGINS: 'http://localhost:5173',
      // [auth.oauth_server]
      BASALT_AUTH_OAUTH_SERVER_ENABLED: 'true',
      BASALT_AUTH_OAUTH_SERVER_AUTHORIZATION_PATH: '/oauth/consent',
      BASALT_AUTH_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION: 'true',
    },
    ignore: ['/docker-tests/', '/example/'],
  },

  storage: {
    pkg: 'storage-js',
    keys: () => cliKeys(),
    sql: ({ pkgDir }) => ({ seed: [withExtensions(['seed.sql', read(pkgDir, 'test', 'supabase', 'seed.sql')])] }),
    env: {},
  },

  functions: {
    pkg: 'functions-js',
    keys: () => cliKeys(),
    // The suite's own Deno functions (hello, mirror, hijack, slow) run on
    // Deno in basalt: laid out as a Supabase project and deployed with
    // `basalt functions deploy` once basalt is up (prepareFunctions, run.mjs);
    // relay.cjs stands in for the relay container.
    env: {},
    functions: ({ pkgDir }) => path.join(pkgDir, 'test', 'functions'),
    moduleNameMapper: { '^\\.\\./relay/container$': path.join(here, 'relay.cjs') },
    setupFilesAfterEnv: ['test/utils/jest-custom-reporter.ts'],
  },

  // Not run by default: its migrations need the realtime schema.
  supabase: {
    pkg: 'supabase-js',
    optional: true,
    keys: () => cliKeys(),
    sql: ({ pkgDir }) => ({
      app: files(path.join(pkgDir, 'supabase', 'migrations')),
      seed: files(path.join(pkgDir, 'supabase', 'seed')).map(withExtensions),
    }),
    env: {},
    testMatch: ['**/test/integration.test.ts', '**/test/unit/**/*.test.ts'],
    setupFilesAfterEnv: ['jest.setup.ts'],
  },
}
