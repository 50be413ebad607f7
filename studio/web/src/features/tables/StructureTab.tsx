import { useQuery } from '@tanstack/react-query'
import { api } from '@/lib/api'
import type { Index, PgColumn, Trigger } from '@/lib/types'
import { Badge, ErrorText } from '@/components/ui/misc'

/** StructureTab lists a table's columns, indexes and triggers. */
export function StructureTab({ tableId }: { tableId: number }) {
  const columns = useQuery({ queryKey: ['pg', 'columns', tableId], queryFn: () => api<PgColumn[]>(`/pg/columns?table_id=${tableId}`) })
  const indexes = useQuery({ queryKey: ['pg', 'indexes', tableId], queryFn: () => api<Index[]>(`/pg/indexes?table_id=${tableId}`) })
  const triggers = useQuery({ queryKey: ['pg', 'triggers', tableId], queryFn: () => api<Trigger[]>(`/pg/triggers?table_id=${tableId}`) })
  const th = 'border-b border-border px-2 py-1 text-left font-medium text-muted-foreground'
  const td = 'border-b border-border px-2 py-1 align-top'
  return (
    <div className="grid-scroll flex flex-1 flex-col gap-5 p-4 text-xs">
      <section>
        <h2 className="mb-1 text-sm font-semibold">Columns</h2>
        <ErrorText error={columns.error} />
        <table className="w-full border-collapse">
          <thead>
            <tr>
              {['name', 'type', 'nullable', 'default', ''].map((h) => (
                <th key={h} className={th}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {(columns.data ?? []).map((c) => (
              <tr key={c.name}>
                <td className={`${td} font-mono`}>{c.name}</td>
                <td className={`${td} font-mono`}>{c.data_type === 'USER-DEFINED' || c.data_type === 'ARRAY' ? c.format : c.data_type}</td>
                <td className={td}>{c.is_nullable ? 'yes' : 'no'}</td>
                <td className={`${td} font-mono`}>{c.default_value ?? ''}</td>
                <td className={td}>
                  {c.is_identity && <Badge>identity</Badge>} {c.is_generated && <Badge>generated</Badge>} {c.is_unique && <Badge>unique</Badge>}{' '}
                  {c.enums.length > 0 && <span className="text-muted-foreground">{c.enums.join(' | ')}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section>
        <h2 className="mb-1 text-sm font-semibold">Indexes</h2>
        <ErrorText error={indexes.error} />
        <ul className="flex flex-col gap-1">
          {(indexes.data ?? []).map((i) => (
            <li key={i.id} className="font-mono">
              {i.is_primary && <Badge className="mr-1">primary</Badge>}
              {i.index_definition}
            </li>
          ))}
          {indexes.data?.length === 0 && <li className="text-muted-foreground">No indexes.</li>}
        </ul>
      </section>
      <section>
        <h2 className="mb-1 text-sm font-semibold">Triggers</h2>
        <ErrorText error={triggers.error} />
        <ul className="flex flex-col gap-1">
          {(triggers.data ?? []).map((t) => (
            <li key={t.id}>
              <span className="font-mono">{t.name}</span>{' '}
              <span className="text-muted-foreground">
                {t.activation} {t.events.join(' OR ')} FOR EACH {t.orientation} → {t.function_schema}.{t.function_name}()
                {t.enabled_mode === 'DISABLED' && ' (disabled)'}
              </span>
            </li>
          ))}
          {triggers.data?.length === 0 && <li className="text-muted-foreground">No triggers.</li>}
        </ul>
      </section>
    </div>
  )
}
