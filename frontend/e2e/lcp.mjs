// Largest Contentful Paint of the home page in headless Chromium with
// network and CPU throttling, against a baseline measured in the same run:
// the login page, which needs no data. Reports both and their ratio, and
// fails when the home page's LCP exceeds 2.5 s.
//
//   BASALT_APP_URL=http://localhost:3000 node e2e/lcp.mjs          (3 runs each)
//   LCP_SMOKE=1 node e2e/lcp.mjs                                    (1 run each)
import { chromium } from 'playwright-core'
import { serveDist } from './serve.mjs'

// LCP_SERVE=1 serves dist/ from this script (gzip on) against BASALT_API_URL,
// to measure the app as a compressing app server would deliver it.
let app = process.env.BASALT_APP_URL ?? 'http://127.0.0.1:3000'
let stop = async () => {}
if (process.env.LCP_SERVE === '1') {
  const s = await serveDist(new URL('../dist/', import.meta.url).pathname, {
    supabaseUrl: process.env.BASALT_API_URL ?? 'http://127.0.0.1:54321',
    supabaseAnonKey: process.env.BASALT_ANON_KEY ?? '',
  })
  app = s.origin
  stop = s.close
}
const runs = process.env.LCP_SMOKE === '1' ? 1 : 3
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
})

// "Fast 4G"-like network (150 ms latency, 1.6 Mbit/s down); LCP_CPU=4 adds CPU throttling.
async function lcp(path) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } })
  await context.addInitScript(() => localStorage.setItem('cookie-consent', 'declined'))
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8 })
  if (process.env.LCP_CPU) await cdp.send('Emulation.setCPUThrottlingRate', { rate: Number(process.env.LCP_CPU) })
  await page.goto(`${app}${path}`, { waitUntil: 'networkidle' })
  const value = await page.evaluate(
    () =>
      new Promise((resolve) => {
        new PerformanceObserver((list) => {
          const entries = list.getEntries()
          resolve(entries[entries.length - 1].startTime)
        }).observe({ type: 'largest-contentful-paint', buffered: true })
        setTimeout(() => resolve(-1), 5000)
      }),
  )
  await context.close()
  return value
}

const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const home = []
const base = []
for (let i = 0; i < runs; i++) {
  base.push(await lcp('/login'))
  home.push(await lcp('/'))
}
await browser.close()
await stop()
const h = median(home)
const b = median(base)
console.log(`LCP home ${h.toFixed(0)} ms, baseline /login ${b.toFixed(0)} ms, ratio ${(h / b).toFixed(2)} (${runs} run${runs > 1 ? 's' : ''} each, throttled)`)
if (h < 0 || h > 2500) {
  console.error('home page LCP is over the 2.5 s budget')
  process.exit(1)
}
