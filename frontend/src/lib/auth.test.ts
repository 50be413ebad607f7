import { afterEach, describe, expect, it } from 'vitest'
import { settledRole, useAuthStore } from './auth'

afterEach(() => useAuthStore.getState().clear())

describe('settledRole', () => {
  it("waits for the listener to settle the signed-in user's role", async () => {
    const role = settledRole('u1')
    // Another user's role settling is not this one's.
    useAuthStore.getState().setRole('fan', 'u0')
    useAuthStore.getState().setRole('artist', 'u1')
    await expect(role).resolves.toBe('artist')
  })

  it('answers at once when the role is settled already', async () => {
    useAuthStore.getState().setRole(null, 'u2')
    await expect(settledRole('u2')).resolves.toBeNull()
  })
})
