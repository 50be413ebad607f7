import { Fragment, useState } from 'react'
import { useInfiniteQuery } from '@tanstack/react-query'
import { RefreshCw } from 'lucide-react'
import { api } from '@/lib/api'
import { cn } from '@/lib/utils'
import { Button } from '@/components/ui/button'
import { Input, Select } from '@/components/ui/input'
import { Badge, ErrorText, Tabs } from '@/components/ui/misc'
import { LogTable, OlderLines } from './LogTable'
import PostgresLog from './PostgresLog'

type AccessRow = {
  id: number
  at: string
  node: string
  request_id: string
  service: string
  method: string
  path: string
  query: string
  status: number
  bytes: number
  duration_ms: number
  client_ip: string
  user_agent: string
  user_id: string
  role: string
}
type FunctionRow = {
  id: number
  at: string
  function: string
  version: string
  kind: 'log' | 'request'
  request_id: string
  level: string
  message: string
  method?: string
  path?: string
  status?: number
  duration_ms?: number
}

const services = ['', 'auth', 'rest', 'realtime', 'storage', 'functions', 'gateway']
const pageSize = 100

/** Logs searches the API's access log (every node's, kept in Postgres), the functions' logs and Postgres's own log. */
export default function Logs() {
  const [tab, setTab] = useState<'access' | 'functions' | 'postgres'>('access')
  return (
    <div className="flex min-h-0 flex-1 flex-col">
      <div className="px-4 pt-3">
        <h1 className="mb-2 text-base font-semibold">Logs</h1>
        <Tabs
          value={tab}
          onChange={setTab}
          items={[
            { value: 'access', label: 'API requests' },
            { value: 'functions', label: 'Edge functions' },
            { value: 'postgres', label: 'Postgres' },
          ]}
        />
      </div>
      {tab === 'access' ? <AccessLogs /> : tab === 'functions' ? <FunctionLogs /> : <PostgresLog />}
    </div>
  )
}

/** useLogPages pages a log list by id (?before=), newest first, refreshed live on the first page. */
function useLogPages<T extends { id: number }>(path: string, filters: Record<string, string>, live: boolean) {
  const q = new URLSearchParams(Object.entries(filters).filter(([, v]) => v.trim() !== ''))
  return useInfiniteQuery({
    queryKey: ['logs', path, q.toString()],
    queryFn: ({ pageParam }) => {
      const p = new URLSearchParams(q)
      p.set('limit', String(pageSize))
      if (pageParam) p.set('before', String(pageParam))
      return api<T[]>(`${path}?${p}`)
    },
    initialPageParam: 0,
    getNextPageParam: (last) => (last.length === pageSize ? last[last.length - 1].id : undefined),
    refetchInterval: live ? 3000 : false,
  })
}

function statusTone(s: number) {
  return s >= 500 ? 'bad' : s >= 400 ? 'warn' : 'ok'
}

function time(t: string) {
  const d = new Date(t)
  return `${d.toLocaleDateString('en-GB')} ${d.toLocaleTimeString('en-GB')}.${String(d.getMilliseconds()).padStart(3, '0')}`
}

