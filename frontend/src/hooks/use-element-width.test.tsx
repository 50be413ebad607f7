// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { useElementWidth } from './use-element-width'

// The width comes from the ResizeObserver's report, after the browser's
// layout, never from reading the element's size during the render's task
// (which would force that layout there).

function Probe() {
  const [ref, width] = useElementWidth<HTMLDivElement>()
  return (
    <div ref={ref} data-testid="probe">
      {width}
    </div>
  )
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
})

describe('useElementWidth', () => {
  it("starts at the window's width and follows what the ResizeObserver reports, never reading the layout itself", () => {
    const observers: { callback: ResizeObserverCallback; el?: Element; self: ResizeObserver }[] = []
    vi.stubGlobal(
      'ResizeObserver',
      class {
        private readonly entry: (typeof observers)[number]
        constructor(callback: ResizeObserverCallback) {
          this.entry = { callback, self: this as unknown as ResizeObserver }
          observers.push(this.entry)
        }
        observe(el: Element) {
          this.entry.el = el
        }
        unobserve() {}
        disconnect() {
          this.entry.el = undefined
        }
      },
    )
    const read = vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get')
    const { unmount } = render(<Probe />)
    const probe = screen.getByTestId('probe')
    expect(probe.textContent).toBe(String(window.innerWidth))
    const o = observers.find((x) => x.el === probe)!
    const report = (width: number) => act(() => o.callback([{ target: probe, contentRect: { width } as DOMRectReadOnly } as unknown as ResizeObserverEntry], o.self))
    report(354.4)
    expect(probe.textContent).toBe('354')
    // Not laid out (no width): the last width stays.
    report(0)
    expect(probe.textContent).toBe('354')
    expect(read).not.toHaveBeenCalled()
    unmount()
    expect(o.el).toBeUndefined()
  })

  it('reads the width once where there is no ResizeObserver', () => {
    vi.stubGlobal('ResizeObserver', undefined)
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(300)
    render(<Probe />)
    expect(screen.getByTestId('probe').textContent).toBe('300')
  })
})
