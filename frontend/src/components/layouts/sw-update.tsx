import { useEffect } from 'react'
import { toast } from '@/lib/toast'

/** SW_UPDATE_WAIT_MS: the pause before reloading onto a new worker. */
export const SW_UPDATE_WAIT_MS = 200

/**
 * ServiceWorkerUpdates registers /sw.js and, when an updated worker is
 * waiting, offers a reload that activates it. Registration failures are only logged.
 */
export function ServiceWorkerUpdates() {
  useEffect(() => {
    if (!('serviceWorker' in navigator) || import.meta.env.DEV) return
    let cancelled = false
    void import('workbox-window')
      .then(({ Workbox }) => {
        if (cancelled) return
        const wb = new Workbox('/sw.js', { scope: '/' })
        wb.addEventListener('waiting', () => {
          toast.info('A new version of Backline is available', {
            duration: Infinity,
            action: {
              label: 'Update',
              onClick: () => {
                wb.addEventListener('controlling', () => setTimeout(() => window.location.reload(), SW_UPDATE_WAIT_MS))
                wb.messageSkipWaiting()
              },
            },
          })
        })
        return wb.register()
      })
      .catch((e: unknown) => console.warn('service worker registration failed', e))
    return () => {
      cancelled = true
    }
  }, [])
  return null
}
