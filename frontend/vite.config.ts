/// <reference types="vitest/config" />
import { fileURLToPath, URL } from 'node:url'
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { VitePWA } from 'vite-plugin-pwa'

// API paths served by the gateway. The service worker must never answer them
// from a cache or with the app shell: they carry personal data.
const apiPaths = [/^\/auth\//, /^\/rest\//, /^\/functions\//, /^\/storage\//, /^\/realtime\//, /^\/env\.js$/, /^\/config\.json$/]

export default defineConfig({
  plugins: [
    react(),
    tailwindcss(),
    VitePWA({
      // The update flow of spec section 4: a waiting worker is announced to
      // the app, which asks it to skip waiting and reloads.
      registerType: 'prompt',
      injectRegister: false,
      filename: 'sw.js',
      includeAssets: ['favicon.png', 'default-cover.png'],
      manifest: {
        name: 'Backline',
        short_name: 'Backline',
        description: 'Connecting artists with sponsors through innovative music streaming.',
        theme_color: '#0f0a1e',
        background_color: '#0f0a1e',
        display: 'standalone',
        start_url: '/',
        scope: '/',
        icons: [
          { src: '/pwa-192x192.png', sizes: '192x192', type: 'image/png' },
          { src: '/pwa-512x512.png', sizes: '512x512', type: 'image/png' },
          { src: '/maskable-512x512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,png,svg,woff2}'],
        navigateFallback: '/index.html',
        navigateFallbackDenylist: apiPaths,
        cleanupOutdatedCaches: true,
        runtimeCaching: [
          {
            // Track covers and avatars from storage (public objects only).
            urlPattern: ({ url, request }) =>
              url.pathname.startsWith('/storage/v1/object/public/') && request.destination === 'image',
            handler: 'CacheFirst',
            options: {
              cacheName: 'covers',
              expiration: { maxEntries: 300, maxAgeSeconds: 30 * 24 * 3600 },
              cacheableResponse: { statuses: [0, 200] },
            },
          },
          {
            // Audio files; range requests are served from the cached full body.
            urlPattern: ({ url, request }) =>
              url.pathname.startsWith('/storage/v1/object/public/') &&
              (request.destination === 'audio' || /\.(mp3|m4a|aac|ogg|wav|opus)$/i.test(url.pathname)),
            handler: 'CacheFirst',
            options: {
              cacheName: 'audio',
              expiration: { maxEntries: 60, maxAgeSeconds: 7 * 24 * 3600 },
              cacheableResponse: { statuses: [200] },
              rangeRequests: true,
            },
          },
        ],
      },
    }),
  ],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  build: {
    outDir: 'dist',
    chunkSizeWarningLimit: 600,
    // Every browser the app supports preloads modules natively.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // Libraries in chunks of their own, by how often they change: an
        // app release then re-downloads the app's code, not React's.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/, priority: 3 },
            { name: 'query', test: /node_modules[\\/]@tanstack[\\/]/, priority: 2 },
            { name: 'router', test: /node_modules[\\/]react-router[\\/]/, priority: 2 },
            // Small helpers the first paint needs and most pages share, in one
            // chunk rather than a dozen tiny ones.
            {
              name: 'ui-core',
              test: /node_modules[\\/](clsx|tailwind-merge|class-variance-authority|@radix-ui[\\/]react-(slot|compose-refs|primitive|context|use-layout-effect))[\\/]|node_modules[\\/]lucide-react[\\/]dist[\\/]esm[\\/](createLucideIcon|Icon|defaultAttributes|shared|context)|src[\\/]lib[\\/](utils|media|supabase|auth)\.ts$|src[\\/]config[\\/]env\.ts$|src[\\/]components[\\/]ui[\\/]button\.tsx$|vite[\\/]preload-helper/,
              priority: 1,
            },
            { name: 'supabase', test: /node_modules[\\/](@supabase|iceberg-js)[\\/]/, priority: 2 },
          ],
        },
      },
    },
  },
  test: {
    environment: 'node',
    include: ['src/**/*.test.{ts,tsx}'],
  },
})
