import * as React from 'react'
import { clampToStep, sliderKeyValue, valueFromPosition } from '@/lib/slider'
import { cn } from '@/lib/utils'

interface SliderProps {
  value: number
  onValueChange: (v: number) => void
  min?: number
  max?: number
  step?: number
  'aria-label': string
  className?: string
}

/**
 * Slider is a single-thumb range control following the rules in lib/slider:
 * values rounded to the step and clamped; arrows, PageUp/PageDown, Shift+arrow,
 * Home and End.
 */
function Slider({ value, onValueChange, min = 0, max = 100, step = 1, className, ...aria }: SliderProps) {
  const ref = React.useRef<HTMLDivElement>(null)
  const range = { min, max, step }
  const pct = max > min ? ((clampToStep(value, range) - min) / (max - min)) * 100 : 0

  const fromPointer = (clientX: number) => {
    const rect = ref.current?.getBoundingClientRect()
    if (rect) onValueChange(valueFromPosition(clientX - rect.left, rect.width, range))
  }
  return (
    <div
      ref={ref}
      role="slider"
      tabIndex={0}
      aria-valuemin={min}
      aria-valuemax={max}
      aria-valuenow={clampToStep(value, range)}
      aria-label={aria['aria-label']}
      className={cn('group relative flex h-4 w-full cursor-pointer touch-none select-none items-center', className)}
      onPointerDown={(e) => {
        e.currentTarget.setPointerCapture(e.pointerId)
        fromPointer(e.clientX)
      }}
      onPointerMove={(e) => {
        if (e.currentTarget.hasPointerCapture(e.pointerId)) fromPointer(e.clientX)
      }}
      onKeyDown={(e) => {
        const next = sliderKeyValue(e.key, e.shiftKey, value, range)
        if (next !== null) {
          e.preventDefault()
          onValueChange(next)
        }
      }}
    >
      <div className="relative h-1.5 w-full overflow-hidden rounded-full bg-muted">
        <div className="absolute inset-y-0 left-0 bg-primary" style={{ width: `${pct}%` }} />
      </div>
      <div
        className="absolute size-3.5 -translate-x-1/2 rounded-full border-2 border-primary bg-background shadow group-focus-visible:ring-2 group-focus-visible:ring-ring"
        style={{ left: `${pct}%` }}
      />
    </div>
  )
}

export { Slider }
