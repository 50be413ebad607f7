package gentypes

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/rest"
)

// model is what the generator reads from the catalog: the relations,
// functions and relationships of the chosen schemas, and every type (any
// schema) for naming argument, result and attribute types.
type model struct {
	schemas       []string // the chosen schemas that exist
	relations     []*relation
	functions     []*function
	types         map[uint32]*pgType
	typeList      []*pgType // ordered by schema, name, oid
	relationships []relationship
}

// relation is a table (r, p, f), view (v) or materialized view (m).
type relation struct {
	oid          uint32
	schema, name string
	kind         string
	updatable    bool // views: UPDATE and DELETE possible
	columns      []column
}

func (r *relation) isTable() bool { return r.kind == "r" || r.kind == "p" || r.kind == "f" }

type column struct {
	name           string
	format         string // type name, the base type's for a domain
	nullable       bool
	identity       bool
	identityAlways bool
	hasDefault     bool
	updatable      bool
}

type pgType struct {
	oid          uint32
	name, schema string
	format       string // format_type: schema-qualified unless on the search path
	enums        []string
	attributes   []attribute
	relID        uint32 // pg_class oid of a composite or row type
}

type attribute struct {
	name string
	typ  uint32
}

type function struct {
	schema, name  string
	args          []arg // every argument, OUT and TABLE ones too
	argumentTypes string
	returnType    string
	returnOID     uint32
	returnRelID   uint32
	setOf         bool
	rows          float64 // planner row estimate of a set-returning function, 0 when none
}

type arg struct {
	mode       string // in, out, inout, variadic, table
	name       string
	typ        uint32
	hasDefault bool
}

func (a arg) isInput() bool { return a.mode == "in" || a.mode == "inout" || a.mode == "variadic" }

