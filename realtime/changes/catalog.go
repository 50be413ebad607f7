package changes

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
)

// column is one replicated column of a table.
type column struct {
	Name    string
	TypName string // pg_type.typname: int8, _text (what "columns" shows)
	Type    string // format_type: what values are cast to
	PK      bool
	kind    valueKind // whether the engine can evaluate it itself (local.go)
}

// relInfo is what the engine needs to know about a published table.
type relInfo struct {
	OID    uint32
	Schema string
	Table  string
	Cols   []column
	RLS    bool
	// privs caches, per role, which columns the role may SELECT; check
	// holds the row check's statements (checkSQL).
	mu    sync.Mutex
	privs map[string][]bool
	check map[bool]string
}

func (r *relInfo) hasPK() bool {
	for _, c := range r.Cols {
		if c.PK {
			return true
		}
	}
	return false
}

// relCache holds relInfo by table oid; a Relation message from the slot
// (a table was altered, or the stream restarted) drops the entry.
type relCache struct {
	db *pgxpool.Pool
	mu sync.Mutex
	m  map[uint32]*relInfo
}

func newRelCache(db *pgxpool.Pool) *relCache {
	return &relCache{db: db, m: map[uint32]*relInfo{}}
}

func (c *relCache) forget(oid uint32) {
	c.mu.Lock()
	delete(c.m, oid)
	c.mu.Unlock()
}

// relInfoSQL reads a table's replicated columns in attribute order (the
// order pgoutput sends them: no dropped or generated columns).
const relInfoSQL = `
SELECT n.nspname, c.relname, c.relrowsecurity,
  array_agg(a.attname::text ORDER BY a.attnum),
  array_agg(t.typname::text ORDER BY a.attnum),
  array_agg(format_type(a.atttypid, a.atttypmod) ORDER BY a.attnum),
  array_agg(coalesce(a.attnum = ANY(i.indkey), false) ORDER BY a.attnum),
  array_agg(t.typtype::text ORDER BY a.attnum),
  array_agg(coalesce(co.collisdeterministic, true) ORDER BY a.attnum)
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_collation co ON co.oid = a.attcollation
LEFT JOIN pg_index i ON i.indrelid = c.oid AND i.indisprimary
WHERE c.oid = $1
GROUP BY n.nspname, c.relname, c.relrowsecurity`

// get returns the table's info, loading it when missing or when the
// stream's column count disagrees with the cached one.
func (c *relCache) get(ctx context.Context, oid uint32, ncols int) (*relInfo, error) {
	c.mu.Lock()
	r := c.m[oid]
	c.mu.Unlock()
	if r != nil && (ncols < 0 || len(r.Cols) == ncols) {
		return r, nil
	}
	r = &relInfo{OID: oid, privs: map[string][]bool{}, check: map[bool]string{}}
	var names, typnames, types, typtypes []string
	var pks, deterministic []bool
	err := c.db.QueryRow(ctx, relInfoSQL, oid).Scan(&r.Schema, &r.Table, &r.RLS, &names, &typnames, &types, &pks,
		&typtypes, &deterministic)
	if err != nil {
		return nil, fmt.Errorf("read table %d: %w", oid, err)
	}
	for i := range names {
		r.Cols = append(r.Cols, column{Name: names[i], TypName: typnames[i], Type: types[i], PK: pks[i],
			kind: kindOf(typnames[i], typtypes[i][0], deterministic[i])})
	}
	c.mu.Lock()
	c.m[oid] = r
	c.mu.Unlock()
	return r, nil
}

// selectable returns which columns role may SELECT (all false when the
// role does not exist).
func (r *relInfo) selectable(ctx context.Context, db *pgxpool.Pool, role string) []bool {
	r.mu.Lock()
	p, ok := r.privs[role]
	r.mu.Unlock()
	if ok {
		return p
	}
	p = make([]bool, len(r.Cols))
	names := make([]string, len(r.Cols))
	for i, col := range r.Cols {
		names[i] = col.Name
	}
	rows, err := db.Query(ctx, `SELECT coalesce(has_column_privilege(r.oid, $2::oid, col, 'SELECT'), false)
		FROM unnest($3::text[]) WITH ORDINALITY AS u(col, i)
		JOIN pg_roles r ON r.rolname = $1 ORDER BY i`, role, r.OID, names)
	if err == nil {
		var got []bool
		got, err = pgx.CollectRows(rows, pgx.RowTo[bool])
		if err == nil && len(got) == len(p) {
			p = got
		}
	}
	r.mu.Lock()
	r.privs[role] = p
	r.mu.Unlock()
	return p
}

// publishedSQL lists the published tables a binding's schema and table
// name ("*" for any).
const publishedSQL = `
SELECT c.oid FROM pg_publication_tables pt
JOIN pg_namespace n ON n.nspname = pt.schemaname
JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = pt.tablename
WHERE pt.pubname = $1 AND ($2 = '*' OR pt.schemaname = $2) AND ($3 = '*' OR pt.tablename = $3)`

// validate checks one binding as the reference's subscription insert does.
func (e *Engine) validate(ctx context.Context, b *sbinding) error {
	unable := func(err error) error {
		if err == nil {
			return fmt.Errorf("Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given connect parameters: [%s]", b.p.describe())
		}
		return fmt.Errorf("Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: [%s]. Exception: %s", b.p.describe(), err.Error())
	}
	rows, err := e.admin.Query(ctx, publishedSQL, Publication, b.p.schema, b.p.table)
	if err != nil {
		return unable(err)
	}
	oids, err := pgx.CollectRows(rows, pgx.RowTo[uint32])
	if err != nil {
		return unable(err)
	}
	if len(oids) == 0 {
		return unable(nil)
	}
	for _, oid := range oids {
		rel, err := e.rels.get(ctx, oid, -1)
		if err != nil {
			return unable(err)
		}
		for _, f := range b.p.filters {
			col := rel.column(f.Column)
			if col == nil {
				return unable(fmt.Errorf("invalid column for filter %s", f.Column))
			}
			if f.Op == "is" {
				switch v := strings.ToLower(f.Value); {
				case v == "null":
				case (v == "true" || v == "false" || v == "unknown") && col.TypName == "bool":
				default:
					return unable(fmt.Errorf("invalid value %q for an is filter on column %s", f.Value, f.Column))
				}
				continue
			}
			if f.Op == "in" && len(splitTopLevel(f.Value[1:len(f.Value)-1])) > maxInValues {
				return unable(fmt.Errorf("too many values for `in` filter. Maximum is %d", maxInValues))
			}
			if _, err := e.admin.Exec(ctx, "SELECT "+filterValueSQL(f, col, "$1")+" IS NULL", f.Value); err != nil {
				return unable(fmt.Errorf("ERROR %s", pgMessage(err)))
			}
		}
		for _, s := range b.p.selects {
			if rel.column(s) == nil {
				return unable(fmt.Errorf("invalid column for select %s", s))
			}
		}
	}
	return nil
}

// column finds a column by name.
func (r *relInfo) column(name string) *column {
	if i := r.columnIndex(name); i >= 0 {
		return &r.Cols[i]
	}
	return nil
}

// columnIndex is a column's place in the row, -1 when there is none.
func (r *relInfo) columnIndex(name string) int {
	for i := range r.Cols {
		if r.Cols[i].Name == name {
			return i
		}
	}
	return -1
}

// pgMessage words a database error as "<SQLSTATE> <message>".
func pgMessage(err error) string {
	if pgErr, ok := pg.AsPgError(err); ok {
		return pgErr.Code + " " + pgErr.Message
	}
	return err.Error()
}
