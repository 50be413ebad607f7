/// <reference types="vitest/config" />
import { fileURLToPath, URL } from 'node:url'
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'

// Studio builds into studio/dist, which the Go package embeds (see
// studio/README.md). In development, `npm run dev` proxies the endpoints to
// a running `basalt dev` (BASALT_STUDIO_URL, default :54323).
const studio = process.env.BASALT_STUDIO_URL ?? 'http://127.0.0.1:54323'

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  build: { outDir: '../dist', emptyOutDir: true, chunkSizeWarningLimit: 600 },
  server: {
    proxy: Object.fromEntries(['/api', '/pg', '/auth/v1'].map((p) => [p, { target: studio, changeOrigin: true }])),
  },
  test: { environment: 'node', include: ['src/**/*.test.ts'] },
})
