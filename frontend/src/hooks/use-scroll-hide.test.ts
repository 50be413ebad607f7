import { describe, expect, it } from 'vitest'
import { nextHidden } from './use-scroll-hide'

describe('top bar scroll rule', () => {
  it('ignores moves under 5px', () => {
    expect(nextHidden(false, 200, 204)).toEqual({ hidden: false, lastY: 200 })
  })
  it('hides when scrolling down past 100px', () => {
    expect(nextHidden(false, 50, 90)).toEqual({ hidden: false, lastY: 90 })
    expect(nextHidden(false, 96, 120)).toEqual({ hidden: true, lastY: 120 })
  })
  it('shows again when scrolling up', () => {
    expect(nextHidden(true, 500, 480)).toEqual({ hidden: false, lastY: 480 })
  })
})
