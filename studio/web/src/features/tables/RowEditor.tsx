import { useState } from 'react'
import { useMutation, useQuery } from '@tanstack/react-query'
import { Link2 } from 'lucide-react'
import { api } from '@/lib/api'
import type { Column, Page, Relationship, Row } from '@/lib/types'
import { Button } from '@/components/ui/button'
import { Input, Label, Select, Textarea } from '@/components/ui/input'
import { Dialog, DialogContent } from '@/components/ui/dialog'
import { Badge, ErrorText } from '@/components/ui/misc'
import { cellText } from './DataTab'

type Field = { text: string; isNull: boolean; dirty: boolean }

/** kind is the input a column gets. */
export function kind(c: Column): 'bool' | 'enum' | 'json' | 'array' | 'timestamp' | 'date' | 'number' | 'text' {
  if (c.type === 'boolean') return 'bool'
  if (c.type === 'json' || c.type === 'jsonb') return 'json'
  if (c.category === 'A') return 'array'
  if (c.enums?.length) return 'enum'
  if (c.type === 'date') return 'date'
  if (c.type.startsWith('timestamp')) return 'timestamp'
  if (c.category === 'N') return 'number'
  return 'text'
}

/** initialText shows a value for editing. */
function initialText(c: Column, v: unknown): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'object') return JSON.stringify(v, null, kind(c) === 'json' ? 2 : 0)
  return String(v)
}

/** toValue turns a field into the JSON the rows endpoint takes. */
export function toValue(c: Column, f: Field): unknown {
  if (f.isNull) return null
  switch (kind(c)) {
    case 'json':
      try {
        return JSON.parse(f.text)
      } catch {
        throw new Error(`${c.name}: not valid JSON`)
      }
    case 'array':
      if (f.text.trim().startsWith('[')) {
        try {
          return JSON.parse(f.text)
        } catch {
          throw new Error(`${c.name}: not a valid JSON list`)
        }
      }
      return f.text
    case 'bool':
      return f.text === 'true'
    default:
      return f.text
  }
}

