import type { ReactNode } from 'react'
import { cn } from '@/lib/utils'

/** DataList is a plain table of rows: a header row, then one row per item. */
export function DataList<T>({
  label,
  columns,
  rows,
  rowKey,
  empty,
  onRowClick,
  selected,
}: {
  label: string
  columns: { header: string; cell: (row: T) => ReactNode; className?: string }[]
  rows: T[] | undefined
  rowKey: (row: T) => string | number
  empty: string
  onRowClick?: (row: T) => void
  selected?: (row: T) => boolean
}) {
  const th = 'sticky top-0 border-b border-border bg-panel px-2 py-1.5 text-left text-xs font-medium text-muted-foreground'
  const td = 'border-b border-border px-2 py-1.5 align-top text-xs'
  return (
    <table className="w-full border-collapse" aria-label={label}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.header} className={th}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {(rows ?? []).map((r) => (
          <tr
            key={rowKey(r)}
            onClick={onRowClick ? () => onRowClick(r) : undefined}
            className={cn(onRowClick && 'cursor-pointer hover:bg-accent/50', selected?.(r) && 'bg-accent')}
          >
            {columns.map((c) => (
              <td key={c.header} className={cn(td, c.className)}>
                {c.cell(r)}
              </td>
            ))}
          </tr>
        ))}
        {rows && rows.length === 0 && (
          <tr>
            <td colSpan={columns.length} className={cn(td, 'text-muted-foreground')}>
              {empty}
            </td>
          </tr>
        )}
      </tbody>
    </table>
  )
}

/** ago says how long before now a time was: 5 s, 3 min, 2 h, 4 d. */
export function ago(at: string | null | undefined): string {
  if (!at) return '–'
  return age((Date.now() - Date.parse(at)) / 1000)
}

/** age says a number of seconds the way people read it. */
export function age(sec: number | null | undefined): string {
  if (sec === null || sec === undefined) return '–'
  const s = Math.max(0, Math.round(sec))
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min`
  if (s < 86400) return `${Math.floor(s / 3600)} h`
  return `${Math.floor(s / 86400)} d`
}

/** when shows a timestamp in the viewer's time, to the second. */
export function when(at: string | null | undefined): string {
  if (!at) return '–'
  return new Date(at).toLocaleString('en-GB', { dateStyle: 'short', timeStyle: 'medium' })
}
