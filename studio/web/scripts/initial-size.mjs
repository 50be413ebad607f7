// Reports the gzipped size of the JavaScript and CSS Studio's first page
// loads: the entry chunk and its static imports (lazy screens excluded).
// Fails when over the limit. Usage: node scripts/initial-size.mjs [limitKB]
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { join } from 'node:path'

const dist = new URL('../../dist/', import.meta.url).pathname
const html = readFileSync(join(dist, 'index.html'), 'utf8')
const seen = new Set()
const visit = (file) => {
  if (seen.has(file)) return
  seen.add(file)
  if (!file.endsWith('.js')) return
  const code = readFileSync(join(dist, file), 'utf8')
  for (const m of code.matchAll(/(?:^|[;\s}])import\s*(?:[\w${},*\s]+from\s*)?["']\.\/([^"']+\.js)["']/g)) visit(`assets/${m[1]}`)
}
for (const m of html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)) visit(m[1])
let total = 0
for (const f of seen) {
  const gz = gzipSync(readFileSync(join(dist, f))).length
  total += gz
  console.log(`${(gz / 1024).toFixed(1).padStart(8)} KB  ${f}`)
}
const limit = Number(process.argv[2] ?? 300)
console.log(`${(total / 1024).toFixed(1).padStart(8)} KB  total (limit ${limit} KB)`)
if (total / 1024 > limit) process.exit(1)
