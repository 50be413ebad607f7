import { describe, expect, it } from 'vitest'
import { filterValue, pageQuery } from './query'
import { kind, toValue } from './RowEditor'
import { snippets } from '../api/snippets'
import type { Column, PgColumn } from '@/lib/types'

describe('filterValue', () => {
  it('wraps a contains search in stars and quotes list items that need it', () => {
    expect(filterValue({ column: 'title', op: 'ilike', value: 'rain' })).toBe('ilike.*rain*')
    expect(filterValue({ column: 'title', op: 'ilike', value: 'ra*n' })).toBe('ilike.ra*n')
    expect(filterValue({ column: 'id', op: 'in', value: '1, 2,a,b' })).toBe('in.(1,2,a,b)')
    expect(filterValue({ column: 't', op: 'in', value: 'x(1)' })).toBe('in.("x(1)")')
    expect(filterValue({ column: 'n', op: 'is', value: 'null', not: true })).toBe('not.is.null')
  })
})

describe('pageQuery', () => {
  it('renders filters, order, paging and who reads', () => {
    const q = new URLSearchParams(
      pageQuery({ filters: [{ column: 'plays', op: 'gte', value: '10' }], sort: { column: 'plays', desc: true }, offset: 100, limit: 100, as: { role: 'user', userId: 'u1', email: 'a@b' } }),
    )
    expect(q.get('plays')).toBe('gte.10')
    expect(q.get('order')).toBe('plays.desc')
    expect(q.get('offset')).toBe('100')
    expect(q.get('user')).toBe('u1')
    expect(q.get('role')).toBeNull()
    expect(new URLSearchParams(pageQuery({ filters: [], sort: null, offset: 0, limit: 100, as: { role: 'anon' } })).get('role')).toBe('anon')
  })
})

const col = (c: Partial<Column>): Column => ({ name: 'c', type: 'text', category: 'S', nullable: true, has_default: false, identity: false, generated: false, pk: false, ...c })

describe('row values', () => {
  it('picks an input by type', () => {
    expect(kind(col({ type: 'boolean', category: 'B' }))).toBe('bool')
    expect(kind(col({ type: 'jsonb', category: 'U' }))).toBe('json')
    expect(kind(col({ type: 'text[]', category: 'A' }))).toBe('array')
    expect(kind(col({ type: 'mood', category: 'E', enums: ['a'] }))).toBe('enum')
    expect(kind(col({ type: 'timestamp with time zone', category: 'D' }))).toBe('timestamp')
    expect(kind(col({ type: 'numeric', category: 'N' }))).toBe('number')
  })
  it('sends JSON for json and lists, text otherwise, and refuses bad JSON', () => {
    expect(toValue(col({ type: 'jsonb' }), { text: '{"a":1}', isNull: false, dirty: true })).toEqual({ a: 1 })
    expect(toValue(col({ type: 'text[]', category: 'A' }), { text: '["x","y"]', isNull: false, dirty: true })).toEqual(['x', 'y'])
    expect(toValue(col({ type: 'text[]', category: 'A' }), { text: '{x,y}', isNull: false, dirty: true })).toBe('{x,y}')
    expect(toValue(col({ type: 'boolean', category: 'B' }), { text: 'false', isNull: false, dirty: true })).toBe(false)
    expect(toValue(col({}), { text: 'x', isNull: true, dirty: true })).toBeNull()
    expect(() => toValue(col({ type: 'json' }), { text: '{bad', isNull: false, dirty: true })).toThrow('not valid JSON')
  })
})

describe('supabase-js snippets', () => {
  it('are built from the columns', () => {
    const pgcol = (name: string, format: string, extra: Partial<PgColumn> = {}): PgColumn => ({
      table_id: 1, name, ordinal_position: 1, data_type: format, format, default_value: null, is_nullable: true, is_identity: false, is_generated: false, is_unique: false, enums: [], comment: null, ...extra,
    })
    const s = snippets('public', 'tracks', [pgcol('id', 'uuid', { default_value: 'gen_random_uuid()' }), pgcol('title', 'text'), pgcol('plays', 'int4')], ['id'])
    const byTitle = Object.fromEntries(s.map((x) => [x.title, x.code]))
    expect(byTitle['Read all rows']).toContain("supabase.from('tracks')")
    expect(byTitle['Insert a row']).toContain("title: '…', plays: 0")
    expect(byTitle['Insert a row']).not.toContain('id:')
    expect(byTitle['Delete matching rows']).toContain(".eq('id', '00000000-0000-0000-0000-000000000000')")
    expect(snippets('private', 'x', [pgcol('a', 'text')], [])[0].code).toContain("supabase.schema('private').from('x')")
  })
})
