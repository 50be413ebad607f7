package studio

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/lazy"
	"github.com/basaltdev/basalt/internal/pg"
)

// Limits of the table editor's pages.
const (
	defaultPageRows = 100
	maxPageRows     = 1000
	// maxPageCells bounds rows × columns, so a table of 1,000 columns
	// pages by 50 rows, not 1,000.
	maxPageCells = 50_000
	// maxCellText is what a text, json or bytea cell shows; longer values
	// are cut and marked, and the editor will not save a cut value.
	maxCellText = 10 << 10
	// exactCountBelow: tables estimated smaller are counted exactly; a
	// filtered count stops there.
	exactCountBelow = 100_000
	// truncatedKey names, in each row, the columns whose value was cut.
	truncatedKey = "__studio_truncated"
)

// column is what the table editor needs to know of a column.
type column struct {
	Name     string `json:"name"`
	Type     string `json:"type"`     // format_type with modifiers: the cast target
	Category string `json:"category"` // pg_type.typcategory: S string, N numeric, A array, E enum, ...
	Nullable bool   `json:"nullable"`
	Default  bool   `json:"has_default"`
	Identity bool   `json:"identity"`
	// Generated columns are computed: never written.
	Generated bool     `json:"generated"`
	PK        bool     `json:"pk"`
	Enums     []string `json:"enums,omitempty"`
	ElemEnums []string `json:"-"`
}

// table is a relation the editor works on.
type table struct {
	OID     uint32   `json:"id"`
	Schema  string   `json:"schema"`
	Name    string   `json:"name"`
	Kind    string   `json:"kind"`
	Columns []column `json:"columns"`
	PK      []string `json:"primary_key"`
}

func (t *table) col(name string) (column, bool) {
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return column{}, false
}

func (t *table) qualified() string { return ident(t.Schema, t.Name) }

