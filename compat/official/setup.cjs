// Loaded by jest before every test file: points the suites' hard-coded
// Supabase CLI URLs at the private basalt, and bridges the one difference
// between the CLI's gateway and basalt's: the CLI checks no API key, basalt
// does (as hosted Supabase). Everything else reaches basalt as sent.
//
// - http://{localhost,127.0.0.1}:54321/...  -> the basalt API URL
// - http://localhost:3000/...                -> <API URL>/rest/v1/... (PostgREST itself)
// - a request without `apikey` gets the CLI's anon key as its apikey; when it
//   carries no Authorization either, it gets an empty bearer, which is what
//   the CLI's gateway hands the service for a request without credentials.
'use strict'

const api = process.env.BASALT_OFFICIAL_API_URL
const anonKey = process.env.BASALT_OFFICIAL_ANON_KEY

const routes = [
  ['http://localhost:54321', api],
  ['http://127.0.0.1:54321', api],
  ['http://localhost:3000', api + '/rest/v1'],
  ['ws://localhost:54321', api.replace(/^http/, 'ws')],
  ['ws://127.0.0.1:54321', api.replace(/^http/, 'ws')],
]

function rewrite(url) {
  const s = String(url)
  for (const [from, to] of routes) {
    if (s === from || s.startsWith(from + '/') || s.startsWith(from + '?')) return to + s.slice(from.length)
  }
  return null
}

const nativeFetch = globalThis.fetch
globalThis.fetch = function fetchViaBasalt(input, init) {
  const isRequest = typeof Request !== 'undefined' && input instanceof Request
  const target = rewrite(isRequest ? input.url : input)
  if (target === null) return nativeFetch(input, init)
  const headers = new Headers(init?.headers ?? (isRequest ? input.headers : undefined))
  if (!headers.has('apikey')) {
    if (!headers.has('authorization')) headers.set('authorization', 'Bearer')
    headers.set('apikey', anonKey)
  }
  if (isRequest) return nativeFetch(new Request(target, new Request(input, { ...init, headers })))
  return nativeFetch(target, { ...init, headers })
}

if (typeof globalThis.WebSocket === 'function') {
  const NativeWebSocket = globalThis.WebSocket
  globalThis.WebSocket = class extends NativeWebSocket {
    constructor(url, protocols) {
      super(rewrite(url) ?? url, protocols)
    }
  }
}
