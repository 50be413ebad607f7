// @vitest-environment jsdom
import { describe, expect, it, vi } from 'vitest'
import { createElement, type ReactNode } from 'react'
import { renderHook } from '@testing-library/react'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'

let live = false
vi.mock('@/hooks/use-live-table', () => ({ useLiveTable: () => live }))
vi.mock('@/lib/supabase', () => ({ supabase: () => ({}) }))

const { useSuspensionUpdates, suspensionQueryKey } = await import('./use-suspension')

describe('useSuspensionUpdates', () => {
  it('rechecks the suspension at once when the server closes the subscription', () => {
    const qc = new QueryClient()
    const invalidate = vi.spyOn(qc, 'invalidateQueries')
    const wrapper = ({ children }: { children: ReactNode }) => createElement(QueryClientProvider, { client: qc }, children)
    const { rerender } = renderHook(() => useSuspensionUpdates('u1'), { wrapper })
    expect(invalidate).not.toHaveBeenCalled() // never joined yet: nothing was lost
    live = true
    rerender()
    expect(invalidate).not.toHaveBeenCalled()
    live = false // a suspension closes the user's private channels
    rerender()
    expect(invalidate).toHaveBeenCalledWith({ queryKey: suspensionQueryKey('u1') })
  })
})
