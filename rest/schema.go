package rest

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/rpc"
)

// The schema cache: what PostgREST's SchemaCache module reads from the
// catalogs before it serves anything. Every request plans against one
// snapshot (tables, keys, relationships, functions, role settings), so a
// request never queries the catalogs itself and its plan cannot see half a
// migration.

// Column is one column of a table or view.
type Column struct {
	Name string
	Type string // format_type
	// Nullable and Default only feed the OpenAPI document's "required"
	// list and missing=default inserts; Postgres enforces both itself.
	Nullable bool
	Default  string // default expression, "" when none
	// JSONWrap is true for composite and array columns: JSON paths on them
	// go through to_jsonb first.
	JSONWrap bool
	// TSVector columns are searched as they are; any other column is
	// wrapped in to_tsvector() by the full-text operators.
	TSVector  bool
	Generated bool
}

// Table is a table, view, materialized view, foreign or partitioned table.
type Table struct {
	Schema, Name string
	Kind         byte // pg_class.relkind
	Columns      []*Column
	cols         map[string]*Column
	PK           []string
	Uniques      [][]string // unique and PK column sets, for one-to-one detection
	// Insertable, Updatable and Deletable come from
	// pg_relation_is_updatable, so a view answers OPTIONS (Allow) and
	// the OpenAPI document the way PostgREST shows it.
	Insertable  bool
	Updatable   bool
	Deletable   bool
	Description string
}

// Column returns the named column or nil.
func (t *Table) Column(name string) *Column { return t.cols[name] }

// IsView reports whether t is a view or materialized view.
func (t *Table) IsView() bool { return t.Kind == 'v' || t.Kind == 'm' }

// cardinality of a relationship seen from its origin. It decides the JSON
// shape of an embed: an object for to-one, an array for to-many, as in
// PostgREST's relationship types (M2O, O2M, O2O, M2M).
type cardinality int

const (
	m2o cardinality = iota
	o2m
	o2o
	m2m
)

func (c cardinality) String() string {
	return [...]string{"many-to-one", "one-to-many", "one-to-one", "many-to-many"}[c]
}

// toOne reports whether embedding along c yields an object.
func (c cardinality) toOne() bool { return c == m2o || c == o2o }

// Relationship links Table to Foreign. For m2m, Junction holds the junction
// table: JCols reference Table's Cols and JFCols reference Foreign's FCols.
type Relationship struct {
	Table, Foreign *Table
	Card           cardinality
	Constraint     string
	Cols, FCols    []string
	// Many-to-many: the junction's two constraints are kept so that a hint
	// may name either, as PostgREST accepts.
	Junction      *Table
	JConstraint1  string
	JConstraint2  string
	JCols, JFCols []string
	// SelfRef marks a table that references itself: its embeds are named
	// differently (selfRelMatches in plan_embed.go).
	SelfRef bool
	// Computed is set for computed relationships: fn(Table) RETURNS
	// [SETOF] Foreign.
	Computed *rpc.Function
}

// fk is a foreign key as read from pg_constraint (or inferred for a view).
type fk struct {
	schema, table, fschema, ftable, name string
	cols, fcols                          []string
}

// Cache is an immutable snapshot of the exposed schemas. Reloads build a
// new one and swap it in, so requests in flight keep theirs.
type Cache struct {
	Tables    map[string]*Table // "schema.name"
	Rels      map[string][]*Relationship
	Functions map[string][]*rpc.Function
	// RoleSettings are each API role's own settings (statement_timeout …),
	// applied after the role switch as PostgREST does.
	RoleSettings map[string][][2]string
	Roles        map[string]bool
	// Timezones are the names Prefer: timezone may use; others are
	// ignored, as PostgREST 14 does.
	Timezones map[string]bool
	// PostGIS reports whether ST_AsGeoJSON exists (application/geo+json).
	PostGIS bool
	cfg     Config
	// searchPaths is each exposed schema's quoted search_path.
	searchPaths map[string]string
}

// Table finds schema.name.
func (c *Cache) Table(schema, name string) *Table { return c.Tables[schema+"."+name] }

// tablesSQL lists the exposed relations. Partitions are left out (their
// parent is the API's table, as in PostgREST). Plain and partitioned tables
// take every command (privileges aside), as PostgREST assumes; only views
// and foreign tables ask pg_relation_is_updatable.
const tablesSQL = `
SELECT n.nspname, c.relname, c.relkind::text,
  CASE WHEN c.relkind IN ('r','p') THEN 28 ELSE pg_relation_is_updatable(c.oid::regclass, true) END,
  coalesce(obj_description(c.oid, 'pg_class'), '')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = ANY($1) AND c.relkind IN ('r','v','m','f','p') AND NOT c.relispartition`

