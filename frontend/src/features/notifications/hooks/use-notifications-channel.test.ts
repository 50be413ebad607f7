import { QueryClient, QueryObserver } from '@tanstack/react-query'
import { describe, expect, it, vi } from 'vitest'
import type { Notification } from '../api/notifications'
import { addNotification } from './use-notifications-channel'

const note = (id: string, is_read = false): Notification => ({ id, user_id: 'u1', type: 'system_update', title: id, message: '', is_read, created_at: '2026-01-01T00:00:00Z', data: null })

describe('addNotification', () => {
  it('raises the badge but leaves a list the panel has not loaded unloaded', () => {
    const qc = new QueryClient()
    qc.setQueryData(['notifications', 'u1', 'unread'], 2)
    addNotification(qc, 'u1', note('n1'))
    expect(qc.getQueryData(['notifications', 'u1', 'unread'])).toBe(3)
    expect(qc.getQueryData(['notifications', 'u1'])).toBeUndefined()
  })

  it('puts the new one first in a loaded list; a read one does not raise the badge', () => {
    const qc = new QueryClient()
    qc.setQueryData(['notifications', 'u1'], [note('old')])
    qc.setQueryData(['notifications', 'u1', 'unread'], 1)
    addNotification(qc, 'u1', note('new', true))
    expect(qc.getQueryData<Notification[]>(['notifications', 'u1'])?.map((n) => n.id)).toEqual(['new', 'old'])
    expect(qc.getQueryData(['notifications', 'u1', 'unread'])).toBe(1)
  })

  it('does not invent a count it never had', () => {
    const qc = new QueryClient()
    addNotification(qc, 'u1', note('n1'))
    expect(qc.getQueryData(['notifications', 'u1', 'unread'])).toBeUndefined()
  })

  it('reads the count again when a read in flight would overwrite the new one', async () => {
    const qc = new QueryClient()
    const key = ['notifications', 'u1', 'unread']
    qc.setQueryData(key, 2)
    // The badge's read: the first is answered by the database before the
    // insert (2) and is still on its way back; a later one sees it (3).
    let answer!: (n: number) => void
    let reads = 0
    const queryFn = () => (++reads === 1 ? new Promise<number>((r) => (answer = r)) : Promise.resolve(3))
    const badge = new QueryObserver(qc, { queryKey: key, queryFn, staleTime: 0 })
    const stop = badge.subscribe(() => undefined)
    await vi.waitFor(() => expect(reads).toBe(1))
    addNotification(qc, 'u1', note('n1'))
    answer(2)
    // The second read's answer is the one kept, and nothing is left to come.
    await vi.waitFor(() => expect(qc.getQueryData(key)).toBe(3), { timeout: 5000 })
    await vi.waitFor(() => expect(qc.isFetching({ queryKey: key })).toBe(0))
    expect(qc.getQueryData(key)).toBe(3)
    expect(reads).toBe(2)
    stop()
  })
})
