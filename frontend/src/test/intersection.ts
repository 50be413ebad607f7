import { act } from '@testing-library/react'
import { vi } from 'vitest'

// A stand-in for the browser's IntersectionObserver (jsdom has none, and
// without one hooks/use-seen.ts counts everything as seen): the test says
// when an element comes into view.

/** Watch is one observer watching one element. */
export interface Watch {
  el: Element
  rootMargin: string
  callback: IntersectionObserverCallback
  observer: IntersectionObserver
}

/** installIntersection stubs IntersectionObserver and returns what it watches and a way to bring an element into view. */
export function installIntersection() {
  const watches: Watch[] = []
  class FakeIntersectionObserver {
    readonly rootMargin: string
    private readonly callback: IntersectionObserverCallback
    constructor(callback: IntersectionObserverCallback, options?: IntersectionObserverInit) {
      this.callback = callback
      this.rootMargin = options?.rootMargin ?? '0px'
    }
    observe(el: Element) {
      watches.push({ el, rootMargin: this.rootMargin, callback: this.callback, observer: this as unknown as IntersectionObserver })
    }
    unobserve(el: Element) {
      this.drop((w) => w.el === el)
    }
    disconnect() {
      this.drop(() => true)
    }
    takeRecords() {
      return []
    }
    private drop(which: (w: Watch) => boolean) {
      for (let i = watches.length - 1; i >= 0; i--) if (watches[i].observer === (this as unknown) && which(watches[i])) watches.splice(i, 1)
    }
  }
  vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver)
  return {
    watches,
    /** watching tells whether el is watched now. */
    watching: (el: Element) => watches.some((w) => w.el === el),
    /** show brings el into view: every observer watching it hears so. */
    show: (el: Element) =>
      act(() => {
        for (const w of watches.filter((x) => x.el === el)) {
          const r = el.getBoundingClientRect()
          w.callback([{ target: el, isIntersecting: true, intersectionRatio: 1, boundingClientRect: r, intersectionRect: r, rootBounds: null, time: 0 }], w.observer)
        }
      }),
  }
}