const columnsSQL = `
SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
  NOT a.attnotnull,
  -- The default a missing value takes, as PostgREST reads it: an identity
  -- column's sequence, a domain's default, none for a generated column.
  CASE WHEN a.attgenerated <> '' THEN ''
       WHEN d.adbin IS NOT NULL THEN pg_get_expr(d.adbin, d.adrelid)
       WHEN a.attidentity = 'd' THEN coalesce(format('nextval(%L)',
         pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname)::regclass), '')
       WHEN t.typbasetype <> 0 THEN coalesce(pg_get_expr(t.typdefaultbin, 0), '')
       ELSE '' END,
  (t.typtype = 'c' OR t.typcategory = 'A'), a.atttypid = 'tsvector'::regtype, a.attgenerated <> ''
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE n.nspname = ANY($1) AND c.relkind IN ('r','v','m','f','p') AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY n.nspname, c.relname, a.attnum`

// keysSQL reads primary keys, unique constraints and foreign keys in every
// schema, not only the exposed ones: a view in an exposed schema inherits
// the keys of a table in a private one. Column arrays keep the constraint's
// column order, which the join conditions pair up position by position.
const keysSQL = `
SELECT n.nspname, c.relname, con.contype::text, con.conname,
  array(SELECT a.attname FROM unnest(con.conkey) WITH ORDINALITY k(n, o)
        JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.n ORDER BY k.o),
  coalesce(fn.nspname, ''), coalesce(fc.relname, ''),
  coalesce(array(SELECT a.attname FROM unnest(con.confkey) WITH ORDINALITY k(n, o)
        JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.n ORDER BY k.o), '{}')
FROM pg_constraint con
JOIN pg_class c ON c.oid = con.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_class fc ON fc.oid = con.confrelid
LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
WHERE con.contype IN ('p','u','f') AND con.conparentid = 0 AND NOT c.relispartition
ORDER BY con.conname`

// viewRulesSQL reads the query of every view and materialized view in the
// exposed schemas (see viewColumnOrigins).
const viewRulesSQL = `
SELECT vn.nspname, v.relname, r.ev_action::text
FROM pg_rewrite r
JOIN pg_class v ON v.oid = r.ev_class AND v.relkind IN ('v','m')
JOIN pg_namespace vn ON vn.oid = v.relnamespace
WHERE r.rulename = '_RETURN' AND vn.nspname = ANY($1)`

// columnNamesSQL names the columns view rules point at, wherever the
// relation lives: views in an exposed schema often read tables in a
// private one.
const columnNamesSQL = `
SELECT c.oid, n.nspname, c.relname, a.attnum, a.attname
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE a.attrelid = ANY($1::oid[]) AND a.attnum > 0 AND NOT a.attisdropped`

// roleSettingsSQL reads ALTER ROLE … SET values, database-specific ones
// after the global ones so that they win (the later entry is applied
// later). PostgREST applies them per request because SET ROLE alone does
// not: role settings only take effect at login.
const roleSettingsSQL = `
SELECT r.rolname, split_part(kv, '=', 1), substr(kv, strpos(kv, '=') + 1)
FROM pg_db_role_setting s
JOIN pg_roles r ON r.oid = s.setrole
CROSS JOIN LATERAL unnest(s.setconfig) kv
WHERE s.setdatabase IN (0, (SELECT oid FROM pg_database WHERE datname = current_database()))
ORDER BY r.rolname, s.setdatabase`

