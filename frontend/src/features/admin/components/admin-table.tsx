import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { cn } from '@/lib/utils'

/** Column is one column of an AdminTable. */
export interface Column<Row> {
  header: string
  cell: (row: Row) => React.ReactNode
  className?: string
}

/**
 * AdminTable renders a list as a table that scrolls sideways on small
 * screens. Rows are clickable when onRowClick is given.
 */
export function AdminTable<Row>({
  columns,
  rows,
  rowKey,
  loading,
  error,
  empty,
  onRowClick,
  testId,
}: {
  columns: Column<Row>[]
  rows: Row[]
  rowKey: (row: Row) => string
  loading?: boolean
  error?: unknown
  empty: string
  onRowClick?: (row: Row) => void
  testId?: string
}) {
  return (
    <div className="overflow-x-auto rounded-xl border border-border" data-testid={testId}>
      <table className="w-full min-w-[640px] text-left text-sm">
        <thead className="bg-card text-xs uppercase tracking-wide text-muted-foreground">
          <tr>
            {columns.map((c) => (
              <th key={c.header} className={cn('p-3 font-medium', c.className)}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={rowKey(row)}
              data-row={rowKey(row)}
              className={cn('border-t border-border align-top', onRowClick && 'cursor-pointer hover:bg-accent/40')}
              onClick={onRowClick ? () => onRowClick(row) : undefined}
            >
              {columns.map((c) => (
                // Cells keep to one line (the table scrolls sideways on phones)
                // unless a column asks to wrap.
                <td key={c.header} className={cn('whitespace-nowrap p-3', c.className)}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {loading && <Skeleton className="m-3 h-20" />}
      {!loading && !!error && <p className="p-6 text-center text-destructive">{String((error as { message?: string }).message ?? error)}</p>}
      {!loading && !error && rows.length === 0 && <p className="p-6 text-center text-muted-foreground">{empty}</p>}
    </div>
  )
}

/** LoadMore fetches the next keyset page of an infinite query. */
export function LoadMore({ hasNextPage, isFetchingNextPage, fetchNextPage }: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => unknown }) {
  if (!hasNextPage) return null
  return (
    <div className="mt-3 flex justify-center">
      <Button variant="outline" size="sm" disabled={isFetchingNextPage} onClick={() => void fetchNextPage()}>
        {isFetchingNextPage ? 'Loading…' : 'Load more'}
      </Button>
    </div>
  )
}
