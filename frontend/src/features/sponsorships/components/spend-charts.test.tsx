// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import SpendCharts, { amountTicks, spacedFromEnd, type SpendData } from './spend-charts'

// The sponsor's spending charts: bars for what was spent per day, artist
// and track, the amounts on round steps, the day labels that fit, and the
// figure behind a bar on hover, tap or arrow keys.

/** layOut stubs ResizeObserver so every chart is laid out at width px. */
function layOut(width: number) {
  vi.stubGlobal(
    'ResizeObserver',
    class {
      constructor(private readonly callback: ResizeObserverCallback) {}
      observe(el: Element) {
        queueMicrotask(() => act(() => this.callback([{ target: el, contentRect: { width } } as unknown as ResizeObserverEntry], this as unknown as ResizeObserver)))
      }
      unobserve() {}
      disconnect() {}
    },
  )
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const week: SpendData = {
  per_day: ['2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28'].map((day, i) => ({ day, amount: [150, 0, 400, 1250, 50, 700, 300][i], streams: 1 })),
  per_artist: [
    { name: 'Kola Ade', amount: 1850 },
    { name: 'Tunde', amount: 300 },
  ],
  per_track: [],
}

const chart = (title: string) => screen.getByText(title).closest('figure')!

describe('the spending charts', () => {
  it('draws a bar for each day, artist and track with spending, on round amounts, and says so when there is none', async () => {
    layOut(360)
    render(<SpendCharts data={week} />)
    const days = chart('Spend per day')
    await vi.waitFor(() => expect(days.querySelector('svg')).not.toBeNull())
    // Six days with spending (one had none): six bars.
    expect(days.querySelectorAll('.visx-bar-rounded')).toHaveLength(6)
    expect([...days.querySelectorAll('.visx-axis-left .visx-axis-tick')].map((t) => t.textContent)).toEqual(['0', '350', '700', '1050', '1400'])
    const artists = chart('Spend per artist')
    await vi.waitFor(() => expect(artists.querySelectorAll('.visx-bar-rounded')).toHaveLength(2))
    expect([...artists.querySelectorAll('.visx-axis-bottom .visx-axis-tick')].map((t) => t.textContent)).toEqual(['0', '500', '1000', '1500', '2000'])
    expect(within(chart('Spend per track')).getByText('No spending in this period')).toBeTruthy()
  })

  it("shows a day's spending on hover, and steps through the days with the arrow keys", async () => {
    layOut(360)
    render(<SpendCharts data={week} />)
    const days = chart('Spend per day')
    await vi.waitFor(() => expect(days.querySelector('svg')).not.toBeNull())
    const bands = days.querySelectorAll('svg > rect[fill="transparent"]')
    expect(bands).toHaveLength(7)
    fireEvent.pointerMove(bands[3], { pointerType: 'mouse' })
    const tip = within(days).getByTestId('spend-tooltip')
    expect(tip.textContent).toBe('25 NovSpent : ₦1,250')
    fireEvent.pointerLeave(bands[3], { pointerType: 'mouse' })
    expect(within(days).queryByTestId('spend-tooltip')).toBeNull()
    // A tap keeps it shown (a finger leaves the screen, not the bar).
    fireEvent.pointerDown(bands[1], { pointerType: 'touch' })
    fireEvent.pointerLeave(bands[1], { pointerType: 'touch' })
    expect(within(days).getByTestId('spend-tooltip').textContent).toBe('23 NovSpent : ₦0')
    const svg = days.querySelector('svg')!
    fireEvent.keyDown(svg, { key: 'ArrowRight' })
    expect(within(days).getByTestId('spend-tooltip').textContent).toBe('24 NovSpent : ₦400')
    fireEvent.blur(svg)
    expect(within(days).queryByTestId('spend-tooltip')).toBeNull()
    fireEvent.keyDown(svg, { key: 'ArrowRight' })
    expect(within(days).getByTestId('spend-tooltip').textContent).toBe('22 NovSpent : ₦150')
  })
})

describe('amountTicks', () => {
  it('covers the largest amount in four round steps, 0 to 4 when nothing was spent', () => {
    expect(amountTicks(1250)).toEqual([0, 350, 700, 1050, 1400])
    expect(amountTicks(1600)).toEqual([0, 400, 800, 1200, 1600])
    expect(amountTicks(50)).toEqual([0, 15, 30, 45, 60])
    expect(amountTicks(7)).toEqual([0, 2, 4, 6, 8])
    expect(amountTicks(12345)).toEqual([0, 3500, 7000, 10500, 14000])
    expect(amountTicks(0)).toEqual([0, 1, 2, 3, 4])
  })
})

describe('spacedFromEnd', () => {
  const w = (s: string) => s.length * 7
  it('keeps every label that fits, else every other one from the last', () => {
    const labels = ['22 Nov', '23 Nov', '24 Nov', '25 Nov', '26 Nov', '27 Nov', '28 Nov']
    expect(spacedFromEnd(labels, 60, w)).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(spacedFromEnd(labels, 44, w)).toEqual([0, 2, 4, 6])
    expect(spacedFromEnd(labels, 14, w)).toEqual([2, 6])
  })
})
