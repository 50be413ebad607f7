import { useCallback, useEffect, useState } from 'react'

/**
 * useElementWidth follows an element's content width. Until it is laid out
 * (or where nothing lays it out, as in tests) it assumes the window's width,
 * so the first render already fits a phone, or initial when given. The width comes from a
 * ResizeObserver, which reports it after the browser's own layout: reading
 * it in the effect would force that layout inside the render's task, the
 * longest of a page's load.
 */
export function useElementWidth<T extends HTMLElement>(initial?: number): [(el: T | null) => void, number] {
  const [el, setEl] = useState<T | null>(null)
  const [width, setWidth] = useState(() => initial ?? (typeof window === 'undefined' ? 1024 : window.innerWidth))
  useEffect(() => {
    if (!el) return
    const set = (w: number) => {
      if (w > 0) setWidth(Math.round(w))
    }
    if (typeof ResizeObserver === 'undefined') {
      set(el.clientWidth)
      return
    }
    const ro = new ResizeObserver((entries) => {
      for (const e of entries) set(e.contentRect.width)
    })
    ro.observe(el)
    return () => ro.disconnect()
  }, [el])
  return [useCallback((node: T | null) => setEl(node), []), width]
}