// loadTable reads a relation's columns and primary key.
func (s *Service) loadTable(ctx context.Context, schema, name string) (*table, error) {
	t := &table{Schema: schema, Name: name}
	err := s.d.Admin.QueryRow(ctx, `SELECT c.oid, c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`, schema, name).Scan(&t.OID, &t.Kind)
	if isNoRows(err) {
		return nil, notFound("no table or view %s.%s", schema, name)
	} else if err != nil {
		return nil, err
	}
	rows, err := s.d.Admin.Query(ctx, `SELECT a.attname, format_type(a.atttypid, a.atttypmod), t.typcategory::text,
		NOT a.attnotnull, a.atthasdef, a.attidentity <> '', a.attgenerated <> '',
		EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary AND a.attnum = ANY (i.indkey)),
		ARRAY(SELECT e.enumlabel::text FROM pg_enum e WHERE e.enumtypid = coalesce(nullif(t.typelem, 0), t.oid) ORDER BY e.enumsortorder)
	FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
	WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, t.OID)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var c column
		if err := rows.Scan(&c.Name, &c.Type, &c.Category, &c.Nullable, &c.Default, &c.Identity, &c.Generated, &c.PK, &c.Enums); err != nil {
			rows.Close()
			return nil, err
		}
		if len(c.Enums) == 0 {
			c.Enums = nil
		}
		if c.PK {
			t.PK = append(t.PK, c.Name)
		}
		t.Columns = append(t.Columns, c)
	}
	return t, rows.Err()
}

// tableFromPath loads the table the URL names.
func (s *Service) tableFromPath(r *http.Request) (*table, error) {
	return s.loadTable(r.Context(), r.PathValue("schema"), r.PathValue("table"))
}

// truncatable says whether a column's values are cut in pages.
func truncatable(c column) (expr, cut string) {
	col := ident(c.Name)
	n := strconv.Itoa(maxCellText)
	switch {
	case c.Type == "json" || c.Type == "jsonb":
		return fmt.Sprintf("CASE WHEN octet_length(%s::text) > %s THEN to_jsonb(left(%s::text, %s)) ELSE to_jsonb(%s) END", col, n, col, n, col),
			fmt.Sprintf("octet_length(%s::text) > %s", col, n)
	case c.Type == "bytea":
		return fmt.Sprintf("CASE WHEN octet_length(%s) > %s THEN substring(%s FROM 1 FOR %s) ELSE %s END", col, n, col, n, col),
			fmt.Sprintf("octet_length(%s) > %s", col, n)
	case c.Category == "S":
		return fmt.Sprintf("CASE WHEN octet_length(%s) > %s THEN left(%s, %s) ELSE %s END", col, n, col, n, col),
			fmt.Sprintf("octet_length(%s) > %s", col, n)
	}
	return "", ""
}

// viewAs is who a page is read as: the operator (the admin role, which
// RLS does not bind) or a role or user through the caller primitive.
type viewAs struct {
	Role   string          `json:"role"`
	UserID string          `json:"user_id,omitempty"`
	Email  string          `json:"email,omitempty"`
	claims json.RawMessage // nil for the operator
}

var uuidText = lazy.NewRegexp(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// parseViewAs reads role= and user= of a browse request. A user's claims
// are those of an access token GoTrue would issue them.
func (s *Service) parseViewAs(ctx context.Context, q url.Values) (viewAs, error) {
	role, user := q.Get("role"), q.Get("user")
	if user != "" {
		if !uuidText.MatchString(user) {
			return viewAs{}, badRequest("user must be a user's id (a UUID)")
		}
		v := viewAs{UserID: user}
		err := s.d.Admin.QueryRow(ctx, `SELECT coalesce(nullif(u.role, ''), 'authenticated'), coalesce(u.email, ''),
			json_build_object('aud', coalesce(nullif(u.aud, ''), 'authenticated'), 'sub', u.id::text,
			  'email', coalesce(u.email, ''), 'phone', coalesce(u.phone, ''),
			  'app_metadata', coalesce(u.raw_app_meta_data, '{}'), 'user_metadata', coalesce(u.raw_user_meta_data, '{}'),
			  'role', coalesce(nullif(u.role, ''), 'authenticated'), 'aal', 'aal1',
			  'amr', json_build_array(json_build_object('method', 'password', 'timestamp', extract(epoch FROM now())::bigint)),
			  'session_id', '', 'is_anonymous', u.is_anonymous,
			  'iat', extract(epoch FROM now())::bigint, 'exp', extract(epoch FROM now())::bigint + 3600)
			FROM auth.users u WHERE u.id = $1`, user).Scan(&v.Role, &v.Email, &v.claims)
		if isNoRows(err) {
			return viewAs{}, badRequest("no user %s", user)
		}
		if err != nil {
			return viewAs{}, err
		}
		if !pg.APIRoles().Allows(v.Role) {
			return viewAs{}, badRequest("user %s has role %q, which no API request may take", user, v.Role)
		}
		return v, nil
	}
	switch role {
	case "", "operator":
		return viewAs{Role: "operator"}, nil
	case "anon", "authenticated", "service_role":
		c, _ := json.Marshal(map[string]string{"role": role})
		return viewAs{Role: role, claims: c}, nil
	}
	if pg.APIRoles().Allows(role) {
		c, _ := json.Marshal(map[string]string{"role": role})
		return viewAs{Role: role, claims: c}, nil
	}
	return viewAs{}, badRequest("role must be anon, authenticated or service_role (or user=<id>)")
}

// readAs runs fn as v: on the admin pool for the operator, else through
// pg.AsCaller on the user pool, the way REST runs a request, so RLS and
// grants apply exactly as they would to that caller's API calls.
func (s *Service) readAs(ctx context.Context, v viewAs, t *table, fn func(pgx.Tx) error) error {
	timeout := pg.Setting{Name: "statement_timeout", Value: strconv.FormatInt(s.cfg.StatementTimeout.Milliseconds(), 10)}
	if v.claims == nil {
		return pgx.BeginTxFunc(ctx, s.d.Admin, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `SELECT set_config($1, $2, true)`, timeout.Name, timeout.Value); err != nil {
				return err
			}
			return fn(tx)
		})
	}
	c := pg.Caller{Role: v.Role, Claims: v.claims, Method: http.MethodGet, Path: "/" + t.Name,
		After: []pg.Setting{timeout, {Name: "transaction_read_only", Value: "on"}}}
	return pg.AsCaller(ctx, s.d.User, c, fn)
}

// page is one page of a table as the editor shows it.
type page struct {
	Table      *table          `json:"table"`
	Rows       json.RawMessage `json:"rows"`
	Count      int64           `json:"count"`
	CountExact bool            `json:"count_exact"`
	Offset     int64           `json:"offset"`
	Limit      int64           `json:"limit"`
	As         viewAs          `json:"as"`
	// Notice says why the page is smaller than asked (wide tables).
	Notice string `json:"notice,omitempty"`
}

// reserved query parameters of a browse request; every other one is a filter.
var reserved = &lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"select": true, "order": true, "offset": true, "limit": true, "role": true, "user": true, "count": true}
}}

// browseRows answers GET /api/rows/{schema}/{table}: a page of rows with
// PostgREST filters and order, offset/limit paging, a count (exact for
// small tables and small filtered sets, else an estimate or a lower
// bound), read as the operator or as a role or user.
func (s *Service) browseRows(w http.ResponseWriter, r *http.Request) error {
	t, err := s.tableFromPath(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	v, err := s.parseViewAs(r.Context(), q)
	if err != nil {
		return err
	}
	pq, err := buildPage(t, q)
	if err != nil {
		return err
	}
	p := page{Table: t, Offset: pq.offset, Limit: pq.limit, As: v, Notice: pq.notice}
	err = s.readAs(r.Context(), v, t, func(tx pgx.Tx) error {
		if err := tx.QueryRow(r.Context(), pq.sql, pq.args...).Scan(&p.Rows); err != nil {
			return err
		}
		if q.Get("count") == "none" {
			return nil
		}
		// Small tables are counted exactly (and a count stops at the
		// bound). On a big table the whole table's count is the catalog's
		// estimate, and what a filter or a role's policies leave is the
		// planner's: counting it would read the table.
		var estimate float64
		if t.Kind != "v" {
			if err := tx.QueryRow(r.Context(), `SELECT reltuples FROM pg_class WHERE oid = $1`, t.OID).Scan(&estimate); err != nil {
				return err
			}
		}
		switch {
		case estimate < exactCountBelow:
			if err := tx.QueryRow(r.Context(), pq.countSQL, pq.args...).Scan(&p.Count); err != nil {
				return err
			}
			p.CountExact = p.Count <= exactCountBelow
		case !pq.filtered && v.claims == nil:
			p.Count = int64(estimate)
		default:
			var plan []struct {
				Plan struct {
					Rows float64 `json:"Plan Rows"`
				}
			}
			var raw []byte
			if err := tx.QueryRow(r.Context(), "EXPLAIN (FORMAT JSON) "+pq.matchSQL, pq.args...).Scan(&raw); err != nil {
				return err
			}
			if err := json.Unmarshal(raw, &plan); err != nil || len(plan) == 0 {
				return fmt.Errorf("read the planner's estimate: %v", err)
			}
			p.Count = int64(plan[0].Plan.Rows)
		}
		return nil
	})
	if err != nil {
		return rowsError(err, v)
	}
	return okJSON(w, p)
}

// rowsError words the errors a page most often meets.
func rowsError(err error, v viewAs) error {
	if pe, ok := pg.AsPgError(err); ok {
		body := pgErrorBody(pe, "")
		switch pe.Code {
		case "42501":
			if v.claims != nil {
				body.Error = fmt.Sprintf("%s may not read this table: %s", v.Role, pe.Message)
			}
		case "57014":
			body.Error = "the page took longer than the statement timeout: filter on, or sort by, an indexed column"
		}
		return &httpError{http.StatusBadRequest, body}
	}
	return err
}

// pageQuery is a browse request rendered: the statement (its rows as one
// JSON array), the count statement, their arguments and the page bounds.
type pageQuery struct {
	sql, countSQL string
	matchSQL      string // the rows the filters keep, for the planner's estimate
	args          []any
	limit, offset int64
	notice        string
	filtered      bool
}

// buildPage renders a browse request.
func buildPage(t *table, q url.Values) (pageQuery, error) {
	var pq pageQuery
	fail := func(format string, args ...any) (pageQuery, error) { return pageQuery{}, badRequest(format, args...) }
	cols := t.Columns
	if sel := q.Get("select"); sel != "" && sel != "*" {
		cols = nil
		for _, name := range strings.Split(sel, ",") {
			c, ok := t.col(strings.TrimSpace(name))
			if !ok {
				return fail("column %q does not exist on %s.%s", name, t.Schema, t.Name)
			}
			cols = append(cols, c)
		}
	}
	limit, offset := int64(defaultPageRows), int64(0)
	for name, dst := range map[string]*int64{"limit": &limit, "offset": &offset} {
		if v := q.Get(name); v != "" {
			n, perr := strconv.ParseInt(v, 10, 64)
			if perr != nil || n < 0 {
				return fail("%s must be a whole number", name)
			}
			*dst = n
		}
	}
	limit = min(limit, maxPageRows)
	if len(cols) > 0 && limit*int64(len(cols)) > maxPageCells {
		limit = max(1, maxPageCells/int64(len(cols)))
		pq.notice = fmt.Sprintf("%d columns: pages hold %d rows", len(cols), limit)
	}
	b := &sqlBuilder{}
	var conds []string
	for name, values := range q {
		if reserved.Get()[name] {
			continue
		}
		c, ok := t.col(name)
		if !ok {
			return fail("column %q does not exist on %s.%s", name, t.Schema, t.Name)
		}
		for _, raw := range values {
			f, perr := parseFilter(name, raw)
			if perr != nil {
				return fail("%s", perr.Error())
			}
			conds = append(conds, b.condition(f, c.Type))
		}
	}
	where := ""
	if len(conds) > 0 {
		where = " WHERE " + strings.Join(conds, " AND ")
	}
	var order []string
	if o := q.Get("order"); o != "" {
		terms, perr := parseOrder(o)
		if perr != nil {
			return fail("%s", perr.Error())
		}
		for _, term := range terms {
			if _, ok := t.col(term.Column); !ok {
				return fail("column %q does not exist on %s.%s", term.Column, t.Schema, t.Name)
			}
			o := ident(term.Column) + map[bool]string{false: " ASC", true: " DESC"}[term.Desc]
			if term.NullsFirst != nil {
				o += map[bool]string{true: " NULLS FIRST", false: " NULLS LAST"}[*term.NullsFirst]
			}
			order = append(order, o)
		}
	}
	// Paging needs a total order: the primary key breaks ties.
	for _, k := range t.PK {
		order = append(order, ident(k))
	}
	exprs := make([]string, 0, len(cols)+1)
	var cuts []string
	_, clash := t.col(truncatedKey)
	for _, c := range cols {
		if e, cut := truncatable(c); e != "" && !clash {
			exprs = append(exprs, e+" AS "+ident(c.Name))
			cuts = append(cuts, fmt.Sprintf("CASE WHEN %s THEN %s END", cut, quoteLiteral(c.Name)))
			continue
		}
		exprs = append(exprs, ident(c.Name))
	}
	if len(cuts) > 0 {
		exprs = append(exprs, "array_remove(ARRAY["+strings.Join(cuts, ", ")+"]::text[], NULL) AS "+ident(truncatedKey))
	}
	if len(exprs) == 0 {
		exprs = []string{"1 AS " + ident("?")}
	}
	orderBy := ""
	if len(order) > 0 {
		orderBy = " ORDER BY " + strings.Join(order, ", ")
	}
	pq.sql = fmt.Sprintf("SELECT coalesce(json_agg(p), '[]') FROM (SELECT %s FROM %s%s%s LIMIT %d OFFSET %d) p",
		strings.Join(exprs, ", "), t.qualified(), where, orderBy, limit, offset)
	pq.matchSQL = fmt.Sprintf("SELECT 1 FROM %s%s", t.qualified(), where)
	pq.countSQL = fmt.Sprintf("SELECT count(*) FROM (%s LIMIT %d) c", pq.matchSQL, exactCountBelow+1)
	pq.args, pq.limit, pq.offset, pq.filtered = b.args, limit, offset, len(conds) > 0
	return pq, nil
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
