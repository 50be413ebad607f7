// Slider value rules of spec section 5, shared by the seek and volume sliders.

/** SliderRange describes a slider's bounds and step. Defaults: 0–100, step 1. */
export interface SliderRange {
  min?: number
  max?: number
  step?: number
}

/** clampToStep rounds a value to the nearest step from min and clamps it into range. */
export function clampToStep(value: number, { min = 0, max = 100, step = 1 }: SliderRange = {}): number {
  if (!Number.isFinite(value)) return min
  const stepped = Math.round((value - min) / step) * step + min
  // Trim binary noise from fractional steps (0.1 + 0.2).
  const decimals = (String(step).split('.')[1] ?? '').length
  const rounded = Number(stepped.toFixed(decimals))
  return Math.min(max, Math.max(min, rounded))
}

/**
 * sliderKeyValue returns the value after a key press, or null for keys the
 * slider does not handle. Arrows move one step; PageUp/PageDown, or Shift with
 * an arrow, move ten steps; Home and End jump to min and max.
 */
export function sliderKeyValue(key: string, shiftKey: boolean, value: number, range: SliderRange = {}): number | null {
  const { min = 0, max = 100, step = 1 } = range
  const big = step * 10
  let next: number
  switch (key) {
    case 'ArrowRight':
    case 'ArrowUp':
      next = value + (shiftKey ? big : step)
      break
    case 'ArrowLeft':
    case 'ArrowDown':
      next = value - (shiftKey ? big : step)
      break
    case 'PageUp':
      next = value + big
      break
    case 'PageDown':
      next = value - big
      break
    case 'Home':
      return min
    case 'End':
      return max
    default:
      return null
  }
  return clampToStep(next, { min, max, step })
}

/** valueFromPosition maps a pointer offset within a track of the given width to a slider value. */
export function valueFromPosition(offset: number, width: number, range: SliderRange = {}): number {
  const { min = 0, max = 100 } = range
  const ratio = width > 0 ? Math.min(1, Math.max(0, offset / width)) : 0
  return clampToStep(min + ratio * (max - min), range)
}
