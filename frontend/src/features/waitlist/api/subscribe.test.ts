import { describe, expect, it } from 'vitest'
import { subscribeErrorMessage, waitlistSchema } from './subscribe'

describe('early access form', () => {
  it('validates with the spec messages', () => {
    const r = waitlistSchema.safeParse({ email: 'bad', role: 'admin' })
    expect(r.success).toBe(false)
    expect(r.error!.issues.map((i) => i.message)).toEqual(['Please enter a valid email address.', 'Please select your role.'])
    expect(waitlistSchema.safeParse({ email: 'a@b.ng', role: 'sponsor' }).success).toBe(true)
  })
  it('maps errors', () => {
    expect(subscribeErrorMessage({ code: '23505', message: 'duplicate key' })).toBe('This email is already subscribed!')
    expect(subscribeErrorMessage({ code: '42501', message: 'permission denied' })).toBe('permission denied')
    expect(subscribeErrorMessage(null)).toBe('Failed to subscribe. Please try again.')
  })
})
