// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { DataTable, type DataColumn } from './data-table'

// A DataTable follows its width: a new width that keeps the layout leaves
// the rows as drawn (on a phone the first measurement comes right after the
// page's first render, and drawing every row again is a long task there);
// a width that changes the layout draws them in the new one.

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('DataTable', () => {
  it('draws its rows again only when a new width changes the layout', () => {
    const resized: ((width: number) => void)[] = []
    vi.stubGlobal(
      'ResizeObserver',
      class {
        constructor(callback: ResizeObserverCallback) {
          resized.push((width) => act(() => callback([{ contentRect: { width } } as unknown as ResizeObserverEntry], this as unknown as ResizeObserver)))
        }
        observe() {}
        unobserve() {}
        disconnect() {}
      },
    )
    const cell = vi.fn((r: { id: string; name: string }) => r.name)
    const columns: DataColumn<{ id: string; name: string }>[] = [
      { header: 'Name', width: 120, cell },
      { header: 'Id', width: 120, cell: (r) => r.id },
      { header: 'Again', width: 120, cell: (r) => r.name },
    ]
    const rows = [
      { id: 'a', name: 'Ada' },
      { id: 'b', name: 'Kola' },
    ]
    render(<DataTable testId="t" columns={columns} rows={rows} rowKey={(r) => r.id} empty="None" />)
    const t = screen.getByTestId('t')
    expect(t.dataset.layout).toBe('table')
    const drawn = cell.mock.calls.length
    expect(drawn).toBeGreaterThan(0)
    // Still room for every column: the same table.
    resized[0](800)
    resized[0](700.4)
    expect(cell.mock.calls.length).toBe(drawn)
    // Too narrow for a table of two columns: cards.
    resized[0](200)
    expect(screen.getByTestId('t').dataset.layout).toBe('cards')
    expect(cell.mock.calls.length).toBeGreaterThan(drawn)
    expect(screen.getAllByText('Kola').length).toBeGreaterThan(0)
  })
})