// querier is what loading needs from a pool; tests and type generation
// pass a plain connection.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// loadCache reads the schema cache for schemas in one snapshot.
func loadCache(ctx context.Context, q querier, schemas []string) (*Cache, error) {
	c := &Cache{Tables: map[string]*Table{}, Rels: map[string][]*Relationship{},
		RoleSettings: map[string][][2]string{}, Roles: map[string]bool{}}
	if err := scanRows(ctx, q, tablesSQL, []any{schemas}, func(r pgx.Rows) error {
		t := &Table{cols: map[string]*Column{}}
		var kind string
		var upd int
		if err := r.Scan(&t.Schema, &t.Name, &kind, &upd, &t.Description); err != nil {
			return err
		}
		t.Kind = kind[0]
		// pg_relation_is_updatable's bits: 4 UPDATE, 8 INSERT, 16 DELETE.
		t.Insertable, t.Updatable, t.Deletable = upd&8 != 0, upd&4 != 0, upd&16 != 0
		c.Tables[t.Schema+"."+t.Name] = t
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load tables: %w", err)
	}
	if err := scanRows(ctx, q, columnsSQL, []any{schemas}, func(r pgx.Rows) error {
		var s, n string
		col := &Column{}
		if err := r.Scan(&s, &n, &col.Name, &col.Type, &col.Nullable, &col.Default, &col.JSONWrap, &col.TSVector, &col.Generated); err != nil {
			return err
		}
		if t := c.Tables[s+"."+n]; t != nil {
			t.Columns = append(t.Columns, col)
			t.cols[col.Name] = col
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load columns: %w", err)
	}
	var fks []fk
	pks := map[string][]string{}
	if err := scanRows(ctx, q, keysSQL, nil, func(r pgx.Rows) error {
		var k fk
		var typ string
		if err := r.Scan(&k.schema, &k.table, &typ, &k.name, &k.cols, &k.fschema, &k.ftable, &k.fcols); err != nil {
			return err
		}
		t := c.Tables[k.schema+"."+k.table]
		switch typ {
		case "p":
			pks[k.schema+"."+k.table] = k.cols
			if t != nil {
				t.PK = k.cols
				t.Uniques = append(t.Uniques, k.cols)
			}
		case "u":
			if t != nil {
				t.Uniques = append(t.Uniques, k.cols)
			}
		case "f":
			fks = append(fks, k)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load keys: %w", err)
	}
	// Views have no constraints of their own: their keys are inferred from
	// the columns they expose, so embedding works through them.
	lineage, err := loadViewLineage(ctx, q, schemas)
	if err != nil {
		return nil, err
	}
	fks = c.inferViews(fks, pks, lineage)
	if err := scanRows(ctx, q, roleSettingsSQL, nil, func(r pgx.Rows) error {
		var role, k, v string
		if err := r.Scan(&role, &k, &v); err != nil {
			return err
		}
		c.RoleSettings[role] = append(c.RoleSettings[role], [2]string{k, v})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load role settings: %w", err)
	}
	if err := scanRows(ctx, q, `SELECT rolname FROM pg_roles`, nil, func(r pgx.Rows) error {
		var n string
		if err := r.Scan(&n); err != nil {
			return err
		}
		c.Roles[n] = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load roles: %w", err)
	}
	// Prefer: timezone is only honoured for a name Postgres knows; an
	// unknown one would fail the whole request at SET time.
	c.Timezones = map[string]bool{}
	if err := scanRows(ctx, q, `SELECT name FROM pg_timezone_names`, nil, func(r pgx.Rows) error {
		var n string
		if err := r.Scan(&n); err != nil {
			return err
		}
		c.Timezones[n] = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load timezones: %w", err)
	}
	if err := scanRows(ctx, q, `SELECT 1 FROM pg_extension WHERE extname = 'postgis'`, nil, func(pgx.Rows) error {
		c.PostGIS = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load extensions: %w", err)
	}
	fns, err := rpc.Load(ctx, q, schemas)
	if err != nil {
		return nil, err
	}
	c.Functions = fns
	// Computed relationships go last: one replaces a detected
	// relationship of the same name, as PostgREST lets a function
	// override a foreign key.
	c.buildRelationships(fks)
	c.addComputed()
	return c, nil
}

// scanRows runs one catalog query and hands each row to fn.
func scanRows(ctx context.Context, q querier, sql string, args []any, fn func(pgx.Rows) error) error {
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

// allIn reports whether every column of cols is in set.
func allIn(cols []string, set map[string]bool) bool {
	for _, c := range cols {
		if !set[c] {
			return false
		}
	}
	return true
}

// lineage maps a view ("schema.name") to each relation it takes columns
// from, and each such column to the view's name for it.
type lineage map[string]map[string]map[string]string

// loadViewLineage reads which base column each view column exposes.
func loadViewLineage(ctx context.Context, q querier, schemas []string) (lineage, error) {
	srcs, err := ViewColumnSources(ctx, q, schemas)
	if err != nil {
		return nil, err
	}
	out := lineage{}
	for _, s := range srcs {
		view, base := s.ViewSchema+"."+s.View, s.Schema+"."+s.Relation
		// A self-reference (a recursive view) carries no key over.
		if base == view {
			continue
		}
		if out[view] == nil {
			out[view] = map[string]map[string]string{}
		}
		if out[view][base] == nil {
			out[view][base] = map[string]string{}
		}
		// A base column exposed twice keeps its first name.
		if _, dup := out[view][base][s.RelationColumn]; !dup {
			out[view][base][s.RelationColumn] = s.Column
		}
	}
	return out, nil
}

// rename maps cols through m; ok is false unless every column is there.
func rename(cols []string, m map[string]string) ([]string, bool) {
	out := make([]string, len(cols))
	for i, c := range cols {
		n, ok := m[c]
		if !ok {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

// inferViews gives views the primary keys and foreign keys of the
// relations whose key columns they expose, renamed as the view names them.
// pks holds every table's primary key, exposed or not. Later passes let a
// view over a view inherit what the inner view inherited.
func (c *Cache) inferViews(fks []fk, pks map[string][]string, lin lineage) []fk {
	views := make([]string, 0, len(lin))
	for v := range lin {
		views = append(views, v)
	}
	// Sorted, so that which base table's key a view takes, when two
	// could give one, does not depend on map order between reloads.
	sort.Strings(views)
	// Three passes reach views stacked three deep; deeper stacks are rare
	// and then simply embed without the inferred keys.
	for pass := 0; pass < 3; pass++ {
		base := append([]fk(nil), fks...)
		for _, v := range views {
			vt := c.Tables[v]
			if vt == nil {
				continue
			}
			bases := make([]string, 0, len(lin[v]))
			for b := range lin[v] {
				bases = append(bases, b)
			}
			sort.Strings(bases)
			for _, b := range bases {
				cols := lin[v][b]
				if vt.PK == nil && len(pks[b]) > 0 {
					if pk, ok := rename(pks[b], cols); ok {
						vt.PK = pk
						pks[v] = pk
					}
				}
				for _, k := range base {
					if k.schema+"."+k.table == b && !hasFK(fks, vt.Schema, vt.Name, k.name, k.fschema, k.ftable) {
						if vc, ok := rename(k.cols, cols); ok {
							n := k
							n.schema, n.table, n.cols = vt.Schema, vt.Name, vc
							fks = append(fks, n)
						}
					}
					if k.fschema+"."+k.ftable == b && !hasFK(fks, k.schema, k.table, k.name, vt.Schema, vt.Name) {
						if vc, ok := rename(k.fcols, cols); ok {
							n := k
							n.fschema, n.ftable, n.fcols = vt.Schema, vt.Name, vc
							fks = append(fks, n)
						}
					}
				}
			}
		}
	}
	return fks
}

// hasFK reports whether the same constraint already links the two
// relations, so that a later pass does not infer it twice.
func hasFK(fks []fk, s, t, name, fs, ft string) bool {
	for _, k := range fks {
		if k.schema == s && k.table == t && k.name == name && k.fschema == fs && k.ftable == ft {
			return true
		}
	}
	return false
}

// sameSet compares column sets regardless of order: a unique constraint
// on (b, a) makes a foreign key on (a, b) one-to-one.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	return allIn(b, m)
}

// isUnique reports whether cols are exactly a unique or primary key of t.
func (t *Table) isUnique(cols []string) bool {
	for _, u := range t.Uniques {
		if sameSet(u, cols) {
			return true
		}
	}
	return false
}

// buildRelationships derives M2O/O2M/O2O from foreign keys and M2M from
// junction tables whose two foreign keys are covered by the junction's PK.
func (c *Cache) buildRelationships(fks []fk) {
	add := func(r *Relationship) {
		k := r.Table.Schema + "." + r.Table.Name
		c.Rels[k] = append(c.Rels[k], r)
	}
	for _, k := range fks {
		t, f := c.Tables[k.schema+"."+k.table], c.Tables[k.fschema+"."+k.ftable]
		if t == nil || f == nil {
			continue
		}
		// Each foreign key gives two relationships, one from each end; a
		// key that is also unique makes both ends one-to-one.
		self := t == f
		fwd, back := m2o, o2m
		if t.isUnique(k.cols) {
			fwd, back = o2o, o2o
		}
		add(&Relationship{Table: t, Foreign: f, Card: fwd, Constraint: k.name, Cols: k.cols, FCols: k.fcols, SelfRef: self})
		add(&Relationship{Table: f, Foreign: t, Card: back, Constraint: k.name, Cols: k.fcols, FCols: k.cols, SelfRef: self})
	}
	byTable := map[string][]fk{}
	for _, k := range fks {
		byTable[k.schema+"."+k.table] = append(byTable[k.schema+"."+k.table], k)
	}
	for jn, list := range byTable {
		j := c.Tables[jn]
		if j == nil || len(j.PK) == 0 {
			continue
		}
		pk := map[string]bool{}
		for _, p := range j.PK {
			pk[p] = true
		}
		for _, a := range list {
			for _, b := range list {
				if a.name == b.name || !allIn(a.cols, pk) || !allIn(b.cols, pk) {
					continue
				}
				ta, tb := c.Tables[a.fschema+"."+a.ftable], c.Tables[b.fschema+"."+b.ftable]
				if ta == nil || tb == nil {
					continue
				}
				add(&Relationship{Table: ta, Foreign: tb, Card: m2m, Junction: j,
					JConstraint1: a.name, JConstraint2: b.name,
					Cols: a.fcols, JCols: a.cols, FCols: b.fcols, JFCols: b.cols, SelfRef: ta == tb})
			}
		}
	}
	// A stable order makes PGRST201's list of candidates (and the hint
	// built from it) the same on every reload.
	for k := range c.Rels {
		rs := c.Rels[k]
		sort.SliceStable(rs, func(i, j int) bool { return relSortKey(rs[i]) < relSortKey(rs[j]) })
	}
}

// relSortKey orders relationships by constraint name, junctions by name
// and then by their two constraints.
func relSortKey(r *Relationship) string {
	if r.Card == m2m {
		return r.Junction.Name + "\x00" + r.JConstraint1 + "\x00" + r.JConstraint2
	}
	return r.Constraint
}

// describe renders one PGRST201 details entry.
func (r *Relationship) describe() map[string]string {
	cols := func(t *Table, c []string) string { return t.Name + "(" + strings.Join(c, ", ") + ")" }
	d := map[string]string{"cardinality": r.Card.String(),
		"embedding": r.Table.Name + " with " + r.Foreign.Name}
	if r.Card == m2m {
		d["relationship"] = r.Junction.Name + " using " + r.JConstraint1 + "(" + strings.Join(r.JCols, ", ") + ") and " +
			r.JConstraint2 + "(" + strings.Join(r.JFCols, ", ") + ")"
	} else {
		d["relationship"] = r.Constraint + " using " + cols(r.Table, r.Cols) + " and " + cols(r.Foreign, r.FCols)
	}
	return d
}

// hintName is what the PGRST201 hint suggests for r: table!constraint.
func (r *Relationship) hintName() string {
	if r.Card == m2m {
		return r.Foreign.Name + "!" + r.Junction.Name
	}
	return r.Foreign.Name + "!" + r.Constraint
}

// addComputed registers computed relationships: a function taking one
// table's row and returning another table's rows. They replace a detected
// relationship of the same name.
func (c *Cache) addComputed() {
	for _, list := range c.Functions {
		for _, f := range list {
			if len(f.Params) != 1 || f.Kind != rpc.Composite || f.RetTable == "" {
				continue
			}
			ft := c.Tables[f.RetSchema+"."+f.RetTable]
			if ft == nil {
				continue
			}
			pt := c.tableForType(f.Schema, f.Params[0].Type)
			if pt == nil {
				continue
			}
			// SETOF is to-many unless the function declares ROWS 1,
			// PostgREST's way of marking a set-returning function to-one.
			card := m2o
			if f.SetOf && f.Rows != 1 {
				card = o2m
			}
			k := pt.Schema + "." + pt.Name
			rels := c.Rels[k][:0:0]
			for _, r := range c.Rels[k] {
				if !(r.Foreign == ft && r.Constraint == f.Name) {
					rels = append(rels, r)
				}
			}
			c.Rels[k] = append(rels, &Relationship{Table: pt, Foreign: ft, Card: card, Constraint: f.Name, Computed: f})
		}
	}
}

// tableForType finds the table whose row type format_type printed as typ.
func (c *Cache) tableForType(schema, typ string) *Table {
	if t := c.Tables[schema+"."+strings.Trim(typ, `"`)]; t != nil {
		return t
	}
	if s, n, ok := strings.Cut(typ, "."); ok {
		return c.Tables[strings.Trim(s, `"`)+"."+strings.Trim(n, `"`)]
	}
	return c.Tables["public."+strings.Trim(typ, `"`)]
}
