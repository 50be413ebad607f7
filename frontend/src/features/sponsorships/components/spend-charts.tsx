import { memo, useMemo, useState } from 'react'
import { AxisBottom, AxisLeft } from '@visx/axis'
import { localPoint } from '@visx/event'
import { GridColumns, GridRows } from '@visx/grid'
import { scaleBand, scaleLinear } from '@visx/scale'
import { BarRounded } from '@visx/shape'
import { TooltipWithBounds } from '@visx/tooltip'
import { useElementWidth } from '@/hooks/use-element-width'
import { formatNaira } from '@/lib/format'

// The charts are drawn with visx's parts (scales, axes, grid lines, bars):
// one render of plain SVG, a few milliseconds even on a slow phone, where
// a chart library that lays a chart out over several renders kept the
// sponsor's first screen busy for most of a second. The module still loads
// lazily, after the dashboard's first screen.

/** SpendData is what the charts plot. */
export interface SpendData {
  per_day: { day: string; amount: number; streams: number }[]
  per_artist: { name: string; amount: number }[]
  per_track: { title: string; amount: number }[]
}

/** Point is one bar: its category's name on the axis and the naira spent. */
interface Point {
  key: string
  label: string
  amount: number
}

const HEIGHT = 224 // h-56
const AXIS = '#666'
const GRID = '#ccc'
const BAR = '#f59e0b'
const TICK = { fontSize: 11, fill: 'currentColor' }
/** TIP is the tooltip's box (inline: the page's stylesheet, loaded before any page, stays as it was). */
const TIP = { background: '#18181b', border: '1px solid #3f3f46', padding: 10 }
/** MIN_GAP is the least space between two day labels: labels that would come closer are left out, the last one kept. */
const MIN_GAP = 5
/** CHAR_PX is an 11-px label's character width where text cannot be measured. */
const CHAR_PX = 7

let pen: OffscreenCanvasRenderingContext2D | null | undefined
/** labelWidth is a tick label's width, measured on a canvas of its own (which lays nothing out on the page). */
function labelWidth(text: string): number {
  if (pen === undefined) {
    pen = typeof OffscreenCanvas === 'undefined' ? null : new OffscreenCanvas(1, 1).getContext('2d')
    if (pen) pen.font = `${TICK.fontSize}px ${getComputedStyle(document.documentElement).fontFamily}`
  }
  return pen ? pen.measureText(text).width : text.length * CHAR_PX
}

/**
 * amountTicks are five evenly spaced amounts from 0 that cover max, on a
 * round step (350, 500, 1,500: two significant digits, the second 0 or 5),
 * as the charts have always labelled them; 0 to 4 when nothing was spent.
 */
export function amountTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1, 2, 3, 4]
  const rough = max / 4
  const digits = Math.floor(Math.log10(rough)) + 1
  const unit = 10 ** digits
  const grain = digits === 1 ? 0.1 : 0.05
  const step = Number((Math.ceil(Number((rough / unit / grain).toPrecision(12))) * grain * unit).toPrecision(12))
  return [0, 1, 2, 3, 4].map((i) => Number((i * step).toPrecision(12)))
}

/** spacedFromEnd picks the labels that fit along a band axis without touching, starting from the last. */
export function spacedFromEnd(labels: string[], step: number, width = labelWidth): number[] {
  const kept: number[] = []
  let edge = Infinity
  for (let i = labels.length - 1; i >= 0; i--) {
    const centre = (i + 0.5) * step
    const half = width(labels[i]) / 2
    if (centre + half + MIN_GAP <= edge) {
      kept.unshift(i)
      edge = centre - half
    }
  }
  return kept
}

