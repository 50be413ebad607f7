// CSV export of tables (statements, the ledger): RFC 4180 quoting, CRLF rows,
// and a byte-order mark so spreadsheet programs read ₦ and names as UTF-8.

/** CsvColumn names a column and how to read it from a row. */
export interface CsvColumn<T> {
  header: string
  value: (row: T) => string | number | null | undefined
}

/** csvCell quotes a value when it holds a comma, quote or line break, doubling quotes. */
export function csvCell(v: string | number | null | undefined): string {
  const s = v === null || v === undefined ? '' : String(v)
  // A leading = + - @ would be read as a formula by spreadsheets; a quote mark disarms it.
  const safe = /^[=+\-@]/.test(s) && !/^-?\d+(\.\d+)?$/.test(s) ? `'${s}` : s
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** toCsv renders rows under a header line. */
export function toCsv<T>(rows: T[], columns: CsvColumn<T>[]): string {
  const lines = [columns.map((c) => csvCell(c.header)).join(',')]
  for (const r of rows) lines.push(columns.map((c) => csvCell(c.value(r))).join(','))
  return `${lines.join('\r\n')}\r\n`
}

/** downloadCsv saves CSV text as a file in the browser. */
export function downloadCsv(filename: string, csv: string) {
  const url = URL.createObjectURL(new Blob(['\ufeff', csv], { type: 'text/csv;charset=utf-8' }))
  const a = document.createElement('a')
  a.href = url
  a.download = filename
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}
