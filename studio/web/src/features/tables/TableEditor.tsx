import { useMemo, useState } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { ShieldCheck, ShieldOff } from 'lucide-react'
import { api } from '@/lib/api'
import type { PgTable, Schema } from '@/lib/types'
import { cn, formatCount } from '@/lib/utils'
import { Input, Select } from '@/components/ui/input'
import { ErrorText, Tabs } from '@/components/ui/misc'
import { DataTab } from './DataTab'
import { PoliciesTab } from './PoliciesTab'
import { StructureTab } from './StructureTab'

type Tab = 'data' | 'structure' | 'policies'

/** TableEditor lists the schemas' tables and shows one: its rows, structure and policies. */
export default function TableEditor() {
  const { schema = '', table = '' } = useParams()
  const navigate = useNavigate()
  const [chosenSchema, setChosenSchema] = useState('public')
  const current = schema || chosenSchema
  const [search, setSearch] = useState('')
  const [tab, setTab] = useState<Tab>('data')
  const schemas = useQuery({ queryKey: ['pg', 'schemas'], queryFn: () => api<Schema[]>('/pg/schemas') })
  const tables = useQuery({
    queryKey: ['pg', 'tables', current],
    queryFn: () => api<PgTable[]>(`/pg/tables?included_schemas=${encodeURIComponent(current)}`),
  })
  const shown = useMemo(() => (tables.data ?? []).filter((t) => t.name.toLowerCase().includes(search.toLowerCase())), [tables.data, search])
  const selected = tables.data?.find((t) => t.name === table)

  return (
    // On a phone the list of tables and the chosen table take the screen in
    // turn; from md up they sit side by side.
    <div className="flex min-h-0 flex-1">
      <div className={cn('w-full shrink-0 flex-col gap-2 border-border p-3 md:flex md:w-64 md:border-r', table ? 'hidden' : 'flex')}>
        <Select
          aria-label="Schema"
          value={current}
          onChange={(e) => {
            setChosenSchema(e.target.value)
            navigate('/tables')
          }}
        >
          {(schemas.data ?? [{ id: 0, name: current, owner: '' }]).map((s) => (
            <option key={s.id} value={s.name}>
              {s.name}
            </option>
          ))}
        </Select>
        <Input placeholder="Search tables" aria-label="Search tables" value={search} onChange={(e) => setSearch(e.target.value)} />
        <ErrorText error={tables.error} />
        <ul className="grid-scroll -mx-1 flex-1" aria-label="Tables">
          {shown.map((t) => (
            <li key={t.id}>
              <Link
                to={`/tables/${encodeURIComponent(t.schema)}/${encodeURIComponent(t.name)}`}
                className={cn('flex items-center justify-between gap-2 rounded px-2 py-1', t.name === table && t.schema === schema ? 'bg-accent' : 'hover:bg-accent/60')}
              >
                <span className="flex min-w-0 items-center gap-1.5">
                  {t.rls_enabled ? <ShieldCheck className="size-3.5 shrink-0 text-primary" aria-label="RLS on" /> : <ShieldOff className="size-3.5 shrink-0 text-warning" aria-label="RLS off" />}
                  <span className="truncate">{t.name}</span>
                </span>
                <span className="shrink-0 text-[11px] text-muted-foreground" title="estimated rows">
                  {formatCount(t.live_rows_estimate)}
                </span>
              </Link>
            </li>
          ))}
          {tables.data && shown.length === 0 && <li className="px-2 text-xs text-muted-foreground">No tables.</li>}
        </ul>
      </div>
      <div className={cn('min-w-0 flex-1 flex-col md:flex', table ? 'flex' : 'hidden')}>
        {!table ? (
          <div className="p-6 text-muted-foreground">Choose a table.</div>
        ) : (
          <>
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1 px-4 pt-3">
              <Link to="/tables" className="text-sm text-muted-foreground hover:text-foreground md:hidden">
                ← Tables
              </Link>
              <h1 className="text-base font-semibold">
                <span className="text-muted-foreground">{schema}.</span>
                {table}
              </h1>
              {selected && (
                <span className={cn('text-xs', selected.rls_enabled ? 'text-primary' : 'text-warning')}>
                  {selected.rls_enabled ? 'RLS enabled' : 'RLS disabled: every role with a grant sees every row'}
                </span>
              )}
            </div>
            <div className="px-4 pt-2">
              <Tabs
                value={tab}
                onChange={setTab}
                items={[
                  { value: 'data', label: 'Data' },
                  { value: 'structure', label: 'Structure' },
                  { value: 'policies', label: 'Policies' },
                ]}
              />
            </div>
            {/* The data tab stays mounted: its filters, page and "view as" survive a look at the policies. */}
            <div className={tab === 'data' ? 'flex min-h-0 flex-1 flex-col' : 'hidden'}>
              <DataTab key={`${schema}.${table}`} schema={schema} table={table} tableId={selected?.id} />
            </div>
            {tab === 'structure' && selected && <StructureTab tableId={selected.id} />}
            {tab === 'policies' && selected && <PoliciesTab table={selected} />}
          </>
        )}
      </div>
    </div>
  )
}
