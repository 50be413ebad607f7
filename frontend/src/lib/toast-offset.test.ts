import { describe, expect, it } from 'vitest'
import { toastBottom } from './toast-offset'

describe('toastBottom', () => {
  it('lifts toasts over the bottom navigation on a phone, and over the player bar too while one is up', () => {
    // The bottom bar is 64 px; the body reserves 156 px for bar and player (spec section 2).
    expect(toastBottom({ mobile: true, player: false })).toBe(76)
    expect(toastBottom({ mobile: true, player: true })).toBe(156)
  })
  it('keeps sonner’s own edge on a desktop, above the 96 px player room when a track is loaded', () => {
    expect(toastBottom({ mobile: false, player: false })).toBe(24)
    expect(toastBottom({ mobile: false, player: true })).toBe(96)
  })
})
