/// <reference lib="webworker" />
import { CacheableResponsePlugin } from 'workbox-cacheable-response'
import { clientsClaim } from 'workbox-core'
import { ExpirationPlugin } from 'workbox-expiration'
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching'
import { createPartialResponse, RangeRequestsPlugin } from 'workbox-range-requests'
import { NavigationRoute, registerRoute } from 'workbox-routing'
import { CacheFirst } from 'workbox-strategies'
import { AUDIO_CACHE, OFFLINE_CACHE } from '../lib/offline-cache'

// Backline's service worker: the app shell precached (so the installed app
// starts offline), covers and audio cached as they play, and downloads for
// offline listening answered first, byte ranges included so the player can
// seek in a downloaded track with no network.

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | { url: string; revision: string | null })[] }

// API paths served by the gateway. The worker never answers them from a
// cache or with the app shell: they carry personal data.
const apiPaths = [/^\/auth\//, /^\/rest\//, /^\/functions\//, /^\/storage\//, /^\/realtime\//, /^\/env\.js$/, /^\/config\.json$/]

precacheAndRoute(self.__WB_MANIFEST)
cleanupOutdatedCaches()
registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: apiPaths }))

// The update flow of spec section 4: a waiting worker is announced to the
// app, which asks it to skip waiting (workbox-window's messageSkipWaiting).
self.addEventListener('message', (e) => {
  if ((e.data as { type?: string } | null)?.type === 'SKIP_WAITING') void self.skipWaiting()
})
// A first install takes the open pages at once, so a download can be played
// from the cache without a reload; updates still wait for the app's word.
clientsClaim()

const isPublicObject = (url: URL) => url.pathname.startsWith('/storage/v1/object/public/') || url.pathname.startsWith('/storage/v1/render/image/public/')
// Track audio is private: it plays from signed URLs, whose token changes with
// every signing. Such audio is kept and looked up under the public path its
// row names (lib/audio-source), where downloads are kept too.
const SIGNED_AUDIO = '/storage/v1/object/sign/tracks/'
const isSignedAudio = (url: URL) => url.pathname.startsWith(SIGNED_AUDIO)
const audioKey = (url: URL) =>
  isSignedAudio(url) ? `${url.origin}/storage/v1/object/public/tracks/${url.pathname.slice(SIGNED_AUDIO.length)}` : url.href
const isAudio = (url: URL, request: Request) => request.destination === 'audio' || /\.(mp3|m4a|aac|ogg|wav|opus)$/i.test(url.pathname)

// Track covers and avatars from storage (public objects only).
const covers = new CacheFirst({
  cacheName: 'covers',
  plugins: [new ExpirationPlugin({ maxEntries: 300, maxAgeSeconds: 30 * 24 * 3600 }), new CacheableResponsePlugin({ statuses: [0, 200] })],
})
// Audio as it plays; range requests are served from the cached full body.
const audio = new CacheFirst({
  cacheName: AUDIO_CACHE,
  plugins: [
    { cacheKeyWillBeUsed: async ({ request }) => audioKey(new URL(request.url)) },
    new ExpirationPlugin({ maxEntries: 60, maxAgeSeconds: 7 * 24 * 3600 }),
    new CacheableResponsePlugin({ statuses: [200] }),
    new RangeRequestsPlugin(),
  ],
})

registerRoute(
  ({ url, request }) => (isPublicObject(url) && (request.destination === 'image' || isAudio(url, request))) || isSignedAudio(url),
  async (options) => {
    const { request, url } = options
    // A download is answered first, whatever the network.
    const kept = await (await caches.open(OFFLINE_CACHE)).match(audioKey(url))
    if (kept) return request.headers.has('range') ? createPartialResponse(request, kept) : kept
    return isAudio(url, request) || isSignedAudio(url) ? audio.handle(options) : covers.handle(options)
  },
)
