import { Fragment, memo, useMemo } from 'react'
import { flexRender, getCoreRowModel, useReactTable, type Cell, type ColumnDef } from '@tanstack/react-table'
import { Button } from '@/components/ui/button'
import { Skeleton } from '@/components/ui/skeleton'
import { useElementWidth } from '@/hooks/use-element-width'
import { chooseTableLayout } from '@/lib/table-layout'
import { cn } from '@/lib/utils'

/** DataColumn is one column of a DataTable. */
export interface DataColumn<Row> {
  header: string
  cell: (row: Row) => React.ReactNode
  /** className styles the column's cells (alignment, wrapping). */
  className?: string
  /** priority: 1 is shown longest as the table narrows; by default columns count from the left. */
  priority?: number
  /** width is the narrowest the column reads well at (px, default 120). */
  width?: number
  /** action marks the row's buttons: never folded away, and a card's footer. */
  action?: boolean
}

interface Meta {
  header: string
  className?: string
  action: boolean
  priority: number
  width: number
}

const metaOf = <Row,>(cell: Cell<Row, unknown>) => cell.column.columnDef.meta as Meta

/** DataTableProps are a DataTable's inputs. */
export interface DataTableProps<Row> {
  columns: DataColumn<Row>[]
  rows: Row[]
  rowKey: (row: Row) => string
  loading?: boolean
  error?: unknown
  empty: string
  /** onRowClick opens a row; rowLabel names it for the row's Open button. */
  onRowClick?: (row: Row) => void
  rowLabel?: (row: Row) => string
  testId?: string
  rowTestId?: string
}

/**
 * DataTable shows rows as a table that fits its width, phones first
 * (lib/table-layout.ts): every column when they fit; else the most
 * important ones with the rest folded under each row's first cell; else a
 * card per row with its actions at the bottom. It never scrolls sideways.
 * Its width comes from where it sits, never from its content (inline-size
 * containment): a table drawn for a wider screen cannot hold the width it
 * is measured at.
 */
export function DataTable<Row>(props: DataTableProps<Row>) {
  const { columns, onRowClick, rowLabel, testId } = props
  const [ref, width] = useElementWidth<HTMLDivElement>()
  const all = useMemo(() => {
    const list: DataColumn<Row>[] = [...columns]
    // An openable row gets a button too: a row click is no use to a keyboard or a screen reader.
    if (onRowClick)
      list.push({
        header: '',
        action: true,
        width: 84,
        cell: (row) => (
          <Button size="sm" variant="ghost" aria-label={`Open ${rowLabel?.(row) ?? ''}`.trim()} onClick={() => onRowClick(row)}>
            Open
          </Button>
        ),
      })
    return list
  }, [columns, onRowClick, rowLabel])
  const layout = chooseTableLayout(
    all.map((c, i) => ({ id: `c${i}`, width: c.width ?? 120, priority: c.priority ?? i + 1, action: !!c.action })),
    // The cells' padding is part of the widths; the border is not.
    width - 2,
  )
  // The rows are drawn again when the layout changes, not whenever the width does.
  const folded = layout.mode === 'table' ? layout.folded.join(' ') : ''
  return layout.mode === 'cards' ? (
    <div ref={ref} className="w-full min-w-0 [contain:inline-size]" data-testid={testId} data-layout="cards">
      <Rows {...props} all={all} cards folded="" />
    </div>
  ) : (
    <div ref={ref} className="w-full min-w-0 rounded-xl border border-border [contain:inline-size]" data-testid={testId} data-layout="table">
      <Rows {...props} all={all} cards={false} folded={folded} />
    </div>
  )
}

/** RowsProps are a DataTable's inputs with its columns and the layout chosen: cards, or a table with the columns folded (ids, space-separated). */
type RowsProps<Row> = DataTableProps<Row> & { all: DataColumn<Row>[]; cards: boolean; folded: string }

