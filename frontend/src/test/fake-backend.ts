import { createClient } from '@supabase/supabase-js'
import type { Database } from '@/lib/database.types'
import type { Client } from '@/lib/supabase'

// A stand-in for the API at the fetch boundary, speaking PostgREST's and the
// functions gateway's wire: tables held in memory and read with PostgREST's
// query syntax (eq/neq/gt/gte/lt/lte/is/in filters, select with embedded
// child tables, order, limit, exact counts in Content-Range), RPCs as POST
// /rest/v1/rpc/<name>, errors as
// PostgREST's {code, details, hint, message} bodies, and storage uploads
// (POST /storage/v1/object/<bucket>/<name>, kept in `objects`). The app's real
// supabase-js client runs on top of it, so a test sees every request the
// client really sends.

/** Row is one table row. */
export type Row = Record<string, unknown>

/** Answer is a handler's response when it needs more than a 200 JSON body. */
export class Answer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/** pgError answers a PostgreSQL error the way PostgREST does. */
export const pgError = (status: number, code: string, message: string) => new Answer(status, { code, details: null, hint: null, message })

/** Sent is one request as the backend received it. */
export interface Sent {
  method: string
  /** target is the table, `rpc/<name>` or `functions/<name>`. */
  target: string
  query: URLSearchParams
  prefer: string
  body: unknown
}

type Handler = (body: Row, backend: FakeBackend) => unknown

/** BackendSetup is the state a test starts from. */
export interface BackendSetup {
  tables?: Record<string, Row[]>
  rpc?: Record<string, Handler>
  functions?: Record<string, Handler>
  /** auth answers /auth/v1/<path> (e.g. `logout`). */
  auth?: Record<string, Handler>
  /** onInsert lets a table rewrite rows as its triggers would, or refuse them with an Answer. */
  onInsert?: Record<string, (row: Row) => Row | Answer>
  /** onUpload lets storage refuse an upload (an Answer in storage's error shape). */
  onUpload?: (o: StoredObject) => Answer | void
  /** onSign lets storage refuse to sign an object (as its policy does); every object is signed otherwise. */
  onSign?: (bucket: string, name: string) => Answer | void
}

/** StoredObject is an object uploaded to the fake storage. */
export interface StoredObject {
  bucket: string
  name: string
  type: string
  size: number
}

const URL_BASE = 'http://backend.test'

function compare(op: string, have: unknown, want: string): boolean {
  if (op === 'in') return want.replace(/^\(|\)$/g, '').split(',').map((v) => v.replace(/^"|"$/g, '')).includes(String(have))
  if (op === 'is') return want === 'null' ? have === null || have === undefined : String(have) === want
  if (have === null || have === undefined) return false
  const h = typeof have === 'number' ? have : String(have)
  const w = typeof have === 'number' ? Number(want) : want
  switch (op) {
    case 'eq':
      return h === w
    case 'neq':
      return h !== w
    case 'gt':
      return h > w
    case 'gte':
      return h >= w
    case 'lt':
      return h < w
    case 'lte':
      return h <= w
  }
  throw new Error(`fake backend: operator ${op} is not implemented`)
}

const RESERVED = new Set(['select', 'order', 'limit', 'offset', 'columns'])

/** FakeBackend is the in-memory API one test talks to. */
export class FakeBackend {
  readonly sent: Sent[] = []
  readonly tables: Record<string, Row[]>
  readonly objects: StoredObject[] = []
  private readonly setup: BackendSetup
  private nextId = 1
  private static clients = 0

  constructor(setup: BackendSetup = {}) {
    this.setup = setup
    this.tables = Object.fromEntries(Object.entries(setup.tables ?? {}).map(([k, rows]) => [k, rows.map((r) => ({ ...r }))]))
  }

