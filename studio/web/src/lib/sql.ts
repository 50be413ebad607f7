import { ApiError, headers } from './api'

// The SQL editor's run: POST /api/sql answers NDJSON lines as the results
// are read, so a big result neither waits for the end nor piles up.

export type ResultSet = {
  columns: { name: string; type: string }[] | null
  rows: (string | null)[][]
  command: string
  truncated: boolean
}

export type PgErrorBody = {
  error: string
  message: string
  code: string
  position?: number
  line?: number
  column?: number
  detail?: string
  hint?: string
}

export type RunOutcome = {
  runId: string
  results: ResultSet[]
  error?: PgErrorBody
  notice?: string
  durationMs?: number
}

/** runSQL runs query and reports the results as they arrive. */
export async function runSQL(
  body: { query: string; run_id: string; explain?: 'plan' | 'analyze'; timeout_ms?: number },
  onProgress: (o: RunOutcome) => void,
  signal?: AbortSignal,
): Promise<RunOutcome> {
  const h = headers({ 'Content-Type': 'application/json' })
  const res = await fetch('/api/sql', { method: 'POST', headers: h, body: JSON.stringify(body), credentials: 'same-origin', signal })
  if (!res.ok || !res.body) {
    const text = await res.text()
    let b: Record<string, unknown> = { error: text }
    try {
      b = JSON.parse(text)
    } catch {
      /* keep the text */
    }
    throw new ApiError(res.status, b)
  }
  const out: RunOutcome = { runId: body.run_id, results: [] }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
  let buf = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    buf += value
    let nl
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl)
      buf = buf.slice(nl + 1)
      if (!line) continue
      const m = JSON.parse(line)
      switch (m.type) {
        case 'result':
          out.results[m.index] = { columns: m.columns, rows: [], command: '', truncated: false }
          break
        case 'rows':
          out.results[out.results.length - 1]?.rows.push(...m.rows)
          break
        case 'end': {
          const r = out.results[m.index]
          if (r) {
            r.command = m.command
            r.truncated = m.truncated
          }
          break
        }
        case 'error':
          out.error = m.error
          break
        case 'done':
          out.durationMs = m.duration_ms
          out.notice = m.notice
          break
      }
    }
    onProgress({ ...out, results: [...out.results] })
  }
  return out
}

/** cancelSQL asks the server to cancel a run. */
export async function cancelSQL(runId: string) {
  await fetch('/api/sql/cancel', { method: 'POST', headers: headers({ 'Content-Type': 'application/json' }), body: JSON.stringify({ run_id: runId }), credentials: 'same-origin' })
}

/** maxQueryBytes is the server's limit on one run's SQL. */
export const maxQueryBytes = 1 << 20

/** tooLarge words a paste or text over the limit, or returns null. */
export function tooLarge(text: string): string | null {
  const bytes = new Blob([text]).size
  if (bytes <= maxQueryBytes) return null
  return `This is ${(bytes / (1 << 20)).toFixed(1)} MB of SQL; the SQL editor runs at most 1.0 MB at once. Load big data with psql or COPY.`
}