/** Rows draws a DataTable's rows in the layout chosen for its width. */
function RowsOf<Row>({ all, cards, folded: foldedIds, rows, rowKey, loading, error, empty, onRowClick, rowTestId }: RowsProps<Row>) {
  const defs = useMemo<ColumnDef<Row>[]>(
    () =>
      all.map((c, i) => ({
        id: `c${i}`,
        header: c.header,
        cell: (ctx) => c.cell(ctx.row.original),
        meta: { header: c.header, className: c.className, action: !!c.action, priority: c.priority ?? i + 1, width: c.width ?? 120 } satisfies Meta,
      })),
    [all],
  )
  const folded = new Set(foldedIds ? foldedIds.split(' ') : [])
  // The table object is read afresh on every render here, never memoized or passed on.
  // eslint-disable-next-line react-hooks/incompatible-library
  const table = useReactTable({
    data: rows,
    columns: defs,
    getRowId: (row) => rowKey(row),
    getCoreRowModel: getCoreRowModel(),
    state: { columnVisibility: Object.fromEntries([...folded].map((id) => [id, false])) },
  })
  const status = (
    <>
      {loading && <Skeleton className="m-3 h-20" />}
      {!loading && !!error && <p className="p-6 text-center text-destructive">{String((error as { message?: string }).message ?? error)}</p>}
      {!loading && !error && rows.length === 0 && <p className="p-6 text-center text-muted-foreground">{empty}</p>}
    </>
  )

  if (cards) {
    return (
      <>
        <ul className="grid grid-cols-1 gap-2">
          {table.getRowModel().rows.map((row) => {
            const cells = row.getAllCells()
            const data = cells.filter((c) => !metaOf(c).action)
            // The most important column heads the card.
            const head = [...data].sort((a, b) => metaOf(a).priority - metaOf(b).priority)[0]
            const actions = cells.filter((c) => metaOf(c).action)
            return (
              <li key={row.id} data-slot="row-card" data-row={row.id} data-testid={rowTestId} className="min-w-0 rounded-xl border border-border bg-card p-3 text-sm [overflow-wrap:anywhere]">
                {head && <div className="font-medium">{flexRender(head.column.columnDef.cell, head.getContext())}</div>}
                <dl className="mt-2 grid grid-cols-[minmax(0,auto)_minmax(0,1fr)] gap-x-3 gap-y-1.5">
                  {data
                    .filter((c) => c !== head)
                    .map((c) => (
                      <Fragment key={c.id}>
                        <dt className="text-xs text-muted-foreground">{metaOf(c).header}</dt>
                        <dd className="min-w-0">{flexRender(c.column.columnDef.cell, c.getContext())}</dd>
                      </Fragment>
                    ))}
                </dl>
                {/* A row with nothing to do (an action cell rendering nothing) has no footer. */}
                <div className="mt-3 flex flex-wrap items-center gap-2 border-t border-border pt-3 empty:hidden">
                  {actions.map((c) => (
                    <Fragment key={c.id}>{flexRender(c.column.columnDef.cell, c.getContext())}</Fragment>
                  ))}
                </div>
              </li>
            )
          })}
        </ul>
        {(loading || !!error || rows.length === 0) && <div className="rounded-xl border border-border">{status}</div>}
      </>
    )
  }

  return (
    <>
      <table className="w-full text-left text-sm">
        <thead className="bg-card text-xs uppercase tracking-wide text-muted-foreground">
          {table.getHeaderGroups().map((g) => (
            <tr key={g.id}>
              {g.headers.map((h) => (
                <th key={h.id} className={cn('p-3 font-medium', (h.column.columnDef.meta as Meta).className)}>
                  {flexRender(h.column.columnDef.header, h.getContext())}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => {
            const hidden = row.getAllCells().filter((c) => folded.has(c.column.id))
            return (
              <tr
                key={row.id}
                data-row={row.id}
                data-testid={rowTestId}
                className={cn('border-t border-border align-top', onRowClick && 'cursor-pointer hover:bg-accent/40')}
                onClick={onRowClick ? () => onRowClick(row.original) : undefined}
              >
                {row.getVisibleCells().map((c, i) => (
                  <td key={c.id} className={cn('p-3 [overflow-wrap:anywhere]', metaOf(c).action && 'w-px whitespace-nowrap', metaOf(c).className)} onClick={metaOf(c).action ? (e) => e.stopPropagation() : undefined}>
                    {flexRender(c.column.columnDef.cell, c.getContext())}
                    {/* The columns that did not fit, under the row's first cell. */}
                    {i === 0 && hidden.length > 0 && (
                      <dl className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-xs" data-slot="folded">
                        {hidden.map((h) => (
                          <div key={h.id} className="min-w-0">
                            <dt className="text-muted-foreground">{metaOf(h).header}</dt>
                            <dd>{flexRender(h.column.columnDef.cell, h.getContext())}</dd>
                          </div>
                        ))}
                      </dl>
                    )}
                  </td>
                ))}
              </tr>
            )
          })}
        </tbody>
      </table>
      {status}
    </>
  )
}

// Memoised: a DataTable that only measured a new width with the same layout leaves its rows be.
const Rows = memo(RowsOf) as typeof RowsOf
