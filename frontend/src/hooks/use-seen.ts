import { useCallback, useEffect, useState } from 'react'

/**
 * useSeen reports whether an element has come into the viewport at least
 * once, so a section below a page's first screen loads its data only when
 * the user gets to it. Attach the returned ref to the section. ahead
 * widens the viewport (a CSS margin, as IntersectionObserver's rootMargin),
 * so a section drawn when seen is drawn before it scrolls in. Without
 * IntersectionObserver (tests, old browsers) everything counts as seen.
 */
export function useSeen<T extends Element>(ahead = '0px'): [(el: T | null) => void, boolean] {
  const [el, setEl] = useState<T | null>(null)
  const [seen, setSeen] = useState(() => typeof IntersectionObserver === 'undefined')
  useEffect(() => {
    if (seen || !el) return
    const io = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) setSeen(true)
      },
      { rootMargin: ahead },
    )
    io.observe(el)
    return () => io.disconnect()
  }, [el, seen, ahead])
  return [useCallback((node: T | null) => setEl(node), []), seen]
}
