import type { ReactNode } from 'react'
import { cn } from '@/lib/utils'
import { Button } from '@/components/ui/button'

/** A column of a log table: its heading, right-aligned for figures. */
export type LogColumn = string | { label: string; right: true }

/** LogTable is the frame every log list shares: a scrolling table with sticky headings, its rows, and a line when none match. */
export function LogTable({ label, columns, rows, empty, children }: { label: string; columns: LogColumn[]; rows: number | undefined; empty: string; children: ReactNode }) {
  return (
    <table className="w-full font-mono text-xs" aria-label={label}>
      <thead className="sticky top-0 bg-panel text-left font-sans text-muted-foreground">
        <tr>
          {columns.map((c) => {
            const [text, right] = typeof c === 'string' ? [c, false] : [c.label, c.right]
            return (
              <th key={text} className={cn('px-2 py-1.5 font-medium', right && 'text-right')}>
                {text}
              </th>
            )
          })}
        </tr>
      </thead>
      <tbody>
        {children}
        {rows === 0 && (
          <tr>
            <td colSpan={columns.length} className="px-3 py-4 text-center font-sans text-muted-foreground">
              {empty}
            </td>
          </tr>
        )}
      </tbody>
    </table>
  )
}

/** OlderLines loads a paged log's next (older) page, while there is one. */
export function OlderLines({ pages, label }: { pages: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown }; label: string }) {
  if (!pages.hasNextPage) return null
  return (
    <div className="p-2 text-center">
      <Button variant="outline" size="sm" onClick={() => pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
        {label}
      </Button>
    </div>
  )
}
