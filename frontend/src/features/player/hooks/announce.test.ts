import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

const calls: { kind: string; text: string; at: number; opts?: unknown }[] = []
vi.mock('sonner', () => {
  const rec = (kind: string) => (text: string, opts?: unknown) => void calls.push({ kind, text, at: Date.now(), opts })
  return { toast: { success: rec('success'), info: rec('info'), error: rec('error'), warning: rec('warning') } }
})

const { announce } = await import('./use-listen-rules')

describe('stream outcome messages', () => {
  beforeEach(() => {
    calls.length = 0
    vi.useFakeTimers()
    vi.setSystemTime(0)
  })
  afterEach(() => vi.useRealTimers())

  it('runs the sponsored-payment sequence at 0 s, 1 s and 3.5 s, the last for 6 s', () => {
    announce({ kind: 'sponsored', amount: 50 })
    vi.advanceTimersByTime(5000)
    expect(calls).toEqual([
      { kind: 'success', text: 'Sponsored stream counted!', at: 0, opts: undefined },
      { kind: 'success', text: '₦50 credited to artist from sponsor!', at: 1000, opts: undefined },
      { kind: 'info', text: "₦50 was automatically transferred from the sponsor to the artist's wallet.", at: 3500, opts: { duration: 6000 } },
    ])
  })

  it.each([
    [{ kind: 'counted' } as const, 'success', 'Stream counted!'],
    [{ kind: 'not-eligible', reason: 'Track is not sponsored' } as const, 'info', 'Stream not eligible for sponsored payment: Track is not sponsored'],
    [{ kind: 'rejected', reason: 'Duplicate stream prevented - allowance type: ip' } as const, 'info', 'Stream recorded: Duplicate stream prevented - allowance type: ip'],
    [{ kind: 'payment-failed', error: 'Insufficient sponsor balance. Has 20, needs 50' } as const, 'error', 'Stream counted but sponsor payment failed'],
    [{ kind: 'not-fan', message: 'Sponsor accounts cannot generate valid streams' } as const, 'info', 'Sponsor accounts cannot generate valid streams'],
    [{ kind: 'suspended' } as const, 'error', 'User is suspended and cannot generate valid streams'],
    [{ kind: 'error', message: 'Stream tracking error: boom' } as const, 'error', 'Stream tracking error: boom'],
  ])('%o', (outcome, kind, text) => {
    announce(outcome)
    expect(calls[0]).toMatchObject({ kind, text })
  })
})
