// Reports the gzipped size of the JavaScript and CSS the home page loads
// before any lazy route: the entry chunk plus its static imports.
// Usage: node scripts/initial-size.mjs [limitKB]
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { join } from 'node:path'

const dist = new URL('../dist/', import.meta.url).pathname
const html = readFileSync(join(dist, 'index.html'), 'utf8')
const entries = [...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1])
const seen = new Set()
const visit = (file) => {
  if (seen.has(file)) return
  seen.add(file)
  if (!file.endsWith('.js')) return
  const code = readFileSync(join(dist, file), 'utf8')
  // Static imports only: `import{...}from"./x.js"` or `import"./x.js"`, not import("...").
  for (const m of code.matchAll(/(?:^|[;\s}])import\s*(?:[\w${},*\s]+from\s*)?["']\.\/([^"']+\.js)["']/g)) visit(`assets/${m[1]}`)
}
entries.forEach(visit)
// The home route itself is lazy but always requested at once for "/" (its
// chunk is home-<8-character hash>.js, not one of home-listener's and such).
const router = [...seen].map((f) => readFileSync(join(dist, f), 'utf8')).join('\n')
const home = /["'`]\.\/(home-[\w-]{8}\.js)["'`]/.exec(router)
if (home) visit(`assets/${home[1]}`)
let total = 0
for (const f of seen) {
  const gz = gzipSync(readFileSync(join(dist, f))).length
  total += gz
  console.log(`${(gz / 1024).toFixed(1).padStart(8)} KB  ${f}`)
}
const limit = Number(process.argv[2] ?? 200)
console.log(`${(total / 1024).toFixed(1).padStart(8)} KB  total (limit ${limit} KB)`)
if (total / 1024 > limit) process.exit(1)
