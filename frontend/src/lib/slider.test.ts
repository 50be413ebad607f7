import { describe, expect, it } from 'vitest'
import { clampToStep, sliderKeyValue, valueFromPosition } from './slider'

describe('clampToStep', () => {
  it('rounds to the step and clamps to the range', () => {
    expect(clampToStep(42.4)).toBe(42)
    expect(clampToStep(42.5)).toBe(43)
    expect(clampToStep(-3)).toBe(0)
    expect(clampToStep(130)).toBe(100)
    expect(clampToStep(12.345, { max: 200, step: 0.1 })).toBe(12.3)
    expect(clampToStep(0.1 + 0.2, { step: 0.1 })).toBe(0.3)
    expect(clampToStep(Number.NaN, { min: 5 })).toBe(5)
  })
})

describe('sliderKeyValue', () => {
  const volume = { min: 0, max: 100, step: 1 }
  const seek = { min: 0, max: 180, step: 0.1 }
  it.each([
    ['ArrowRight', false, 50, volume, 51],
    ['ArrowUp', false, 50, volume, 51],
    ['ArrowLeft', false, 50, volume, 49],
    ['ArrowDown', false, 0, volume, 0],
    ['ArrowRight', true, 50, volume, 60],
    ['ArrowLeft', true, 5, volume, 0],
    ['PageUp', false, 95, volume, 100],
    ['PageDown', false, 50, volume, 40],
    ['Home', false, 50, volume, 0],
    ['End', false, 50, volume, 100],
    ['ArrowRight', false, 10, seek, 10.1],
    ['PageUp', false, 10, seek, 11],
    ['End', false, 10, seek, 180],
  ] as const)('%s shift=%s from %d', (key, shift, from, range, want) => {
    expect(sliderKeyValue(key, shift, from, range)).toBe(want)
  })
  it('ignores other keys', () => {
    expect(sliderKeyValue('Enter', false, 10)).toBeNull()
  })
})

describe('valueFromPosition', () => {
  it('maps pointer offsets proportionally', () => {
    expect(valueFromPosition(50, 200)).toBe(25)
    expect(valueFromPosition(-10, 200)).toBe(0)
    expect(valueFromPosition(500, 200)).toBe(100)
    expect(valueFromPosition(100, 300, { max: 245, step: 0.1 })).toBe(81.7)
    expect(valueFromPosition(10, 0)).toBe(0)
  })
})