function AccessLogs() {
  const [f, setF] = useState({ service: '', status: '', method: '', path: '', user: '', request_id: '', node: '' })
  const [live, setLive] = useState(true)
  const [open, setOpen] = useState<number | null>(null)
  const logs = useLogPages<AccessRow>('/api/logs', f, live)
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value })
  const rows = logs.data?.pages.flat() ?? []
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-2 p-4">
      <div className="flex flex-wrap items-center gap-2">
        <Select aria-label="Service" className="w-32" value={f.service} onChange={set('service')}>
          {services.map((s) => (
            <option key={s} value={s}>
              {s || 'every service'}
            </option>
          ))}
        </Select>
        <Select aria-label="Status" className="w-32" value={f.status} onChange={set('status')}>
          <option value="">any status</option>
          <option value="error">errors (4xx, 5xx)</option>
          <option value="2xx">2xx</option>
          <option value="4xx">4xx</option>
          <option value="5xx">5xx</option>
        </Select>
        <Select aria-label="Method" className="w-28" value={f.method} onChange={set('method')}>
          {['', 'GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS'].map((m) => (
            <option key={m} value={m}>
              {m || 'any method'}
            </option>
          ))}
        </Select>
        <Input className="w-48" placeholder="path contains" aria-label="Path" value={f.path} onChange={set('path')} />
        <Input className="w-64" placeholder="user id" aria-label="User" value={f.user} onChange={set('user')} />
        <Input className="w-64" placeholder="request id" aria-label="Request id" value={f.request_id} onChange={set('request_id')} />
        <Input className="w-40" placeholder="node (host:port)" aria-label="Node" value={f.node} onChange={set('node')} />
        <label className="flex items-center gap-1 text-xs text-muted-foreground">
          <input type="checkbox" checked={live} onChange={(e) => setLive(e.target.checked)} /> live
        </label>
        <Button variant="outline" size="icon" aria-label="Refresh" onClick={() => logs.refetch()}>
          <RefreshCw />
        </Button>
      </div>
      <ErrorText error={logs.error} />
      <div className="grid-scroll flex-1 rounded-md border border-border">
        <LogTable
          label="Access log"
          columns={['Time', 'Service', 'Status', 'Request', { label: 'ms', right: true }, 'User', 'Request id']}
          rows={logs.data && rows.length}
          empty="No request matches."
        >
            {rows.map((r) => (
              <Fragment key={r.id}>
                <tr className={cn('cursor-pointer border-t border-border', open === r.id ? 'bg-accent' : 'hover:bg-accent/50')} onClick={() => setOpen(open === r.id ? null : r.id)} data-testid="log-row">
                  <td className="whitespace-nowrap px-2 py-1">{time(r.at)}</td>
                  <td className="px-2 py-1">{r.service}</td>
                  <td className="px-2 py-1">
                    <Badge tone={statusTone(r.status)}>{r.status}</Badge>
                  </td>
                  <td className="max-w-md truncate px-2 py-1" title={r.path + (r.query ? '?' + r.query : '')}>
                    {r.method} {r.path}
                    {r.query && <span className="text-muted-foreground">?{r.query}</span>}
                  </td>
                  <td className="px-2 py-1 text-right">{r.duration_ms.toFixed(1)}</td>
                  <td className="max-w-40 truncate px-2 py-1" title={r.user_id}>
                    {r.user_id ? r.user_id.slice(0, 8) : <span className="text-muted-foreground">{r.role || '—'}</span>}
                  </td>
                  <td className="whitespace-nowrap px-2 py-1">{r.request_id}</td>
                </tr>
                {open === r.id && (
                  <tr className="bg-panel">
                    <td colSpan={7} className="px-2 py-2">
                      <dl className="grid grid-cols-[8rem_1fr] gap-x-2 gap-y-0.5">
                        {(
                          [
                            ['node', r.node],
                            ['client', r.client_ip],
                            ['user agent', r.user_agent],
                            ['user', r.user_id || '—'],
                            ['role', r.role || '—'],
                            ['bytes', String(r.bytes)],
                          ] as const
                        ).map(([k, v]) => (
                          <div key={k} className="contents">
                            <dt className="text-muted-foreground">{k}</dt>
                            <dd className="break-all">{v}</dd>
                          </div>
                        ))}
                      </dl>
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
        </LogTable>
        <OlderLines pages={logs} label="Older requests" />
      </div>
    </div>
  )
}

function FunctionLogs() {
  const [f, setF] = useState({ function: '', request_id: '', level: '' })
  const logs = useLogPages<FunctionRow>('/api/logs/functions', f, true)
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value })
  const rows = logs.data?.pages.flat() ?? []
  return (
    <div className="flex min-h-0 flex-1 flex-col gap-2 p-4">
      <div className="flex flex-wrap items-center gap-2">
        <Input className="w-48" placeholder="function" aria-label="Function" value={f.function} onChange={set('function')} />
        <Select aria-label="Level" className="w-32" value={f.level} onChange={set('level')}>
          {['', 'debug', 'info', 'warn', 'error'].map((l) => (
            <option key={l} value={l}>
              {l || 'any level'}
            </option>
          ))}
        </Select>
        <Input className="w-72" placeholder="request id" aria-label="Request id" value={f.request_id} onChange={set('request_id')} />
      </div>
      <ErrorText error={logs.error} />
      <div className="grid-scroll flex-1 rounded-md border border-border">
        <LogTable label="Function log" columns={['Time', 'Function', 'Level', 'Message', 'Request id']} rows={logs.data && rows.length} empty="No function log matches.">
            {rows.map((r) => (
              <tr key={r.id} className="border-t border-border">
                <td className="whitespace-nowrap px-2 py-1">{time(r.at)}</td>
                <td className="px-2 py-1">
                  {r.function} <span className="text-muted-foreground">{r.version}</span>
                </td>
                <td className="px-2 py-1">
                  <Badge tone={r.level === 'error' ? 'bad' : r.level === 'warn' ? 'warn' : 'muted'}>{r.level}</Badge>
                </td>
                <td className="max-w-xl whitespace-pre-wrap break-all px-2 py-1">
                  {r.kind === 'request' ? `${r.method} ${r.path} → ${r.status} in ${r.duration_ms?.toFixed(1)} ms${r.message ? ': ' + r.message : ''}` : r.message}
                </td>
                <td className="whitespace-nowrap px-2 py-1">{r.request_id}</td>
              </tr>
            ))}
        </LogTable>
        <OlderLines pages={logs} label="Older lines" />
      </div>
    </div>
  )
}
