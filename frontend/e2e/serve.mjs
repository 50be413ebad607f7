// A minimal static server for dist/ with history fallback and a generated
// /env.js, the way Basalt's app server serves the build. Used by the e2e
// smoke mode, which runs without a backend.
import { createServer } from 'node:http'
import { readFile, stat } from 'node:fs/promises'
import { extname, join, normalize } from 'node:path'
import { gzipSync } from 'node:zlib'

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
}

/** serveDist starts the server on a free port and resolves to its origin and a close function. */
export async function serveDist(dist, env) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname)
    if (path === '/env.js') {
      res.writeHead(200, { 'content-type': types['.js'], 'cache-control': 'no-store' })
      res.end(`window.__BASALT_CONFIG__ = ${JSON.stringify(env)};`)
      return
    }
    if (path === '/config.json') {
      res.writeHead(200, { 'content-type': types['.json'], 'cache-control': 'no-store' })
      res.end(JSON.stringify(env))
      return
    }
    let file = join(dist, normalize(path).replace(/^(\.\.[/\\])+/, ''))
    try {
      if (!(await stat(file)).isFile()) throw new Error('dir')
    } catch {
      if (extname(path)) {
        res.writeHead(404).end('not found')
        return
      }
      file = join(dist, 'index.html')
    }
    let body = await readFile(file)
    const headers = { 'content-type': types[extname(file)] ?? 'application/octet-stream' }
    if (file.endsWith('sw.js') || file.endsWith('index.html')) headers['cache-control'] = 'no-cache'
    // Compress text the way a production app server or CDN would.
    if (/gzip/.test(req.headers['accept-encoding'] ?? '') && /\.(js|css|html|json|webmanifest|svg)$/.test(file)) {
      body = gzipSync(body)
      headers['content-encoding'] = 'gzip'
      headers.vary = 'accept-encoding'
    }
    res.writeHead(200, headers).end(body)
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address()
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(r)) }
}