  /** client is a real supabase-js client whose every request reaches this backend. */
  client(): Client {
    return createClient<Database>(URL_BASE, 'anon-key', {
      // A storage key of its own keeps supabase-js from warning about several clients in one page.
      auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, storageKey: `fake-backend-${FakeBackend.clients++}` },
      global: { fetch: this.fetch },
    })
  }

  /** calls lists the requests sent to one target (a table, `rpc/<name>` or `functions/<name>`). */
  calls(target: string, method?: string): Sent[] {
    return this.sent.filter((s) => s.target === target && (!method || s.method === method))
  }

  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init)
    const url = new URL(req.url)
    const sign = req.method === 'POST' ? url.pathname.match(/^\/storage\/v1\/object\/sign\/([^/]+)\/(.+)$/) : null
    if (sign) return this.sign(sign[1], decodeURIComponent(sign[2]))
    const signMany = req.method === 'POST' ? url.pathname.match(/^\/storage\/v1\/object\/sign\/([^/]+)$/) : null
    if (signMany) return this.signMany(signMany[1], (await req.json()).paths ?? [])
    const upload = req.method === 'POST' ? url.pathname.match(/^\/storage\/v1\/object\/([^/]+)\/(.+)$/) : null
    if (upload) return this.upload(req, upload[1], decodeURIComponent(upload[2]))
    const text = req.method === 'GET' || req.method === 'HEAD' ? '' : await req.text()
    const body = text ? JSON.parse(text) : undefined
    const prefer = req.headers.get('Prefer') ?? ''
    const rest = url.pathname.match(/^\/rest\/v1\/(.+)$/)
    const fn = url.pathname.match(/^\/functions\/v1\/(.+)$/)
    const auth = url.pathname.match(/^\/auth\/v1\/(.+)$/)
    const target = rest ? rest[1] : fn ? `functions/${fn[1]}` : auth ? `auth/${auth[1]}` : url.pathname
    this.sent.push({ method: req.method, target, query: url.searchParams, prefer, body })
    if (fn) return this.function(fn[1], body ?? {})
    if (auth) return this.auth(auth[1], body ?? {})
    if (!rest) return json(404, { message: `no route ${url.pathname}` })
    if (target.startsWith('rpc/')) return this.rpc(target.slice(4), body ?? {})
    const res = this.table(req.method, target, url.searchParams, prefer, body)
    return req.headers.get('Accept')?.includes('vnd.pgrst.object') ? singleObject(res) : res
  }

  /** upload stores an object as storage's upload does (a multipart file or a raw body) and answers {Id, Key}. */
  private async upload(req: Request, bucket: string, name: string): Promise<Response> {
    let type = req.headers.get('Content-Type') ?? ''
    let size = 0
    if (type.startsWith('multipart/form-data')) {
      const file = [...(await req.formData()).values()].find((v): v is File => typeof v !== 'string')
      type = file?.type ?? ''
      size = file?.size ?? 0
    } else {
      size = (await req.arrayBuffer()).byteLength
    }
    const o = { bucket, name, type, size }
    this.sent.push({ method: 'POST', target: `storage/${bucket}`, query: new URLSearchParams(), prefer: '', body: o })
    const refused = this.setup.onUpload?.(o)
    if (refused) return this.respond(refused)
    this.objects.push(o)
    return json(200, { Id: `object-${this.nextId++}`, Key: `${bucket}/${name}` })
  }

  /** sign answers storage's POST /object/sign/<bucket>/<name> with {signedURL}, as storage signs a readable object. */
  private sign(bucket: string, name: string): Response {
    this.sent.push({ method: 'POST', target: `storage/sign/${bucket}`, query: new URLSearchParams(), prefer: '', body: { name } })
    const refused = this.setup.onSign?.(bucket, name)
    if (refused) return this.respond(refused)
    return json(200, { signedURL: `/object/sign/${bucket}/${name}?token=signed-${name}` })
  }

  /** signMany answers storage's POST /object/sign/<bucket> {paths}: one item per path, an error for those it may not sign. */
  private signMany(bucket: string, paths: string[]): Response {
    this.sent.push({ method: 'POST', target: `storage/sign-many/${bucket}`, query: new URLSearchParams(), prefer: '', body: { paths } })
    return json(
      200,
      paths.map((path) =>
        this.setup.onSign?.(bucket, path)
          ? { error: 'Either the object does not exist or you do not have access to it', path, signedURL: null }
          : { error: null, path, signedURL: `/object/sign/${bucket}/${path}?token=signed-${path}` },
      ),
    )
  }

  private respond(result: unknown): Response {
    if (result instanceof Answer) return json(result.status, result.body)
    return json(200, result ?? null)
  }

  private rpc(name: string, args: Row): Response {
    const h = this.setup.rpc?.[name]
    if (!h) return json(404, { code: 'PGRST202', details: null, hint: null, message: `Could not find the function public.${name} in the schema cache` })
    return this.respond(h(args, this))
  }

  private auth(path: string, body: Row): Response {
    const h = this.setup.auth?.[path]
    if (!h) return json(404, { code: 404, error_code: 'not_found', msg: `no ${path}` })
    return this.respond(h(body, this))
  }

  private function(name: string, body: Row): Response {
    const h = this.setup.functions?.[name]
    if (!h) return json(404, { code: 'NOT_FOUND', message: 'Requested function was not found' })
    return this.respond(h(body, this))
  }

  /** rows returns a table's rows matching PostgREST filters. */
  rows(table: string, query: URLSearchParams): Row[] {
    let rows = this.tables[table] ?? []
    for (const [col, expr] of query) {
      if (RESERVED.has(col)) continue
      const dot = expr.indexOf('.')
      const op = expr.slice(0, dot)
      const want = expr.slice(dot + 1)
      rows = rows.filter((r) => compare(op, r[col], want))
    }
    return rows
  }

  /**
   * project keeps the selected columns of a row. An embedded child table,
   * `child(cols)`, is the child's rows whose `<parent>_id` (the parent table's
   * name without its plural s) is this row's id: the foreign key PostgREST
   * would follow for the schema's tables.
   */
  private project(table: string, row: Row, select: string): Row {
    const out: Row = {}
    for (const item of splitTopLevel(select)) {
      const embed = item.match(/^(\w+)\((.*)\)$/)
      if (!embed) {
        out[item] = row[item] ?? null
        continue
      }
      const [, child, cols] = embed
      const fk = `${table.replace(/s$/, '')}_id`
      out[child] = (this.tables[child] ?? []).filter((c) => c[fk] === row.id).map((c) => (cols === '*' ? { ...c } : this.project(child, c, cols)))
    }
    return out
  }

  private table(method: string, table: string, query: URLSearchParams, prefer: string, body: unknown): Response {
    if (!(table in this.tables)) {
      return json(404, { code: 'PGRST205', details: null, hint: null, message: `Could not find the table 'public.${table}' in the schema cache` })
    }
    const representation = prefer.includes('return=representation')
    if (method === 'POST') {
      const kept: Row[] = []
      for (const input of Array.isArray(body) ? body : [body]) {
        const row = { id: `row-${this.nextId++}`, created_at: new Date().toISOString(), ...(input as Row) }
        const hook = this.setup.onInsert?.[table]
        const out = hook ? hook(row) : row
        if (out instanceof Answer) return json(out.status, out.body)
        kept.push(out)
      }
      this.tables[table].push(...kept)
      return representation ? json(201, kept) : new Response(null, { status: 201 })
    }
    const matched = this.rows(table, query)
    if (method === 'PATCH') {
      for (const r of matched) Object.assign(r, body)
      return representation ? json(200, matched) : new Response(null, { status: 204 })
    }
    if (method === 'DELETE') {
      this.tables[table] = this.tables[table].filter((r) => !matched.includes(r))
      return representation ? json(200, matched) : new Response(null, { status: 204 })
    }
    let rows = [...matched]
    const order = query.get('order')
    if (order) {
      const [col, dir] = order.split('.')
      rows.sort((a, b) => (String(a[col]) < String(b[col]) ? -1 : String(a[col]) > String(b[col]) ? 1 : 0) * (dir === 'desc' ? -1 : 1))
    }
    const limit = query.get('limit')
    if (limit) rows = rows.slice(0, Number(limit))
    const select = query.get('select')
    if (select && select !== '*') rows = rows.map((r) => this.project(table, r, select))
    const headers: Record<string, string> = {}
    if (prefer.includes('count=exact')) headers['Content-Range'] = rows.length ? `0-${rows.length - 1}/${matched.length}` : `*/${matched.length}`
    if (method === 'HEAD') return new Response(null, { status: 200, headers })
    return json(200, rows, headers)
  }
}

/**
 * singleObject answers a request for one object (supabase-js's .single()) as
 * PostgREST does: the one row as an object, or 406 PGRST116 for none or many.
 */
async function singleObject(res: Response): Promise<Response> {
  if (!res.ok || res.status === 204) return res
  const rows = await res.json()
  if (!Array.isArray(rows)) return json(res.status, rows)
  if (rows.length !== 1) {
    return json(406, { code: 'PGRST116', details: `The result contains ${rows.length} rows`, hint: null, message: 'Cannot coerce the result to a single JSON object' })
  }
  return json(res.status, rows[0])
}

/** splitTopLevel splits a select list on the commas outside parentheses. */
function splitTopLevel(select: string): string[] {
  const items: string[] = []
  let depth = 0
  let start = 0
  for (let i = 0; i < select.length; i++) {
    if (select[i] === '(') depth++
    else if (select[i] === ')') depth--
    else if (select[i] === ',' && depth === 0) {
      items.push(select.slice(start, i).trim())
      start = i + 1
    }
  }
  items.push(select.slice(start).trim())
  return items.filter(Boolean)
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  if (status === 204) return new Response(null, { status, headers })
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } })
}
