import { useEffect, type RefObject } from 'react'

// A screen with side panels (a list beside its detail, a section menu, an
// inspector): side by side from md up; on a phone the parts stack in
// reading order and the screen scrolls, so nothing is squeezed or clipped.
// Every split screen takes its classes from here.

/** SPLIT is the screen around the parts. */
export const SPLIT = 'flex min-h-0 flex-1 flex-col overflow-y-auto md:flex-row md:overflow-hidden'

/** SPLIT_MAIN is the main part: on a phone at least most of a screen tall, so its own scrolling grids keep room. */
export const SPLIT_MAIN = 'flex min-w-0 shrink-0 flex-col max-md:min-h-[80dvh] md:min-h-0 md:flex-1 md:shrink'

/** SIDE_START is a panel before the main part (its md: width is the caller's); SIDE_END one after it. */
export const SIDE_START = 'w-full shrink-0 border-b border-border md:border-b-0 md:border-r'
export const SIDE_END = 'w-full shrink-0 border-t border-border md:border-t-0 md:border-l'

/**
 * useRevealOnPhone scrolls a SIDE_END panel into view when it opens (or
 * shows another item) on a phone, where it stacks under the list that
 * opened it: otherwise a tap would seem to do nothing.
 */
export function useRevealOnPhone(ref: RefObject<HTMLElement | null>, key: unknown) {
  useEffect(() => {
    if (window.matchMedia('(max-width: 767px)').matches) ref.current?.scrollIntoView({ block: 'start' })
  }, [ref, key])
}
