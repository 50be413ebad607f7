import { useMemo, useState } from 'react'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef } from '@tanstack/react-table'
import { ArrowDown, ArrowUp, ChevronLeft, ChevronRight, Plus, RefreshCw, Trash2, X } from 'lucide-react'
import { api } from '@/lib/api'
import type { Page, PgTable, Row } from '@/lib/types'
import { cn, formatCount } from '@/lib/utils'
import { Button } from '@/components/ui/button'
import { Input, Select } from '@/components/ui/input'
import { Dialog, DialogContent } from '@/components/ui/dialog'
import { Badge, ErrorText } from '@/components/ui/misc'
import { ops, pageQuery, type Filter, type Op, type Sort, type ViewAs } from './query'
import { RowEditor } from './RowEditor'
import { ViewAsPicker } from './ViewAsPicker'

const pageSize = 100

/** cellText is how a value shows in the grid. */
export function cellText(v: unknown): string {
  if (v === null || v === undefined) return 'NULL'
  if (typeof v === 'object') return JSON.stringify(v)
  return String(v)
}

/** DataTab browses a table's rows: filters, sort, paging, view as, and edits. */
export function DataTab({ schema, table, tableId }: { schema: string; table: string; tableId?: number }) {
  const qc = useQueryClient()
  const [filters, setFilters] = useState<Filter[]>([])
  const [draft, setDraft] = useState<Filter>({ column: '', op: 'eq', value: '' })
  const [sort, setSort] = useState<Sort>(null)
  const [offset, setOffset] = useState(0)
  const [as, setAs] = useState<ViewAs>({ role: 'operator' })
  const [editing, setEditing] = useState<Row | 'new' | null>(null)
  const [selected, setSelected] = useState<Set<number>>(new Set())
  const [confirmDelete, setConfirmDelete] = useState(false)

  const qs = pageQuery({ filters, sort, offset, limit: pageSize, as })
  const key = ['rows', schema, table, qs]
  const page = useQuery({
    queryKey: key,
    queryFn: () => api<Page>(`/api/rows/${encodeURIComponent(schema)}/${encodeURIComponent(table)}?${qs}`),
    placeholderData: keepPreviousData,
  })
  const meta = useQuery({
    queryKey: ['pg', 'table', tableId],
    queryFn: () => api<PgTable>(`/pg/tables/${tableId}`),
    enabled: tableId !== undefined,
  })
  const columns = page.data?.table.columns ?? []
  const pk = page.data?.table.primary_key ?? []
  const readOnly = as.role !== 'operator'

  const del = useMutation({
    mutationFn: (rows: Row[]) =>
      api(`/api/rows/${encodeURIComponent(schema)}/${encodeURIComponent(table)}`, {
        method: 'DELETE',
        json: { pks: rows.map((r) => Object.fromEntries(pk.map((k) => [k, r[k]]))) },
      }),
    onSuccess: () => {
      setSelected(new Set())
      setConfirmDelete(false)
      qc.invalidateQueries({ queryKey: ['rows', schema, table] })
    },
  })

  const defs = useMemo<ColumnDef<Row>[]>(
    () => [
      {
        id: '__select',
        header: () => null,
        cell: ({ row }) =>
          readOnly || pk.length === 0 ? null : (
            <input
              type="checkbox"
              aria-label="Select row"
              checked={selected.has(row.index)}
              onClick={(e) => e.stopPropagation()}
              onChange={(e) => {
                const next = new Set(selected)
                if (e.target.checked) next.add(row.index)
                else next.delete(row.index)
                setSelected(next)
              }}
            />
          ),
      },
      ...columns.map<ColumnDef<Row>>((c) => ({
        id: c.name,
        accessorFn: (r) => r[c.name],
        header: () => (
          <button
            className="flex items-center gap-1 font-medium"
            onClick={() => {
              setOffset(0)
              setSort(sort?.column !== c.name ? { column: c.name, desc: false } : sort.desc ? null : { column: c.name, desc: true })
            }}
            title={`${c.type}${c.pk ? ' · primary key' : ''}`}
          >
            {c.name}
            <span className="font-normal text-muted-foreground">{c.type}</span>
            {sort?.column === c.name && (sort.desc ? <ArrowDown className="size-3" /> : <ArrowUp className="size-3" />)}
          </button>
        ),
        cell: ({ row, getValue }) => {
          const v = getValue()
          const cut = row.original.__studio_truncated?.includes(c.name)
          return (
            <span className={cn('block max-w-80 truncate', v === null && 'text-muted-foreground')}>
              {cellText(v)}
              {cut && <Badge className="ml-1">cut</Badge>}
            </span>
          )
        },
      })),
    ],
    [columns, sort, selected, readOnly, pk.length],
  )
  const grid = useReactTable({ data: page.data?.rows ?? [], columns: defs, getCoreRowModel: getCoreRowModel(), manualPagination: true, manualSorting: true })

  const count = page.data?.count ?? 0
  const shownTo = offset + (page.data?.rows.length ?? 0)

  return (
    <div className="flex min-h-0 flex-1 flex-col gap-2 p-4 pt-3">
      <div className="flex flex-wrap items-center gap-2">
        <Select aria-label="Filter column" className="w-40" value={draft.column} onChange={(e) => setDraft({ ...draft, column: e.target.value })}>
          <option value="">Filter by…</option>
          {columns.map((c) => (
            <option key={c.name} value={c.name}>
              {c.name}
            </option>
          ))}
        </Select>
        <Select aria-label="Filter operator" className="w-36" value={draft.op} onChange={(e) => setDraft({ ...draft, op: e.target.value as Op })}>
          {ops.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </Select>
        <Input
          aria-label="Filter value"
          className="w-48"
          placeholder={draft.op === 'is' ? 'null, not_null, true, false' : draft.op === 'in' ? 'a, b, c' : 'value'}
          value={draft.value}
          onChange={(e) => setDraft({ ...draft, value: e.target.value })}
          onKeyDown={(e) => e.key === 'Enter' && draft.column && (setFilters([...filters, draft]), setOffset(0), setDraft({ ...draft, value: '' }))}
        />
        <Button
          variant="outline"
          disabled={!draft.column}
          onClick={() => {
            setFilters([...filters, draft])
            setOffset(0)
            setDraft({ ...draft, value: '' })
          }}
        >
          Apply filter
        </Button>
        <div className="ml-auto flex flex-wrap items-center gap-2">
          <ViewAsPicker value={as} onChange={(v) => (setAs(v), setOffset(0), setSelected(new Set()))} />
          <Button variant="outline" size="icon" aria-label="Refresh" onClick={() => page.refetch()}>
            <RefreshCw className={cn(page.isFetching && 'animate-spin')} />
          </Button>
          {!readOnly && (
            <Button onClick={() => setEditing('new')}>
              <Plus /> Insert row
            </Button>
          )}
        </div>
      </div>
      {filters.length > 0 && (
        <div className="flex flex-wrap gap-1.5">
          {filters.map((f, i) => (
            <span key={i} className="inline-flex items-center gap-1 rounded bg-muted px-2 py-0.5 font-mono text-xs" data-testid="filter-chip">
              {f.column}={f.op}.{f.value}
              <button aria-label="Remove filter" onClick={() => (setFilters(filters.filter((_, j) => j !== i)), setOffset(0))}>
                <X className="size-3" />
              </button>
            </span>
          ))}
        </div>
      )}
      {as.role !== 'operator' && (
        <div className="rounded-md border border-primary/40 bg-primary/10 px-3 py-1.5 text-xs" data-testid="view-as-banner">
          Viewing as <b>{as.role === 'user' ? as.email : as.role}</b>: only the rows its row-level security policies let it read. Read only.
        </div>
      )}
      {page.data?.notice && <div className="text-xs text-warning">{page.data.notice}</div>}
      <ErrorText error={page.error} />
      <div className="grid-scroll min-h-0 flex-1 rounded-md border border-border">
        <table className="w-max min-w-full border-collapse text-xs" data-testid="rows-grid">
          <thead className="sticky top-0 z-10 bg-card">
            {grid.getHeaderGroups().map((hg) => (
              <tr key={hg.id}>
                {hg.headers.map((h) => (
                  <th key={h.id} className="border-b border-r border-border px-2 py-1.5 text-left">
                    {flexRender(h.column.columnDef.header, h.getContext())}
                  </th>
                ))}
              </tr>
            ))}
          </thead>
          <tbody>
            {grid.getRowModel().rows.map((r) => (
              <tr key={r.id} className={cn('hover:bg-accent/50', !readOnly && pk.length > 0 && 'cursor-pointer')} onClick={() => !readOnly && pk.length > 0 && setEditing(r.original)}>
                {r.getVisibleCells().map((c) => (
                  <td key={c.id} className="border-b border-r border-border px-2 py-1">
                    {flexRender(c.column.columnDef.cell, c.getContext())}
                  </td>
                ))}
              </tr>
            ))}
            {page.data && page.data.rows.length === 0 && (
              <tr>
                <td colSpan={defs.length} className="px-3 py-6 text-center text-muted-foreground">
                  No rows{as.role !== 'operator' ? ' visible to this role' : ''}.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <div className="flex items-center gap-2 text-xs text-muted-foreground">
        {selected.size > 0 && (
          <Button variant="destructive" size="sm" onClick={() => setConfirmDelete(true)}>
            <Trash2 /> Delete {selected.size} row{selected.size > 1 ? 's' : ''}
          </Button>
        )}
        {pk.length === 0 && page.data && <span>No primary key: rows can be read here, edited in the SQL editor.</span>}
        <span className="ml-auto" data-testid="row-count">
          {page.data ? `${formatCount(page.data.rows.length ? offset + 1 : 0)}–${formatCount(shownTo)} of ${page.data.count_exact ? '' : '≈'}${formatCount(count)}${!page.data.count_exact && page.data.count >= 100000 ? '+' : ''}` : ''}
        </span>
        <Button variant="outline" size="icon" aria-label="Previous page" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - pageSize))}>
          <ChevronLeft />
        </Button>
        <Button variant="outline" size="icon" aria-label="Next page" disabled={!page.data || shownTo >= count || page.data.rows.length < (page.data.limit ?? pageSize)} onClick={() => setOffset(offset + (page.data?.limit ?? pageSize))}>
          <ChevronRight />
        </Button>
      </div>
      {editing && page.data && (
        <RowEditor
          schema={schema}
          table={table}
          columns={columns}
          pk={pk}
          row={editing === 'new' ? null : editing}
          relationships={(meta.data?.relationships ?? []).filter((r) => r.source_schema === schema && r.source_table_name === table)}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null)
            qc.invalidateQueries({ queryKey: ['rows', schema, table] })
          }}
        />
      )}
      <Dialog open={confirmDelete} onOpenChange={setConfirmDelete}>
        <DialogContent title={`Delete ${selected.size} row${selected.size > 1 ? 's' : ''}?`} description="This cannot be undone. The deletion is written to Studio's audit log.">
          <ErrorText error={del.error} />
          <div className="flex justify-end gap-2">
            <Button variant="outline" onClick={() => setConfirmDelete(false)}>
              Cancel
            </Button>
            <Button variant="destructive" disabled={del.isPending} onClick={() => del.mutate([...selected].map((i) => page.data!.rows[i]))}>
              Delete
            </Button>
          </div>
        </DialogContent>
      </Dialog>
    </div>
  )
}
