// Starting and stopping a private `basalt dev` for the compat runners: free
// ports, a temporary data dir, /health, then `basalt status --json`.
import { spawn, spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

export const compatDir = path.dirname(path.dirname(fileURLToPath(import.meta.url)))
export const root = path.dirname(compatDir)

export function log(msg) {
  process.stderr.write(`compat: ${msg}\n`)
}

// Ports handed out by this process: the system may give a port back as soon
// as it is closed, so two calls in a row could otherwise return the same one
// (the API and the database then collide).
const handedOut = new Set()

export async function freePort() {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const srv = createServer()
      srv.unref()
      srv.on('error', reject)
      srv.listen(0, '127.0.0.1', () => {
        const { port } = srv.address()
        srv.close(() => resolve(port))
      })
    })
    if (!handedOut.has(port)) {
      handedOut.add(port)
      return port
    }
  }
}

// tempDir is a private temp dir, world-traversable because PostgreSQL runs
// as an unprivileged user when the runner runs as root.
export function tempDir(prefix) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  fs.chmodSync(tmp, 0o755)
  return tmp
}

// buildBasalt returns BASALT_BIN, or builds the binary into dir.
export function buildBasalt(dir) {
  if (process.env.BASALT_BIN) return process.env.BASALT_BIN
  const bin = path.join(dir, 'basalt')
  log('building basalt')
  const r = spawnSync('go', ['build', '-o', bin, './cmd/basalt'], { cwd: root, stdio: 'inherit' })
  if (r.status !== 0) throw new Error('go build ./cmd/basalt failed')
  return bin
}

// startBasalt runs `basalt dev` on free ports with its data under dir and
// the extra environment env. It resolves once /health answers, with the
// status document (URLs and keys), a tail() of the log and stop().
export async function startBasalt({ bin, dir, env: extra = {} }) {
  const [apiPort, dbPort, appPort] = [await freePort(), await freePort(), await freePort()]
  const dataDir = path.join(dir, 'data')
  const logFile = path.join(dir, 'basalt.log')
  const logFd = fs.openSync(logFile, 'a')
  const env = {
    ...process.env,
    BASALT_API_PORT: String(apiPort),
    BASALT_DB_PORT: String(dbPort),
    BASALT_APP_PORT: String(appPort),
    BASALT_DATA_DIR: dataDir,
    ...extra,
  }
  log(`starting basalt dev (api :${apiPort}, db :${dbPort}, app :${appPort}, data ${dataDir})`)
  const child = spawn(bin, ['dev', '--data-dir', dataDir], { cwd: root, env, stdio: ['ignore', logFd, logFd] })
  let exited = null
  const exitPromise = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      exited = { code, signal }
      resolve(exited)
    }),
  )
  const tail = (n = 60) => fs.readFileSync(logFile, 'utf8').split('\n').slice(-n).join('\n')

  // stop ends basalt dev and reports whether it stopped cleanly.
  const stop = async () => {
    if (!exited) {
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
      await exitPromise
      clearTimeout(timer)
    }
    fs.closeSync(logFd)
    if (exited.code !== 0) {
      log(`basalt dev did not stop cleanly (${JSON.stringify(exited)}):\n${tail()}`)
      return false
    }
    return true
  }

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
    return { info: JSON.parse(st.stdout), dataDir, tail, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
