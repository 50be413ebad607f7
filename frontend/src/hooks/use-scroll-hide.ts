import { useEffect, useState } from 'react'

/** SCROLL_THRESHOLD and SCROLL_MIN_DELTA are the top bar scroll rules of spec section 9. */
export const SCROLL_THRESHOLD = 100
export const SCROLL_MIN_DELTA = 5

/** nextHidden decides the bar's visibility for a scroll move; moves under 5 px change nothing. */
export function nextHidden(hidden: boolean, lastY: number, y: number): { hidden: boolean; lastY: number } {
  if (Math.abs(y - lastY) < SCROLL_MIN_DELTA) return { hidden, lastY }
  if (y > lastY && y > SCROLL_THRESHOLD) return { hidden: true, lastY: y }
  if (y < lastY) return { hidden: false, lastY: y }
  return { hidden, lastY: y }
}

/** useScrollHide reports whether the bar should hide (small screens only). */
export function useScrollHide(enabled: boolean): boolean {
  const [hidden, setHidden] = useState(false)
  useEffect(() => {
    if (!enabled) {
      setHidden(false)
      return
    }
    let state = { hidden: false, lastY: window.scrollY }
    const onScroll = () => {
      state = nextHidden(state.hidden, state.lastY, window.scrollY)
      setHidden(state.hidden)
    }
    window.addEventListener('scroll', onScroll, { passive: true })
    return () => window.removeEventListener('scroll', onScroll)
  }, [enabled])
  return hidden
}
