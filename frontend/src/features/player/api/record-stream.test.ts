import { describe, expect, it } from 'vitest'
import { AFTER_PAYMENT_KEYS, nonFanMessage } from './record-stream'

describe('non-fan stream messages', () => {
  it.each([
    ['artist', true, 'Artists cannot generate valid streams for their own tracks'],
    ['artist', false, 'Artists cannot generate valid streams for their own tracks'],
    ['sponsor', false, 'Sponsor accounts cannot generate valid streams'],
    ['admin', false, 'Admin accounts cannot generate valid streams'],
    ['fan', true, 'Artists cannot generate valid streams for their own tracks'],
  ] as const)('%s (own track %s)', (role, own, want) => {
    expect(nonFanMessage(role, own)).toBe(want)
  })
  it('refreshes every cache the spec lists after a payment', () => {
    expect([...AFTER_PAYMENT_KEYS].sort()).toEqual(
      ['artistProfile', 'artistTracks', 'artistWallet', 'chartTracks', 'dailyStreamLimit', 'sponsorAnalytics', 'sponsorProfile', 'sponsorWallet', 'track', 'tracks', 'transactions'].sort(),
    )
  })
})
