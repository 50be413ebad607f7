// Stands in for the functions-js suite's relay container (test/relay/
// container.ts), which runs one Deno function behind the deno-relay: the
// relay checks the caller's HS256 JWT against the spec's own random secret
// and answers a bad one with `x-relay-error: true`; the function gets the
// request. Here the check is done by a local HTTP listener, and the function
// is basalt's: /{slug}... is forwarded to /functions/v1/{slug}... of the
// private basalt, which runs the suite's own functions on Deno.
'use strict'

const http = require('node:http')
const { verify } = require('jsonwebtoken')

const api = new URL(process.env.BASALT_OFFICIAL_API_URL)

class Relay {
  constructor(server, id) {
    this.server = server
    this.id = id
    const port = server.address().port
    this.container = { getMappedPort: () => port }
  }

  async stop() {
    this.server.closeAllConnections()
    await new Promise((resolve) => this.server.close(resolve))
  }
}

// relayError answers as the relay does when the JWT does not verify.
function relayError(res, status, msg) {
  res.writeHead(status, { 'content-type': 'application/json', 'x-relay-error': 'true' })
  res.end(JSON.stringify({ msg }))
}

function authorized(req, jwtSecret) {
  const h = req.headers.authorization ?? ''
  if (!h.startsWith('Bearer ')) return false
  try {
    verify(h.slice('Bearer '.length), jwtSecret, { algorithms: ['HS256'] })
    return true
  } catch {
    return false
  }
}

// forward passes the request to basalt and streams the answer back; a
// function that takes over its connection (101) is piped through raw.
function forward(req, res) {
  const up = http.request({
    host: api.hostname,
    port: api.port,
    method: req.method,
    path: '/functions/v1' + req.url,
    headers: { ...req.headers, host: api.host },
  })
  up.on('response', (r) => {
    res.writeHead(r.statusCode, r.rawHeaders)
    r.pipe(res)
  })
  up.on('upgrade', (r, socket, head) => {
    const lines = [`HTTP/1.1 ${r.statusCode} ${r.statusMessage}`]
    for (let i = 0; i < r.rawHeaders.length; i += 2) lines.push(`${r.rawHeaders[i]}: ${r.rawHeaders[i + 1]}`)
    res.socket.write(lines.join('\r\n') + '\r\n\r\n')
    if (head.length > 0) res.socket.write(head)
    socket.pipe(res.socket)
    res.socket.pipe(socket)
  })
  up.on('error', () => {
    if (!res.headersSent) res.writeHead(502)
    res.end()
  })
  req.pipe(up)
}

async function runRelay(slug, jwtSecret) {
  const server = http.createServer((req, res) => {
    if (!authorized(req, jwtSecret)) {
      relayError(res, 401, 'Invalid JWT')
      return
    }
    forward(req, res)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return new Relay(server, slug)
}

module.exports = { Relay, runRelay }
