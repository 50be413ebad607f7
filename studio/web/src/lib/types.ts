// The shapes of the endpoints the app reads (postgres-meta's for /pg/...).

export type Schema = { id: number; name: string; owner: string }

export type Relationship = {
  id: number
  constraint_name: string
  source_schema: string
  source_table_name: string
  source_column_name: string
  target_table_schema: string
  target_table_name: string
  target_column_name: string
}

export type PgTable = {
  id: number
  schema: string
  name: string
  rls_enabled: boolean
  rls_forced: boolean
  bytes: number
  size: string
  live_rows_estimate: number
  comment: string | null
  primary_keys: { name: string }[]
  relationships: Relationship[]
}

export type PgColumn = {
  table_id: number
  name: string
  ordinal_position: number
  data_type: string
  format: string
  default_value: string | null
  is_nullable: boolean
  is_identity: boolean
  is_generated: boolean
  is_unique: boolean
  enums: string[]
  comment: string | null
}

export type Policy = {
  id: number
  schema: string
  table: string
  table_id: number
  name: string
  action: 'PERMISSIVE' | 'RESTRICTIVE'
  roles: string[]
  command: 'ALL' | 'SELECT' | 'INSERT' | 'UPDATE' | 'DELETE'
  definition: string | null
  check: string | null
}

export type Index = { id: number; table_id: number; is_unique: boolean; is_primary: boolean; index_definition: string; access_method: string }

export type Trigger = {
  id: number
  table_id: number
  name: string
  enabled_mode: string
  activation: string
  orientation: string
  events: string[]
  function_schema: string
  function_name: string
  condition: string | null
}

/** Column is a column as the rows endpoint describes it. */
export type Column = {
  name: string
  type: string
  category: string
  nullable: boolean
  has_default: boolean
  identity: boolean
  generated: boolean
  pk: boolean
  enums?: string[]
}

export type Row = Record<string, unknown> & { __studio_truncated?: string[] }

export type Page = {
  table: { id: number; schema: string; name: string; kind: string; columns: Column[]; primary_key: string[] | null }
  rows: Row[]
  count: number
  count_exact: boolean
  offset: number
  limit: number
  as: { role: string; user_id?: string; email?: string }
  notice?: string
}