// relationship is a foreign key seen from the relation that holds it (a
// table, or a view exposing its columns) to the one it references.
type relationship struct {
	fk                    string
	schema, relation      string
	columns               []string
	oneToOne              bool
	refSchema, refRelName string
	refColumns            []string
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

const schemasSQL = `SELECT nspname FROM pg_namespace WHERE nspname = ANY($1)`

// Tables are listed when the reader could use them, as information_schema
// does; views and the rest always.
const relationsSQL = `
SELECT c.oid, n.nspname, c.relname, c.relkind::text,
  c.relkind = 'v' AND (pg_relation_is_updatable(c.oid, false) & 20) = 20
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p', 'f', 'v', 'm')
  AND (c.relkind NOT IN ('r', 'p') OR pg_has_role(c.relowner, 'USAGE')
    OR has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
    OR has_any_column_privilege(c.oid, 'SELECT, INSERT, UPDATE, REFERENCES'))
ORDER BY n.nspname, c.relname`

const columnsSQL = `
SELECT a.attrelid, a.attname, coalesce(bt.typname, t.typname),
  NOT (a.attnotnull OR (t.typtype = 'd' AND t.typnotnull)),
  a.attidentity::text, a.atthasdef,
  c.relkind IN ('r', 'p') OR (c.relkind IN ('v', 'f') AND pg_column_is_updatable(c.oid, a.attnum, false))
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_type bt ON t.typtype = 'd' AND bt.oid = t.typbasetype
WHERE n.nspname = ANY($1) AND c.relkind IN ('r', 'p', 'f', 'v', 'm')
  AND a.attnum > 0 AND NOT a.attisdropped
  AND (pg_has_role(c.relowner, 'USAGE') OR has_column_privilege(c.oid, a.attnum, 'SELECT, INSERT, UPDATE, REFERENCES'))
ORDER BY a.attrelid, a.attnum`

// typesSQL reads every type but the row types of sequences, indexes and
// foreign tables; composite types get their attributes in attnum order.
const typesSQL = `
SELECT t.oid, t.typname, n.nspname, format_type(t.oid, NULL),
  coalesce((SELECT array_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid), '{}'),
  coalesce((SELECT array_agg(a.attname ORDER BY a.attnum) FROM pg_attribute a
    WHERE a.attrelid = t.typrelid AND rc.relkind = 'c' AND a.attnum > 0 AND NOT a.attisdropped), '{}'),
  coalesce((SELECT array_agg(a.atttypid ORDER BY a.attnum) FROM pg_attribute a
    WHERE a.attrelid = t.typrelid AND rc.relkind = 'c' AND a.attnum > 0 AND NOT a.attisdropped), '{}'),
  t.typrelid
FROM pg_type t
JOIN pg_namespace n ON n.oid = t.typnamespace
LEFT JOIN pg_class rc ON rc.oid = t.typrelid
WHERE t.typrelid = 0 OR rc.relkind IN ('c', 'r', 'v', 'm', 'p')
ORDER BY n.nspname, t.typname, t.oid`

// functionsSQL lists plain functions other than trigger functions, with
// every argument (OUT and TABLE ones included) in declaration order.
const functionsSQL = `
SELECT n.nspname, p.proname,
  coalesce(p.proargmodes::text[], array_fill('i'::text, ARRAY[cardinality(coalesce(p.proallargtypes, p.proargtypes::oid[]))])),
  coalesce(p.proargnames, array_fill(''::text, ARRAY[cardinality(coalesce(p.proallargtypes, p.proargtypes::oid[]))])),
  coalesce(p.proallargtypes, p.proargtypes::oid[]),
  p.pronargs, p.pronargdefaults,
  pg_get_function_arguments(p.oid), pg_get_function_result(p.oid),
  p.prorettype, coalesce(rt.typrelid, 0), p.proretset,
  CASE WHEN p.proretset THEN p.prorows ELSE 0 END
FROM pg_proc p
JOIN pg_namespace n ON n.oid = p.pronamespace
LEFT JOIN pg_type rt ON rt.oid = p.prorettype
WHERE n.nspname = ANY($1) AND p.prokind = 'f'
  AND p.prorettype NOT IN ('trigger'::regtype, 'event_trigger'::regtype)
ORDER BY n.nspname, p.proname, p.oid`

// foreignKeysSQL lists the foreign keys held by tables of the chosen
// schemas. One-to-one: the key's columns, in key order, are exactly those
// of a primary key or unique constraint of the table, in column order.
const foreignKeysSQL = `
WITH fk AS (
  SELECT con.conname, n.nspname, c.relname, con.conrelid,
    array(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
      JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord) AS cols,
    fn.nspname AS fschema, fc.relname AS frel,
    array(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
      JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord) AS fcols
  FROM pg_constraint con
  JOIN pg_class c ON c.oid = con.conrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_class fc ON fc.oid = con.confrelid
  JOIN pg_namespace fn ON fn.oid = fc.relnamespace
  WHERE con.contype = 'f' AND con.conparentid = 0 AND n.nspname = ANY($1)
)
SELECT conname, nspname, relname, cols, fschema, frel, fcols,
  EXISTS (SELECT 1 FROM pg_constraint u WHERE u.conrelid = fk.conrelid AND u.contype IN ('p', 'u')
    AND array(SELECT a.attname FROM unnest(u.conkey) k(num)
      JOIN pg_attribute a ON a.attrelid = u.conrelid AND a.attnum = k.num ORDER BY a.attnum) = fk.cols)
FROM fk
ORDER BY conname, nspname, relname`

// load reads the model of schemas in one snapshot.
func load(ctx context.Context, q querier, schemas []string) (*model, error) {
	m := &model{types: map[uint32]*pgType{}}
	if err := each(ctx, q, schemasSQL, []any{schemas}, func(r pgx.Rows) error {
		var s string
		if err := r.Scan(&s); err != nil {
			return err
		}
		m.schemas = append(m.schemas, s)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read schemas: %w", err)
	}
	byOID := map[uint32]*relation{}
	if err := each(ctx, q, relationsSQL, []any{schemas}, func(r pgx.Rows) error {
		rel := &relation{}
		if err := r.Scan(&rel.oid, &rel.schema, &rel.name, &rel.kind, &rel.updatable); err != nil {
			return err
		}
		m.relations = append(m.relations, rel)
		byOID[rel.oid] = rel
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read relations: %w", err)
	}
	if err := each(ctx, q, columnsSQL, []any{schemas}, func(r pgx.Rows) error {
		var oid uint32
		var c column
		var identity string
		if err := r.Scan(&oid, &c.name, &c.format, &c.nullable, &identity, &c.hasDefault, &c.updatable); err != nil {
			return err
		}
		c.identity, c.identityAlways = identity != "", identity == "a"
		if rel := byOID[oid]; rel != nil {
			rel.columns = append(rel.columns, c)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read columns: %w", err)
	}
	if err := m.loadTypes(ctx, q); err != nil {
		return nil, err
	}
	if err := m.loadFunctions(ctx, q, schemas); err != nil {
		return nil, err
	}
	if err := m.loadRelationships(ctx, q, schemas); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *model) loadTypes(ctx context.Context, q querier) error {
	return wrap("read types", each(ctx, q, typesSQL, nil, func(r pgx.Rows) error {
		t := &pgType{}
		var names []string
		var oids []uint32
		if err := r.Scan(&t.oid, &t.name, &t.schema, &t.format, &t.enums, &names, &oids, &t.relID); err != nil {
			return err
		}
		for i, n := range names {
			t.attributes = append(t.attributes, attribute{n, oids[i]})
		}
		m.types[t.oid] = t
		m.typeList = append(m.typeList, t)
		return nil
	}))
}

func (m *model) loadFunctions(ctx context.Context, q querier, schemas []string) error {
	return wrap("read functions", each(ctx, q, functionsSQL, []any{schemas}, func(r pgx.Rows) error {
		f := &function{}
		var modes, names []string
		var oids []uint32
		var nargs, ndefaults int16
		if err := r.Scan(&f.schema, &f.name, &modes, &names, &oids, &nargs, &ndefaults,
			&f.argumentTypes, &f.returnType, &f.returnOID, &f.returnRelID, &f.setOf, &f.rows); err != nil {
			return err
		}
		// The last pronargdefaults input arguments have defaults.
		input := 0
		for i, mode := range modes {
			a := arg{mode: argMode(mode), typ: oids[i]}
			if i < len(names) {
				a.name = names[i]
			}
			if a.isInput() {
				a.hasDefault = input >= int(nargs-ndefaults)
				input++
			}
			f.args = append(f.args, a)
		}
		m.functions = append(m.functions, f)
		return nil
	}))
}

// argMode names a pg_proc.proargmodes letter.
func argMode(m string) string {
	switch m {
	case "i":
		return "in"
	case "o":
		return "out"
	case "b":
		return "inout"
	case "v":
		return "variadic"
	case "t":
		return "table"
	}
	return ""
}

// loadRelationships reads the foreign keys of the chosen schemas' tables
// and gives views that expose all of a key's columns the same relationship
// (PostgREST's view keys): from the view, to the view, or both.
func (m *model) loadRelationships(ctx context.Context, q querier, schemas []string) error {
	var fks []relationship
	if err := each(ctx, q, foreignKeysSQL, []any{schemas}, func(r pgx.Rows) error {
		var k relationship
		if err := r.Scan(&k.fk, &k.schema, &k.relation, &k.columns, &k.refSchema, &k.refRelName, &k.refColumns, &k.oneToOne); err != nil {
			return err
		}
		fks = append(fks, k)
		return nil
	}); err != nil {
		return fmt.Errorf("read foreign keys: %w", err)
	}
	srcs, err := rest.ViewColumnSources(ctx, q, schemas)
	if err != nil {
		return err
	}
	exposed := exposures(srcs)
	out := append([]relationship(nil), fks...)
	for _, k := range fks {
		from := exposed.of(k.schema, k.relation, k.columns)
		to := exposed.of(k.refSchema, k.refRelName, k.refColumns)
		for _, f := range from {
			n := k
			n.schema, n.relation, n.columns = f.schema, f.view, f.cols
			out = append(out, n)
		}
		for _, t := range to {
			n := k
			n.refSchema, n.refRelName, n.refColumns = t.schema, t.view, t.cols
			out = append(out, n)
		}
		for _, f := range from {
			for _, t := range to {
				n := k
				n.schema, n.relation, n.columns = f.schema, f.view, f.cols
				n.refSchema, n.refRelName, n.refColumns = t.schema, t.view, t.cols
				out = append(out, n)
			}
		}
	}
	m.relationships = out
	return nil
}

// viewKey is a view and the names it gives a key's columns.
type viewKey struct {
	schema, view string
	cols         []string
}

// exposure records which view columns show each base column, per view,
// views of views included.
type exposure struct {
	views []viewRef // in first-seen order
	cols  map[baseCol]map[viewRef][]string
}

type viewRef struct{ schema, view string }

type baseCol struct{ schema, relation, column string }

func exposures(srcs []rest.ViewColumnSource) exposure {
	// sources[view][view column] = the columns it shows directly
	sources := map[viewRef]map[string][]baseCol{}
	var views []viewRef
	for _, s := range srcs {
		v := viewRef{s.ViewSchema, s.View}
		if sources[v] == nil {
			sources[v] = map[string][]baseCol{}
			views = append(views, v)
		}
		sources[v][s.Column] = append(sources[v][s.Column], baseCol{s.Schema, s.Relation, s.RelationColumn})
	}
	// A view over a view also shows what the inner view shows; follow each
	// column down the chain (a cycle is impossible, the guard is cheap).
	var resolve func(v viewRef, col string, seen map[viewRef]bool) []baseCol
	resolve = func(v viewRef, col string, seen map[viewRef]bool) []baseCol {
		var out []baseCol
		for _, b := range sources[v][col] {
			out = append(out, b)
			inner := viewRef{b.schema, b.relation}
			if sources[inner] != nil && !seen[inner] {
				seen[inner] = true
				out = append(out, resolve(inner, b.column, seen)...)
			}
		}
		return out
	}
	e := exposure{views: views, cols: map[baseCol]map[viewRef][]string{}}
	for _, s := range srcs {
		v := viewRef{s.ViewSchema, s.View}
		for _, b := range resolve(v, s.Column, map[viewRef]bool{v: true}) {
			if e.cols[b] == nil {
				e.cols[b] = map[viewRef][]string{}
			}
			if !contains(e.cols[b][v], s.Column) {
				e.cols[b][v] = append(e.cols[b][v], s.Column)
			}
		}
	}
	return e
}

// of lists, for every view showing all of cols of schema.rel, each choice
// of the view's names for them (a view may show a column twice).
func (e exposure) of(schema, rel string, cols []string) []viewKey {
	var out []viewKey
	for _, v := range e.views {
		choices := [][]string{{}}
		for _, c := range cols {
			names := e.cols[baseCol{schema, rel, c}][v]
			if len(names) == 0 {
				choices = nil
				break
			}
			var next [][]string
			for _, ch := range choices {
				for _, n := range names {
					next = append(next, append(append([]string{}, ch...), n))
				}
			}
			choices = next
		}
		for _, ch := range choices {
			out = append(out, viewKey{v.schema, v.view, ch})
		}
	}
	return out
}

func each(ctx context.Context, q querier, sql string, args []any, fn func(pgx.Rows) error) error {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

func wrap(what string, err error) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
