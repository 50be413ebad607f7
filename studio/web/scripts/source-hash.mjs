// The hash of the sources studio/dist is built from. `npm run build` writes
// it to ../dist/source-hash.txt; the Go test TestDistIsFresh computes the
// same hash and fails while they differ (a source changed, dist was not
// rebuilt). The files: index.html, package.json, package-lock.json,
// tsconfig.json, vite.config.ts, and everything under src/ and public/.
// Hash: SHA-256 over "path\0sha256(content)\n" for each file, paths sorted.
// Usage: node scripts/source-hash.mjs [--write]
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join, sep } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const files = ['index.html', 'package.json', 'package-lock.json', 'tsconfig.json', 'vite.config.ts']
const walk = (dir) => {
  for (const name of readdirSync(join(root, dir))) {
    const rel = `${dir}/${name}`
    if (statSync(join(root, rel)).isDirectory()) walk(rel)
    else files.push(rel)
  }
}
walk('src')
walk('public')
const sorted = files.map((f) => f.split(sep).join('/')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
const all = createHash('sha256')
for (const f of sorted) {
  const sum = createHash('sha256').update(readFileSync(join(root, f))).digest('hex')
  all.update(`${f}\0${sum}\n`)
}
const hash = all.digest('hex')
if (process.argv.includes('--write')) writeFileSync(join(root, '../dist/source-hash.txt'), `${hash}\n`)
console.log(`studio sources ${hash} (${sorted.length} files)`)
