import { Link, useParams } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { api } from '@/lib/api'
import type { PgColumn, PgTable } from '@/lib/types'
import { cn } from '@/lib/utils'
import { Card, ErrorText } from '@/components/ui/misc'
import { snippets } from './snippets'
import { ApiKeys } from './ApiKeys'
import { CopyButton, Secret } from './Secret'
import { SIDE_START, SPLIT, SPLIT_MAIN } from '@/lib/layout'

type Project = { url: string; anon_key: string; publishable_key: string; jwks_url: string; service_role_key_note: string }

/** ApiDocs shows the project URL and the keys a browser may hold, and per-table supabase-js calls. */
export default function ApiDocs() {
  const { table = '' } = useParams()
  const project = useQuery({ queryKey: ['project'], queryFn: () => api<Project>('/api/project') })
  const tables = useQuery({ queryKey: ['pg', 'tables', 'public'], queryFn: () => api<PgTable[]>('/pg/tables?included_schemas=public') })
  const current = tables.data?.find((t) => t.name === table)
  const columns = useQuery({
    queryKey: ['pg', 'columns', current?.id],
    enabled: !!current,
    queryFn: () => api<PgColumn[]>(`/pg/columns?table_id=${current!.id}`),
  })
  const p = project.data
  return (
    <div className={SPLIT}>
      <ul className={cn(SIDE_START, 'grid-scroll max-h-60 p-3 text-sm md:max-h-none md:w-56')} aria-label="API tables">
        <li>
          <Link to="/docs" className={cn('block rounded px-2 py-1', !table ? 'bg-accent' : 'hover:bg-accent/60')}>
            Project and keys
          </Link>
        </li>
        <li className="mt-3 px-2 text-xs uppercase tracking-wide text-muted-foreground">Tables</li>
        {(tables.data ?? []).map((t) => (
          <li key={t.id}>
            <Link to={`/docs/${encodeURIComponent(t.name)}`} className={cn('block truncate rounded px-2 py-1', t.name === table ? 'bg-accent' : 'hover:bg-accent/60')}>
              {t.name}
            </Link>
          </li>
        ))}
      </ul>
      <div className={cn(SPLIT_MAIN, 'grid-scroll gap-4 p-6')}>
        <ErrorText error={project.error ?? tables.error ?? columns.error} />
        {!table && p && (
          <>
            <h1 className="text-lg font-semibold">Project API</h1>
            <Card className="flex flex-col gap-3">
              <Secret label="Project URL" value={p.url} />
              <Secret label="anon key" value={p.anon_key} />
              <Secret label="Publishable key" value={p.publishable_key} />
              <p className="text-xs text-muted-foreground">{p.service_role_key_note}</p>
            </Card>
            <ApiKeys />
            <Card>
              <div className="mb-2 text-sm font-medium">Connect with supabase-js</div>
              <pre className="overflow-auto rounded bg-panel p-3 font-mono text-xs">{`import { createClient } from '@supabase/supabase-js'\n\nconst supabase = createClient('${p.url}', '${p.publishable_key || p.anon_key}')`}</pre>
            </Card>
          </>
        )}
        {table && current && columns.data && (
          <>
            <h1 className="text-lg font-semibold">{table}</h1>
            {current.comment && <p className="text-muted-foreground">{current.comment}</p>}
            {!current.rls_enabled && <p className="text-xs text-warning">Row-level security is off: every role with a grant reads and writes every row.</p>}
            <Card>
              <table className="w-full text-xs">
                <tbody>
                  {columns.data.map((c) => (
                    <tr key={c.name} className="border-b border-border last:border-0">
                      <td className="py-1 font-mono">{c.name}</td>
                      <td className="py-1 font-mono text-muted-foreground">{c.data_type === 'USER-DEFINED' ? c.format : c.data_type}</td>
                      <td className="py-1 text-muted-foreground">{c.is_nullable || c.default_value !== null || c.is_identity || c.is_generated ? 'optional on insert' : 'required'}</td>
                      <td className="py-1 text-muted-foreground">{c.comment}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Card>
            {snippets(current.schema, current.name, columns.data, current.primary_keys.map((k) => k.name)).map((s) => (
              <Card key={s.title} className="flex flex-col gap-2">
                <div className="flex items-center justify-between">
                  <span className="text-sm font-medium">{s.title}</span>
                  <CopyButton text={s.code} label={s.title} />
                </div>
                <pre className="overflow-auto rounded bg-panel p-3 font-mono text-xs" data-testid="js-snippet">
                  {s.code}
                </pre>
              </Card>
            ))}
          </>
        )}
      </div>
    </div>
  )
}