/** RowEditor inserts a row (row null) or edits one, with an input per column's type. */
export function RowEditor(props: {
  schema: string
  table: string
  columns: Column[]
  pk: string[]
  row: Row | null
  relationships: Relationship[]
  onClose: () => void
  onSaved: () => void
}) {
  const { columns, row } = props
  const cut = new Set(row?.__studio_truncated ?? [])
  const [fields, setFields] = useState<Record<string, Field>>(() =>
    Object.fromEntries(columns.map((c) => [c.name, { text: row ? initialText(c, row[c.name]) : '', isNull: row ? row[c.name] === null : false, dirty: false }])),
  )
  const [picker, setPicker] = useState<Relationship | null>(null)
  const set = (name: string, f: Partial<Field>) => setFields((all) => ({ ...all, [name]: { ...all[name], ...f, dirty: true } }))
  const path = `/api/rows/${encodeURIComponent(props.schema)}/${encodeURIComponent(props.table)}`
  const save = useMutation({
    mutationFn: async () => {
      const values: Record<string, unknown> = {}
      for (const c of columns) if (fields[c.name].dirty) values[c.name] = toValue(c, fields[c.name])
      if (row) {
        if (Object.keys(values).length === 0) return
        const pk = Object.fromEntries(props.pk.map((k) => [k, row[k]]))
        return api(path, { method: 'PATCH', json: { pk, values } })
      }
      return api(path, { method: 'POST', json: { values } })
    },
    onSuccess: props.onSaved,
  })
  return (
    <Dialog open onOpenChange={(o) => !o && props.onClose()}>
      <DialogContent
        className="max-w-2xl"
        title={row ? `Edit row of ${props.table}` : `Insert a row into ${props.table}`}
        description={row ? 'Only the fields you change are written.' : 'Fields left untouched take their default.'}
      >
        <form
          className="grid-scroll -mx-1 flex flex-col gap-3 px-1"
          onSubmit={(e) => {
            e.preventDefault()
            save.mutate()
          }}
        >
          {columns.map((c) => {
            const f = fields[c.name]
            const k = kind(c)
            const fk = props.relationships.find((r) => r.source_column_name === c.name)
            const locked = c.generated || cut.has(c.name)
            const id = `field-${c.name}`
            return (
              <div key={c.name} className="flex flex-col gap-1">
                <div className="flex items-center gap-2">
                  <Label htmlFor={id}>{c.name}</Label>
                  <span className="font-mono text-[11px] text-muted-foreground">{c.type}</span>
                  {c.pk && <Badge>primary key</Badge>}
                  {fk && <Badge>→ {fk.target_table_name}.{fk.target_column_name}</Badge>}
                  {c.generated && <Badge>generated</Badge>}
                  {cut.has(c.name) && <Badge tone="warn">value too long to edit here</Badge>}
                  {c.nullable && !locked && (
                    <label className="ml-auto flex items-center gap-1 text-[11px] text-muted-foreground">
                      <input type="checkbox" checked={f.isNull} onChange={(e) => set(c.name, { isNull: e.target.checked })} /> NULL
                    </label>
                  )}
                </div>
                <div className="flex gap-1">
                  {k === 'bool' ? (
                    <Select id={id} disabled={locked || f.isNull} value={f.text} onChange={(e) => set(c.name, { text: e.target.value, isNull: false })}>
                      <option value="">{row ? '' : c.has_default ? '(default)' : ''}</option>
                      <option value="true">true</option>
                      <option value="false">false</option>
                    </Select>
                  ) : k === 'enum' ? (
                    <Select id={id} disabled={locked || f.isNull} value={f.text} onChange={(e) => set(c.name, { text: e.target.value, isNull: false })}>
                      <option value="">{c.has_default && !row ? '(default)' : ''}</option>
                      {c.enums!.map((v) => (
                        <option key={v} value={v}>
                          {v}
                        </option>
                      ))}
                    </Select>
                  ) : k === 'json' || k === 'array' || (k === 'text' && f.text.length > 80) ? (
                    <Textarea
                      id={id}
                      disabled={locked || f.isNull}
                      value={f.text}
                      placeholder={k === 'array' ? '["a", "b"] or {a,b}' : k === 'json' ? '{"key": "value"}' : c.has_default ? '(default)' : ''}
                      onChange={(e) => set(c.name, { text: e.target.value, isNull: false })}
                    />
                  ) : (
                    <Input
                      id={id}
                      disabled={locked || f.isNull}
                      type={k === 'date' ? 'date' : 'text'}
                      inputMode={k === 'number' ? 'decimal' : undefined}
                      value={f.text}
                      placeholder={c.has_default || c.identity ? '(default)' : k === 'timestamp' ? '2025-01-31T12:00:00Z' : ''}
                      onChange={(e) => set(c.name, { text: e.target.value, isNull: false })}
                    />
                  )}
                  {k === 'timestamp' && !locked && (
                    <Button type="button" variant="outline" onClick={() => set(c.name, { text: new Date().toISOString(), isNull: false })}>
                      now
                    </Button>
                  )}
                  {fk && !locked && (
                    <Button type="button" variant="outline" aria-label={`Pick ${c.name}`} onClick={() => setPicker(fk)}>
                      <Link2 /> Pick
                    </Button>
                  )}
                </div>
              </div>
            )
          })}
          <ErrorText error={save.error} />
          <div className="sticky bottom-0 flex justify-end gap-2 bg-card pt-2">
            <Button type="button" variant="outline" onClick={props.onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={save.isPending}>
              {row ? 'Save' : 'Insert'}
            </Button>
          </div>
        </form>
        {picker && (
          <ForeignKeyPicker
            rel={picker}
            onClose={() => setPicker(null)}
            onPick={(v) => {
              set(picker.source_column_name, { text: v, isNull: false })
              setPicker(null)
            }}
          />
        )}
      </DialogContent>
    </Dialog>
  )
}

/** ForeignKeyPicker lists rows of the referenced table to choose the key from. */
function ForeignKeyPicker({ rel, onPick, onClose }: { rel: Relationship; onPick: (v: string) => void; onClose: () => void }) {
  const [search, setSearch] = useState('')
  const target = `/api/rows/${encodeURIComponent(rel.target_table_schema)}/${encodeURIComponent(rel.target_table_name)}`
  const first = useQuery({ queryKey: ['fk-cols', target], queryFn: () => api<Page>(`${target}?limit=1&count=none`) })
  // Search the referenced table's first text column (a name or a title, as a rule).
  const textCol = first.data?.table.columns.find((c) => c.category === 'S' && !c.pk)?.name
  const rows = useQuery({
    queryKey: ['fk-rows', target, search, textCol],
    enabled: first.isSuccess,
    queryFn: () => {
      const p = new URLSearchParams({ limit: '25', count: 'none' })
      if (search && textCol) p.set(textCol, `ilike.*${search}*`)
      return api<Page>(`${target}?${p}`)
    },
  })
  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent className="max-w-xl" title={`Pick a row of ${rel.target_table_name}`} description={`The value is its ${rel.target_column_name}.`}>
        <Input autoFocus placeholder={textCol ? `Search by ${textCol}` : 'Search'} aria-label="Search rows" value={search} onChange={(e) => setSearch(e.target.value)} />
        <ErrorText error={first.error ?? rows.error} />
        <ul className="grid-scroll max-h-80">
          {(rows.data?.rows ?? []).map((r, i) => (
            <li key={i}>
              <Button variant="ghost" className="h-auto w-full justify-start py-1 text-left" onClick={() => onPick(String(r[rel.target_column_name]))}>
                <span className="truncate">{textCol ? cellText(r[textCol]) : ''}</span>
                <span className="ml-auto font-mono text-[11px] text-muted-foreground">{cellText(r[rel.target_column_name])}</span>
              </Button>
            </li>
          ))}
        </ul>
      </DialogContent>
    </Dialog>
  )
}
