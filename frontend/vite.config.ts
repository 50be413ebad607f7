/// <reference types="vitest/config" />
import { fileURLToPath, URL } from 'node:url'
import { defineConfig } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { VitePWA } from 'vite-plugin-pwa'

export default defineConfig({
  plugins: [
    react(),
    tailwindcss(),
    VitePWA({
      // The update flow of spec section 4: a waiting worker is announced to
      // the app, which asks it to skip waiting and reloads.
      registerType: 'prompt',
      injectRegister: false,
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
      // The worker is ours (src/sw/sw.ts: offline downloads answered first,
      // with byte ranges); the plugin injects the precache list into it.
      strategies: 'injectManifest',
      srcDir: 'src/sw',
      filename: 'sw.ts',
      injectManifest: { globPatterns: ['**/*.{js,css,html,png,svg,woff2}'] },
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
            // Only the query code the first paint runs ($initial): mutations and
            // infinite lists go with the pages that use them.
            { name: 'query', test: /node_modules[\\/]@tanstack[\\/](query-core|react-query)[\\/]/, priority: 2, tags: ['$initial'] },
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
