// The table editor's PostgREST-style query: filters, order, paging, and
// who the page is read as.

export type Op = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'like' | 'ilike' | 'is' | 'in' | 'cs' | 'cd'

export const ops: { value: Op; label: string }[] = [
  { value: 'eq', label: '=' },
  { value: 'neq', label: '≠' },
  { value: 'gt', label: '>' },
  { value: 'gte', label: '≥' },
  { value: 'lt', label: '<' },
  { value: 'lte', label: '≤' },
  { value: 'ilike', label: 'contains (ilike)' },
  { value: 'like', label: 'like' },
  { value: 'in', label: 'in list' },
  { value: 'is', label: 'is' },
  { value: 'cs', label: 'contains (@>)' },
  { value: 'cd', label: 'contained in (<@)' },
]

export type Filter = { column: string; op: Op; value: string; not?: boolean }
export type Sort = { column: string; desc: boolean } | null
export type ViewAs = { role: 'operator' | 'anon' | 'authenticated' } | { role: 'user'; userId: string; email: string }

/** filterValue renders a filter's value in PostgREST's syntax. */
export function filterValue(f: Filter): string {
  let v = f.value
  if (f.op === 'ilike' || f.op === 'like') v = v.includes('*') || v.includes('%') ? v : `*${v}*`
  if (f.op === 'in') {
    const items = v.split(',').map((s) => s.trim()).filter(Boolean)
    v = `(${items.map((s) => (/[,()"\\]/.test(s) ? `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"` : s)).join(',')})`
  }
  return `${f.not ? 'not.' : ''}${f.op}.${v}`
}

/** pageQuery is the query string of a page request. */
export function pageQuery(opts: { filters: Filter[]; sort: Sort; offset: number; limit: number; as: ViewAs }): string {
  const p = new URLSearchParams()
  for (const f of opts.filters) p.append(f.column, filterValue(f))
  if (opts.sort) p.set('order', `${opts.sort.column}.${opts.sort.desc ? 'desc' : 'asc'}`)
  p.set('offset', String(opts.offset))
  p.set('limit', String(opts.limit))
  if (opts.as.role === 'user') p.set('user', opts.as.userId)
  else if (opts.as.role !== 'operator') p.set('role', opts.as.role)
  return p.toString()
}
