// How a table fits the width it has (phones first): every column when they
// all fit; else the most important columns, with the others folded into a
// line under each row; else, when too few would be left, one card per row.
// Never a sideways scroll, and a row's actions always stay in view.

/** ColumnFit is what the layout needs to know of a column. */
export interface ColumnFit {
  id: string
  /** width is the narrowest the column reads well at, in CSS pixels. */
  width: number
  /** priority orders columns by importance: 1 goes last; equal priorities keep their order. */
  priority: number
  /** action columns (the row's buttons) are never folded away. */
  action?: boolean
}

/** TableLayout is how a table is drawn at a width. */
export type TableLayout = { mode: 'table'; shown: string[]; folded: string[] } | { mode: 'cards' }

/** MIN_TABLE_COLUMNS is how many data columns a table keeps before it turns into cards. */
export const MIN_TABLE_COLUMNS = 2

/**
 * chooseTableLayout picks the layout for columns at an available width:
 * a table of every column when their widths fit; a table of the columns
 * that fit by priority (actions always kept) with the rest folded; or cards
 * when fewer than MIN_TABLE_COLUMNS data columns would remain.
 */
export function chooseTableLayout(columns: ColumnFit[], available: number): TableLayout {
  const total = columns.reduce((s, c) => s + c.width, 0)
  if (total <= available) return { mode: 'table', shown: columns.map((c) => c.id), folded: [] }
  const actions = columns.filter((c) => c.action)
  let used = actions.reduce((s, c) => s + c.width, 0)
  const keep = new Set(actions.map((c) => c.id))
  const byImportance = columns
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => !c.action)
    .sort((a, b) => a.c.priority - b.c.priority || a.i - b.i)
  let data = 0
  for (const { c } of byImportance) {
    if (used + c.width > available) break
    used += c.width
    keep.add(c.id)
    data++
  }
  if (data < Math.min(MIN_TABLE_COLUMNS, byImportance.length)) return { mode: 'cards' }
  return {
    mode: 'table',
    shown: columns.filter((c) => keep.has(c.id)).map((c) => c.id),
    folded: columns.filter((c) => !keep.has(c.id)).map((c) => c.id),
  }
}
