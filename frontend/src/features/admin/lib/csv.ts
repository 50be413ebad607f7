// CSV export of admin lists (RFC 4180: comma separated, CRLF line ends,
// fields with commas, quotes or line breaks quoted, quotes doubled).

/** CsvColumn names a column and how to read it from a row. */
export interface CsvColumn<Row> {
  header: string
  value: (row: Row) => string | number | boolean | null | undefined
}

// A text cell a spreadsheet would run as a formula gets a leading quote
// (OWASP's advice for CSV injection). Numbers are left alone, so negative
// amounts stay numbers.
const formulaStart = /^[=+\-@\t\r]/

/** csvField renders one value as a CSV field. */
export function csvField(v: string | number | boolean | null | undefined): string {
  if (v === null || v === undefined) return ''
  let s = String(v)
  if (typeof v === 'string' && formulaStart.test(s)) s = `'${s}`
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}

/** toCsv renders rows under a header line. */
export function toCsv<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[]): string {
  const lines = [columns.map((c) => csvField(c.header)).join(',')]
  for (const row of rows) lines.push(columns.map((c) => csvField(c.value(row))).join(','))
  return lines.join('\r\n') + '\r\n'
}
