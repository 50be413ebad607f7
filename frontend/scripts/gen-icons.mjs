// Generates the PWA icons and the default cover image as PNG files, so the
// repository carries no binary design assets that nobody can regenerate.
// Run: node scripts/gen-icons.mjs
import { crc32, deflateSync } from 'node:zlib'
import { writeFileSync } from 'node:fs'

const chunk = (type, data) => {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const td = Buffer.concat([Buffer.from(type), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(td))
  return Buffer.concat([len, td, crc])
}

// draw renders the logo: a violet-to-amber diagonal gradient, a white disc and
// a violet play triangle. `pad` shrinks the disc for maskable icons.
function draw(size, pad = 0) {
  const raw = Buffer.alloc((size * 4 + 1) * size)
  const c = size / 2
  const r = size * (0.3 - pad)
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0
    for (let x = 0; x < size; x++) {
      const t = (x + y) / (2 * size)
      let rgb = [Math.round(109 + (245 - 109) * t), Math.round(40 + (158 - 40) * t), Math.round(217 + (11 - 217) * t)]
      const dx = x - c, dy = y - c
      if (dx * dx + dy * dy <= r * r) {
        rgb = [255, 255, 255]
        // play triangle pointing right, centred in the disc
        const tx = x - (c - r * 0.3), ty = Math.abs(y - c)
        if (tx >= 0 && tx <= r * 0.8 && ty <= (r * 0.8 - tx) * 0.6) rgb = [109, 40, 217]
      }
      const o = y * (size * 4 + 1) + 1 + x * 4
      raw[o] = rgb[0]; raw[o + 1] = rgb[1]; raw[o + 2] = rgb[2]; raw[o + 3] = 255
    }
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(size, 0); ihdr.writeUInt32BE(size, 4)
  ihdr[8] = 8; ihdr[9] = 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0)),
  ])
}

const out = new URL('../public/', import.meta.url)
writeFileSync(new URL('favicon.png', out), draw(64))
writeFileSync(new URL('pwa-192x192.png', out), draw(192))
writeFileSync(new URL('pwa-512x512.png', out), draw(512))
writeFileSync(new URL('maskable-512x512.png', out), draw(512, 0.08))
writeFileSync(new URL('default-cover.png', out), draw(256))
