import { useSyncExternalStore } from 'react'

// Where there is no matchMedia (an old browser, a test's DOM), no query matches.
const media = (query: string) => (typeof window.matchMedia === 'function' ? window.matchMedia(query) : null)

/** useMediaQuery tracks a CSS media query. */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (cb) => {
      const m = media(query)
      m?.addEventListener('change', cb)
      return () => m?.removeEventListener('change', cb)
    },
    () => media(query)?.matches ?? false,
    () => false,
  )
}

/** useIsMobile: width under 768px. */
export const useIsMobile = () => useMediaQuery('(max-width: 767px)')
