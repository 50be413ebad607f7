import { useSyncExternalStore } from 'react'

/** useMediaQuery tracks a CSS media query. */
export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (cb) => {
      const m = window.matchMedia(query)
      m.addEventListener('change', cb)
      return () => m.removeEventListener('change', cb)
    },
    () => window.matchMedia(query).matches,
    () => false,
  )
}

/** useIsMobile: width under 768px. */
export const useIsMobile = () => useMediaQuery('(max-width: 767px)')
