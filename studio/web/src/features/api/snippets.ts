// supabase-js snippets generated from a table's columns, as Supabase's API
// page shows them.
import type { PgColumn } from '@/lib/types'

/** sampleValue is a placeholder literal for a column in JavaScript. */
export function sampleValue(c: PgColumn): string {
  if (c.enums.length) return `'${c.enums[0]}'`
  switch (c.format) {
    case 'bool':
      return 'true'
    case 'int2':
    case 'int4':
    case 'int8':
    case 'float4':
    case 'float8':
    case 'numeric':
      return '0'
    case 'json':
    case 'jsonb':
      return '{}'
    case 'uuid':
      return "'00000000-0000-0000-0000-000000000000'"
    case 'timestamptz':
    case 'timestamp':
      return 'new Date().toISOString()'
  }
  if (c.data_type === 'ARRAY') return '[]'
  return "'…'"
}

/** snippets are the supabase-js calls for one table. */
export function snippets(schema: string, table: string, columns: PgColumn[], pk: string[]): { title: string; code: string }[] {
  const from = schema === 'public' ? `supabase.from('${table}')` : `supabase.schema('${schema}').from('${table}')`
  const writable = columns.filter((c) => !c.is_generated && !c.is_identity && c.default_value === null)
  const key = pk[0] ?? columns[0]?.name ?? 'id'
  const keyCol = columns.find((c) => c.name === key)
  const some = columns.slice(0, 3).map((c) => c.name).join(', ')
  const filterCol = columns.find((c) => !pk.includes(c.name)) ?? columns[0]
  const obj = (cs: PgColumn[]) => `{ ${cs.map((c) => `${c.name}: ${sampleValue(c)}`).join(', ')} }`
  return [
    { title: 'Read all rows', code: `const { data, error } = await ${from}\n  .select('*')` },
    { title: 'Read some columns', code: `const { data, error } = await ${from}\n  .select('${some}')` },
    {
      title: 'Filter',
      code: `const { data, error } = await ${from}\n  .select('*')\n  .eq('${filterCol?.name ?? key}', ${filterCol ? sampleValue(filterCol) : "'…'"})\n  .range(0, 9)`,
    },
    { title: 'Insert a row', code: `const { data, error } = await ${from}\n  .insert([${obj(writable.slice(0, 4))}])\n  .select()` },
    {
      title: 'Update matching rows',
      code: `const { data, error } = await ${from}\n  .update(${obj(writable.slice(0, 1))})\n  .eq('${key}', ${keyCol ? sampleValue(keyCol) : "'…'"})\n  .select()`,
    },
    { title: 'Delete matching rows', code: `const { error } = await ${from}\n  .delete()\n  .eq('${key}', ${keyCol ? sampleValue(keyCol) : "'…'"})` },
    {
      title: 'Subscribe to changes',
      code: `const channel = supabase\n  .channel('${table}-changes')\n  .on('postgres_changes', { event: '*', schema: '${schema}', table: '${table}' }, (payload) => console.log(payload))\n  .subscribe()`,
    },
  ]
}
