import { useCallback, useEffect, useState } from 'react'

/**
 * useElementWidth follows an element's content width. Until it is laid out
 * (or where nothing lays it out, as in tests) it assumes the window's width,
 * so the first render already fits a phone.
 */
export function useElementWidth<T extends HTMLElement>(): [(el: T | null) => void, number] {
  const [el, setEl] = useState<T | null>(null)
  const [width, setWidth] = useState(() => (typeof window === 'undefined' ? 1024 : window.innerWidth))
  useEffect(() => {
    if (!el) return
    const measure = () => {
      const w = el.clientWidth
      if (w > 0) setWidth(w)
    }
    measure()
    if (typeof ResizeObserver === 'undefined') return
    const ro = new ResizeObserver(measure)
    ro.observe(el)
    return () => ro.disconnect()
  }, [el])
  return [useCallback((node: T | null) => setEl(node), []), width]
}