/** Plot draws one bar chart at a width: categories along x (days), or down y (artists, tracks) when vertical. */
function Plot({ data, width, vertical }: { data: Point[]; width: number; vertical?: boolean }) {
  const [active, setActive] = useState<{ i: number; x: number; y: number } | null>(null)
  const axisWidth = vertical ? 90 : 40
  const left = (vertical ? 8 : 0) + axisWidth
  const right = width - 8
  const top = 5
  const bottom = HEIGHT - 5 - 30
  const ticks = amountTicks(Math.max(0, ...data.map((d) => d.amount)))
  const amounts = scaleLinear<number>({ domain: [0, ticks[4]], range: vertical ? [left, right] : [bottom, top] })
  const cats = scaleBand<string>({ domain: data.map((d) => d.key), range: vertical ? [top, bottom] : [left, right] })
  const band = cats.bandwidth()
  const shown = vertical ? data.map((_, i) => i) : spacedFromEnd(data.map((d) => d.label), band)
  const labelOf = new Map(data.map((d) => [d.key, d.label]))
  const label = (k: string) => labelOf.get(k) ?? k
  const amountTick = (v: unknown) => String(v)
  const move = (i: number, e: React.PointerEvent<SVGRectElement>) => {
    const p = localPoint(e)
    if (p) setActive({ i, x: p.x, y: p.y })
  }
  // A mouse shows a category while over it; a tap shows it until the next tap elsewhere (the chart loses focus).
  const pick = (i: number) => ({
    onPointerDown: (e: React.PointerEvent<SVGRectElement>) => move(i, e),
    onPointerMove: (e: React.PointerEvent<SVGRectElement>) => move(i, e),
    onPointerLeave: (e: React.PointerEvent<SVGRectElement>) => e.pointerType !== 'touch' && setActive(null),
  })
  const keys = (e: React.KeyboardEvent<SVGSVGElement>) => {
    const step = e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : e.key === 'ArrowLeft' || e.key === 'ArrowUp' ? -1 : 0
    if (!step) return
    e.preventDefault()
    const i = Math.min(data.length - 1, Math.max(0, active ? active.i + step : 0))
    const at = (cats(data[i].key) ?? 0) + band / 2
    setActive(vertical ? { i, x: (left + right) / 2, y: at } : { i, x: at, y: (top + bottom) / 2 })
  }
  const d = active && data[active.i]
  return (
    <>
      <svg width={width} height={HEIGHT} tabIndex={0} role="application" onKeyDown={keys} onBlur={() => setActive(null)} overflow="visible" className="outline-none">
        {vertical ? (
          <>
            <GridRows scale={cats} width={right - left} left={left} stroke={GRID} strokeOpacity={0.15} />
            <GridColumns scale={amounts} tickValues={ticks} height={bottom - top} top={top} stroke={GRID} strokeOpacity={0.15} />
          </>
        ) : (
          <>
            <GridRows scale={amounts} tickValues={ticks} width={right - left} left={left} stroke={GRID} strokeOpacity={0.15} />
            <GridColumns scale={cats} tickValues={shown.map((i) => data[i].key)} height={bottom - top} top={top} stroke={GRID} strokeOpacity={0.15} />
          </>
        )}
        {/* The hovered category, behind its bar. */}
        {active &&
          (vertical ? (
            <rect x={left} y={cats(data[active.i].key)} width={right - left} height={band} fill={GRID} />
          ) : (
            <rect x={cats(data[active.i].key)} y={top} width={band} height={bottom - top} fill={GRID} />
          ))}
        {data.map((p) => {
          const at = (cats(p.key) ?? 0) + band * 0.1
          const size = Math.abs(amounts(p.amount) - amounts(0))
          if (size <= 0) return null
          return vertical ? (
            <BarRounded key={p.key} x={left} y={at} width={size} height={band * 0.8} radius={3} all fill={BAR} />
          ) : (
            <BarRounded key={p.key} x={at} y={bottom - size} width={band * 0.8} height={size} radius={3} all fill={BAR} />
          )
        })}
        {vertical ? (
          <>
            <AxisBottom top={bottom} scale={amounts} tickValues={ticks} tickFormat={amountTick} stroke={AXIS} tickStroke={AXIS} tickLabelProps={{ ...TICK, textAnchor: 'middle' }} />
            <AxisLeft left={left} scale={cats} tickFormat={label} stroke={AXIS} tickStroke={AXIS} tickLabelProps={{ ...TICK, textAnchor: 'end', verticalAnchor: 'middle', width: axisWidth - 12 }} />
          </>
        ) : (
          <>
            <AxisBottom top={bottom} scale={cats} tickValues={shown.map((i) => data[i].key)} tickFormat={label} stroke={AXIS} tickStroke={AXIS} tickLabelProps={{ ...TICK, textAnchor: 'middle' }} />
            <AxisLeft left={left} scale={amounts} tickValues={ticks} tickFormat={amountTick} stroke={AXIS} tickStroke={AXIS} tickLabelProps={{ ...TICK, textAnchor: 'end', verticalAnchor: 'middle' }} />
          </>
        )}
        {/* Where a pointer or a tap picks a category: its whole band. */}
        {data.map((p, i) =>
          vertical ? (
            <rect key={p.key} x={left} y={cats(p.key)} width={right - left} height={band} fill="transparent" {...pick(i)} />
          ) : (
            <rect key={p.key} x={cats(p.key)} y={top} width={band} height={bottom - top} fill="transparent" {...pick(i)} />
          ),
        )}
      </svg>
      {active && d && (
        <TooltipWithBounds left={active.x} top={active.y} unstyled applyPositionStyle className="pointer-events-none whitespace-nowrap" data-testid="spend-tooltip">
          <div style={TIP}>
            <p>{d.label}</p>
            <p className="pt-1" style={{ color: BAR }}>
              Spent : {formatNaira(d.amount)}
            </p>
          </div>
        </TooltipWithBounds>
      )}
    </>
  )
}

function Chart({ title, data, vertical }: { title: string; data: Point[]; vertical?: boolean }) {
  // Nothing is drawn until the width is known.
  const [ref, width] = useElementWidth<HTMLDivElement>(0)
  return (
    <figure className="min-w-0 rounded-xl border border-border bg-card p-3">
      <figcaption className="mb-2 text-sm font-semibold">{title}</figcaption>
      {data.length === 0 ? (
        <p className="py-10 text-center text-sm text-muted-foreground">No spending in this period</p>
      ) : (
        <div ref={ref} className="relative h-56 text-muted-foreground" data-testid="spend-chart">
          {width > 0 && <Plot data={data} width={width} vertical={vertical} />}
        </div>
      )}
    </figure>
  )
}

const dayLabel = (day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString('en-NG', { day: 'numeric', month: 'short', timeZone: 'UTC' })

/** SpendCharts plots spend per day, per artist and per track; it renders again only for new data. */
export default memo(function SpendCharts({ data }: { data: SpendData }) {
  const days = useMemo(() => data.per_day.map((d) => ({ key: d.day, label: dayLabel(d.day), amount: Number(d.amount) })), [data.per_day])
  const artists = useMemo(() => data.per_artist.slice(0, 8).map((a, i) => ({ key: `${i}`, label: a.name, amount: Number(a.amount) })), [data.per_artist])
  const tracks = useMemo(() => data.per_track.slice(0, 8).map((t, i) => ({ key: `${i}`, label: t.title, amount: Number(t.amount) })), [data.per_track])
  return (
    <div className="grid grid-cols-1 gap-3 lg:grid-cols-3" data-testid="spend-charts">
      <Chart title="Spend per day" data={days} />
      <Chart title="Spend per artist" data={artists} vertical />
      <Chart title="Spend per track" data={tracks} vertical />
    </div>
  )
})
