import { useState } from 'react'
import { useQuery } from '@tanstack/react-query'
import { RefreshCw } from 'lucide-react'
import { api } from '@/lib/api'
import { Button } from '@/components/ui/button'
import { Input, Select } from '@/components/ui/input'
import { Badge, ErrorText } from '@/components/ui/misc'
import { LogTable } from './LogTable'

/** A line of Postgres's jsonlog (the fields the screen shows). */
type ServerLogLine = {
  timestamp: string
  error_severity: string
  state_code?: string
  message: string
  detail?: string
  hint?: string
  statement?: string
  user?: string
  dbname?: string
  application_name?: string
  backend_type?: string
  pid?: number
}
type ServerLogAnswer = { available: boolean; reason?: string; file?: string; entries: ServerLogLine[]; truncated: boolean }

const levels = ['', 'log', 'notice', 'warning', 'error', 'fatal']
const ranges: [string, number][] = [
  ['any time', 0],
  ['last 15 minutes', 15],
  ['last hour', 60],
  ['last 24 hours', 24 * 60],
]

function tone(sev: string) {
  return sev === 'ERROR' || sev === 'FATAL' || sev === 'PANIC' ? 'bad' : sev === 'WARNING' ? 'warn' : 'muted'
}

/** PostgresLog shows the database server's own log, the tail of its newest files. */
export default function PostgresLog() {
  const [level, setLevel] = useState('')
  const [text, setText] = useState('')
  const [range, setRange] = useState(0)
  const q = new URLSearchParams({ limit: '300' })
  if (level) q.set('level', level)
  if (text.trim()) q.set('text', text.trim())
  if (range) q.set('since', new Date(Date.now() - range * 60_000).toISOString().replace(/\.\d+Z$/, 'Z'))
  const log = useQuery({
    queryKey: ['logs', 'postgres', level, text.trim(), range],
    queryFn: () => api<ServerLogAnswer>(`/api/logs/postgres?${q}`),
    refetchInterval: 3000,
  })
  const rows = log.data?.entries ?? []
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-2 p-4">
      <div className="flex flex-wrap items-center gap-2">
        <Select aria-label="Severity" className="w-44" value={level} onChange={(e) => setLevel(e.target.value)}>
          {levels.map((l) => (
            <option key={l} value={l}>
              {l ? `${l} and above` : 'any severity'}
            </option>
          ))}
        </Select>
        <Input className="w-64" placeholder="text, statement or SQLSTATE" aria-label="Text" value={text} onChange={(e) => setText(e.target.value)} />
        <Select aria-label="Time" className="w-40" value={String(range)} onChange={(e) => setRange(Number(e.target.value))}>
          {ranges.map(([label, m]) => (
            <option key={m} value={m}>
              {label}
            </option>
          ))}
        </Select>
        <Button variant="outline" size="icon" aria-label="Refresh" onClick={() => log.refetch()}>
          <RefreshCw />
        </Button>
      </div>
      <ErrorText error={log.error} />
      {log.data && !log.data.available && (
        <p className="rounded-md border border-border bg-panel p-3 text-sm" role="status">
          {log.data.reason}
        </p>
      )}
      {log.data?.available && (
        <div className="grid-scroll flex-1 rounded-md border border-border">
          <LogTable label="Postgres log" columns={['Time', 'Severity', 'SQLSTATE', 'Message']} rows={rows.length} empty="No line of the server log matches.">
              {rows.map((r, i) => (
                <tr key={`${r.timestamp}-${r.pid}-${i}`} className="border-t border-border align-top" data-testid="pg-log-row">
                  <td className="whitespace-nowrap px-2 py-1">{r.timestamp}</td>
                  <td className="px-2 py-1">
                    <Badge tone={tone(r.error_severity)}>{r.error_severity}</Badge>
                  </td>
                  <td className="px-2 py-1">{r.state_code}</td>
                  <td className="max-w-2xl whitespace-pre-wrap break-all px-2 py-1">
                    {r.message}
                    {r.detail && <div className="text-muted-foreground">DETAIL: {r.detail}</div>}
                    {r.hint && <div className="text-muted-foreground">HINT: {r.hint}</div>}
                    {r.statement && <div className="text-muted-foreground">STATEMENT: {r.statement}</div>}
                    {(r.user || r.dbname || r.backend_type) && (
                      <div className="font-sans text-muted-foreground">
                        {[r.user, r.dbname, r.application_name, r.backend_type].filter(Boolean).join(' · ')}
                      </div>
                    )}
                  </td>
                </tr>
              ))}
          </LogTable>
          <p className="p-2 text-center font-sans text-xs text-muted-foreground">
            From {log.data.file}
            {log.data.truncated ? ': the newest part of the log only' : ''}.
          </p>
        </div>
      )}
    </div>
  )
}
