import { useRef, useState } from 'react'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { FileCode, History, Play, Save, Square, Trash2, Workflow } from 'lucide-react'
import { api } from '@/lib/api'
import { cancelSQL, runSQL, tooLarge, type RunOutcome } from '@/lib/sql'
import { cn } from '@/lib/utils'
import { Button } from '@/components/ui/button'
import { Input, Select } from '@/components/ui/input'
import { ErrorText, Tabs } from '@/components/ui/misc'
import { ExplainTree } from './ExplainTree'
import { SIDE_START, SPLIT, SPLIT_MAIN } from '@/lib/layout'

type Snippet = { id: string; name: string; sql: string; updated_at: string }
type HistoryRow = { id: number; sql: string; started_at: string; duration_ms: number; row_count: number; error: string | null }

/** SqlEditor runs SQL as the admin role: results as grids, errors with their position, plans as trees. */
export default function SqlEditor() {
  const qc = useQueryClient()
  const [sql, setSql] = useState('select 1 + 1 as two;')
  const [name, setName] = useState('')
  const [snippetId, setSnippetId] = useState<string | null>(null)
  const [timeout, setTimeoutMs] = useState(30000)
  const [out, setOut] = useState<(RunOutcome & { explain?: boolean }) | null>(null)
  const [running, setRunning] = useState<string | null>(null)
  const [failure, setFailure] = useState<unknown>(null)
  const [tab, setTab] = useState(0)
  const [side, setSide] = useState<'snippets' | 'history'>('snippets')
  const ref = useRef<HTMLTextAreaElement>(null)

  const snippets = useQuery({ queryKey: ['snippets'], queryFn: () => api<Snippet[]>('/api/snippets') })
  const history = useQuery({ queryKey: ['sql-history'], queryFn: () => api<HistoryRow[]>('/api/sql/history'), enabled: side === 'history' })
  const save = useMutation({
    mutationFn: () =>
      snippetId
        ? api<Snippet>(`/api/snippets/${snippetId}`, { method: 'PATCH', json: { name: name || 'Untitled', sql } })
        : api<Snippet>('/api/snippets', { method: 'POST', json: { name: name || 'Untitled', sql } }),
    onSuccess: (s) => (setSnippetId(s.id), qc.invalidateQueries({ queryKey: ['snippets'] })),
  })
  const remove = useMutation({
    mutationFn: (id: string) => api(`/api/snippets/${id}`, { method: 'DELETE' }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['snippets'] }),
  })

  const run = async (explain?: 'plan' | 'analyze') => {
    const big = tooLarge(sql)
    if (big) {
      setFailure(big)
      return
    }
    const id = crypto.randomUUID()
    setRunning(id)
    setFailure(null)
    setOut(null)
    setTab(0)
    try {
      const o = await runSQL({ query: sql, run_id: id, explain, timeout_ms: timeout }, (p) => setOut({ ...p, explain: !!explain }))
      setOut({ ...o, explain: !!explain })
      if (o.error?.position && ref.current) {
        // Put the caret where PostgreSQL says the error is.
        const pos = [...sql].slice(0, o.error.position - 1).join('').length
        ref.current.focus()
        ref.current.setSelectionRange(pos, pos + 1)
      }
    } catch (e) {
      setFailure(e)
    } finally {
      setRunning(null)
      qc.invalidateQueries({ queryKey: ['sql-history'] })
    }
  }

  const result = out?.results[tab]
  return (
    // On a phone the snippets and history come after the editor.
    <div className={cn(SPLIT, 'max-md:flex-col-reverse')}>
      <div className={cn(SIDE_START, 'flex max-h-72 flex-col gap-2 p-3 max-md:border-t max-md:border-b-0 md:max-h-none md:w-60')}>
        <Tabs
          value={side}
          onChange={setSide}
          items={[
            { value: 'snippets', label: 'Snippets' },
            { value: 'history', label: 'History' },
          ]}
        />
        <ul className="grid-scroll flex-1 text-xs">
          {side === 'snippets' &&
            (snippets.data ?? []).map((s) => (
              <li key={s.id} className={cn('group flex items-center gap-1 rounded px-1.5 py-1 hover:bg-accent/60', s.id === snippetId && 'bg-accent')}>
                <button className="flex min-w-0 flex-1 items-center gap-1.5 text-left" onClick={() => (setSql(s.sql), setName(s.name), setSnippetId(s.id))}>
                  <FileCode className="size-3.5 shrink-0" /> <span className="truncate">{s.name}</span>
                </button>
                <button aria-label={`Delete snippet ${s.name}`} className="md:opacity-0 md:group-hover:opacity-100" onClick={() => remove.mutate(s.id)}>
                  <Trash2 className="size-3.5" />
                </button>
              </li>
            ))}
          {side === 'snippets' && snippets.data?.length === 0 && <li className="text-muted-foreground">Saved snippets appear here.</li>}
          {side === 'history' &&
            (history.data ?? []).map((h) => (
              <li key={h.id}>
                <button className="w-full rounded px-1.5 py-1 text-left hover:bg-accent/60" onClick={() => (setSql(h.sql), setSnippetId(null))}>
                  <div className="flex items-center gap-1 text-muted-foreground">
                    <History className="size-3" /> {new Date(h.started_at).toLocaleTimeString()} · {h.duration_ms.toFixed(1)} ms
                    {h.error && <span className="text-destructive">· error</span>}
                  </div>
                  <div className="truncate font-mono">{h.sql}</div>
                </button>
              </li>
            ))}
        </ul>
      </div>
      <div className={cn(SPLIT_MAIN, 'gap-2 p-3')}>
        <div className="flex flex-wrap items-center gap-2">
          <Input aria-label="Snippet name" placeholder="Untitled snippet" className="w-full sm:w-56" value={name} onChange={(e) => setName(e.target.value)} />
          <Button variant="outline" onClick={() => save.mutate()} disabled={save.isPending}>
            <Save /> Save
          </Button>
          <Select aria-label="Statement timeout" className="w-36" value={timeout} onChange={(e) => setTimeoutMs(Number(e.target.value))}>
            {[5000, 30000, 60000, 300000].map((t) => (
              <option key={t} value={t}>
                timeout {t / 1000}s
              </option>
            ))}
          </Select>
          <div className="ml-auto flex flex-wrap gap-2">
            {running ? (
              <Button variant="destructive" onClick={() => cancelSQL(running)}>
                <Square /> Cancel
              </Button>
            ) : (
              <>
                <Button variant="outline" onClick={() => run('plan')}>
                  <Workflow /> Explain
                </Button>
                <Button variant="outline" onClick={() => run('analyze')} title="Runs the statement inside a transaction that is rolled back">
                  Explain analyze
                </Button>
                <Button onClick={() => run()}>
                  <Play /> Run <span className="text-[10px] opacity-70">Ctrl+Enter</span>
                </Button>
              </>
            )}
          </div>
        </div>
        <ErrorText error={save.error} />
        <textarea
          ref={ref}
          aria-label="SQL"
          spellCheck={false}
          className="h-56 min-h-24 w-full resize-y rounded-md border border-border bg-panel p-2 font-mono text-[13px] focus-visible:outline-none focus-visible:ring-1 focus-visible:ring-ring"
          value={sql}
          onChange={(e) => setSql(e.target.value)}
          onPaste={(e) => {
            // A huge paste is refused before it reaches the page's state, so the tab never freezes.
            const text = e.clipboardData.getData('text')
            const big = text.length > 256 * 1024 ? tooLarge(text) : null
            if (big) {
              e.preventDefault()
              setFailure(big)
            }
          }}
          onKeyDown={(e) => {
            if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && !running) {
              e.preventDefault()
              run()
            }
          }}
        />
        <ErrorText error={failure} />
        {out?.error && (
          <div data-testid="sql-error">
            <ErrorText error={out.error.error} />
            {out.error.line && (
              <div className="mt-1 text-xs text-muted-foreground">
                line {out.error.line}, column {out.error.column} · SQLSTATE {out.error.code}
              </div>
            )}
          </div>
        )}
        {out && (
          <div className="flex min-h-0 flex-1 flex-col gap-1">
            <div className="flex items-center gap-2 text-xs text-muted-foreground">
              {out.results.length > 1 &&
                out.results.map((_, i) => (
                  <button key={i} className={cn('rounded px-2 py-0.5', tab === i ? 'bg-accent text-foreground' : 'hover:bg-accent/60')} onClick={() => setTab(i)}>
                    Result {i + 1}
                  </button>
                ))}
              {result && <span data-testid="sql-command">{result.command || (running ? 'running…' : '')}</span>}
              {out.durationMs !== undefined && <span>· {out.durationMs.toFixed(1)} ms</span>}
              {out.notice && <span className="text-warning">· {out.notice}</span>}
            </div>
            {result?.columns && (
              <div className="grid-scroll min-h-0 flex-1 rounded-md border border-border">
                {out.explain && result.rows.length === 1 ? (
                  <div className="p-2">
                    <ExplainTree text={result.rows[0][0] ?? ''} />
                  </div>
                ) : (
                  <table className="w-max min-w-full border-collapse font-mono text-xs" data-testid="sql-grid">
                    <thead className="sticky top-0 bg-card">
                      <tr>
                        {result.columns.map((c, i) => (
                          <th key={i} className="border-b border-r border-border px-2 py-1 text-left font-medium">
                            {c.name} <span className="font-normal text-muted-foreground">{c.type}</span>
                          </th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      {result.rows.map((r, i) => (
                        <tr key={i}>
                          {r.map((v, j) => (
                            <td key={j} className={cn('max-w-96 truncate border-b border-r border-border px-2 py-0.5', v === null && 'text-muted-foreground')}>
                              {v ?? 'NULL'}
                            </td>
                          ))}
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </div>
            )}
          </div>
        )}
      </div>
    </div>
  )
}
