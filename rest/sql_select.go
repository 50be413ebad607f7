package rest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// Stage 3, SQL: the plan becomes one statement with bound values. Its
// text depends only on the plan's shape, never on values, so it is
// prepared once per connection (execute_pipeline.go). This file renders a
// read: the SELECT over the tree with its conditions, and the count; for a
// write, the rows it changes and the select over the rows it returns.
// sql.go wraps it in the statement's shape, sql_write.go renders writes.

// readStatement renders a planned read as the one statement PostgREST runs
// for it: the rows (readSQL), the total Prefer: count asks for, and the body
// aggregate of the negotiated media type, all in mainSQL's shape.
func readStatement(rc *reqCtx, p *readPlan) (*statement, error) {
	b := newBuilder(rc)
	src, _, err := b.readSQL(p.root, p.from, true)
	if err != nil {
		return nil, err
	}
	count, planned, err := countSQL(rc, b, p.root, p.from)
	if err != nil {
		return nil, err
	}
	st := &statement{
		sql:      mainSQL(src, "SELECT * FROM pgrst_source", count, bodySQL(p.acc, rc.r.Method == http.MethodHead), "''"),
		args:     b.args,
		readOnly: true,
		verify:   singleCheck(p.acc),
	}
	if planned != nil {
		st.extra = append(st.extra, planned.step)
		st.verify = chain(planned.apply(rc), st.verify)
	}
	return st, nil
}

func newBuilder(rc *reqCtx) *builder {
	return &builder{maxRows: rc.cfg.MaxRows, aggs: rc.cfg.AggregatesEnabled}
}

// newWriteBuilder is the builder of a write's statement: the body, when
// the statement reads one, is its first parameter (bodyParam).
func newWriteBuilder(rc *reqCtx, body []byte) *builder {
	b := newBuilder(rc)
	if body != nil {
		b.arg(body)
	}
	return b
}

// returnedRowsSQL renders the select over a write's RETURNING rows
// (pgrst_source): the request's select and embeds. The filters already
// chose the rows to change, and every changed row is returned: neither the
// filters nor max-rows apply again. flagged is an upsert whose rows carry
// pgrst_inserted, which the select's star must not show.
func (b *builder) returnedRowsSQL(p *writePlan, flagged bool) (string, error) {
	switch {
	case !p.wantRows && !flagged:
		return "SELECT NULL WHERE false", nil
	case !p.rep:
		return "SELECT * FROM pgrst_source", nil
	}
	p.root.expandStar = flagged
	filters, trees := p.root.filters, p.root.trees
	p.root.filters, p.root.trees = nil, nil
	saved := b.maxRows
	b.maxRows = 0
	inner, _, err := b.readSQL(p.root, "pgrst_source AS "+quoteIdent(p.t.Name), false)
	b.maxRows = saved
	p.root.filters, p.root.trees = filters, trees
	return inner, err
}

// mutationWhere renders the WHERE of an UPDATE/DELETE. With limit (and
// offset) the affected rows are picked by a keyed subquery honouring order,
// as PostgREST's limited updates and deletes do.
func (b *builder) mutationWhere(w *writePlan) ([]string, error) {
	// The WHERE refers to the target table itself, not to the alias the
	// select over RETURNING uses.
	w.root.qual = w.target
	defer func() { w.root.qual = quoteIdent(w.t.Name) }()
	where, err := b.rootConds(w.root, false)
	if err != nil || (w.root.limit == nil && w.root.offset == nil) {
		return where, err
	}
	var key []string
	switch {
	case len(w.t.PK) > 0:
		for _, c := range w.t.PK {
			key = append(key, w.target+"."+quoteIdent(c))
		}
	// Without a key, a plain table's rows are still addressed by ctid,
	// stable within the statement; a view has no ctid to offer.
	case w.t.Kind == 'r':
		key = []string{w.target + ".ctid"}
	default:
		return nil, pgrstErr(400, "PGRST127", "Feature not implemented",
			"limit/offset on a view without a primary key", nil)
	}
	order, err := b.orderSQL(w.root)
	if err != nil {
		return nil, err
	}
	sub := "SELECT " + strings.Join(key, ", ") + " FROM " + w.target
	if len(where) > 0 {
		sub += " WHERE " + strings.Join(where, " AND ")
	}
	sub += order
	if w.root.limit != nil {
		sub += " LIMIT " + b.arg(*w.root.limit)
	}
	if w.root.offset != nil {
		sub += " OFFSET " + b.arg(*w.root.offset)
	}
	return []string{"(" + strings.Join(key, ", ") + ") IN (" + sub + ")"}, nil
}

// plannedCount collects the planner's row estimate for count=planned and
// count=estimated.
type plannedCount struct {
	step step
	rows *int64
}

// countSQL renders the total-count expression for Prefer: count=…, and for
// planned/estimated counts an EXPLAIN step run after the main statement.
func countSQL(rc *reqCtx, b *builder, root *node, from string) (string, *plannedCount, error) {
	mode := rc.prefs.count
	if mode == "" {
		return "null", nil, nil
	}
	where, err := b.rootConds(root, true)
	if err != nil {
		return "", nil, err
	}
	filtered := from
	if len(where) > 0 {
		filtered += " WHERE " + strings.Join(where, " AND ")
	}
	var p *plannedCount
	if mode != "exact" {
		pb := &builder{aggs: b.aggs}
		pw, err := pb.rootConds(root, true)
		if err != nil {
			return "", nil, err
		}
		q := "EXPLAIN (FORMAT JSON) SELECT 1 FROM " + from
		if len(pw) > 0 {
			q += " WHERE " + strings.Join(pw, " AND ")
		}
		p = &plannedCount{}
		p.step = step{sql: q, args: pb.args, row: func(v [][]byte) error {
			var plan []struct {
				Plan struct {
					Rows float64 `json:"Plan Rows"`
				} `json:"Plan"`
			}
			if err := json.Unmarshal(v[0], &plan); err != nil || len(plan) == 0 {
				return fmt.Errorf("rest: read planned count: %v", err)
			}
			n := int64(plan[0].Plan.Rows)
			p.rows = &n
			return nil
		}}
	}
	switch {
	case mode == "planned":
		return "null", p, nil
	case mode == "estimated" && rc.cfg.MaxRows > 0:
		// Exact up to max-rows (+1 tells "more"), the estimate beyond.
		lim := b.arg(rc.cfg.MaxRows + 1)
		return "(SELECT pg_catalog.count(*) FROM (SELECT 1 FROM " + filtered + " LIMIT " + lim + ") pgrst_estimate)", p, nil
	}
	return "(SELECT pg_catalog.count(*) FROM " + filtered + ")", nil, nil
}

// The SELECT of a read, in the shape PostgREST's QueryBuilder gives it: the
// root relation, one LEFT (or INNER) JOIN LATERAL subquery per embed that
// aggregates the child rows to JSON, the root's conditions, order and page.
// Lateral joins keep each embed's own filters, order and limit inside its
// subquery, so they never change the parent's row count.

// builder accumulates bound arguments. Every value goes through arg, every
// identifier through quoteIdent.
type builder struct {
	args    []any
	maxRows int64
	aggs    bool // aggregates allowed
}

// arg binds v and returns its placeholder. Values never enter the SQL
// text, so the text is the same for every value and injection is out of
// reach whatever the URL holds.
func (b *builder) arg(v any) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args))
}

// quoteIdent double-quotes an identifier, as pgx's Identifier.Sanitize
// does, so any name from the URL or the catalogs is a name, never SQL.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteLit quotes a literal that is part of the statement's shape (a JSON
// key of a path, a column name tested with ?), not a value: those are
// bound.
func quoteLit(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// validCast keeps casts to letters, digits, '_', '$' and spaces, so a type
// name can be emitted as is (PostgREST does the same).
func validCast(t string) bool {
	for _, c := range t {
		if !(c == '_' || c == '$' || c == ' ' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return t != ""
}

// castExpr applies a ::cast from the select as CAST(… AS …), which needs no
// parentheses around expr whatever its precedence.
func castExpr(expr, cast string) string {
	if cast == "" {
		return expr
	}
	return "CAST(" + expr + " AS " + cast + ")"
}

// readSQL renders the full SELECT for root node n over from.
// withRootConds is false when the caller applies the root's conditions
// elsewhere (a mutation's WHERE); the conditions are returned for the count.
func (b *builder) readSQL(n *node, from string, withRootConds bool) (string, []string, error) {
	sel, group, err := b.selectList(n)
	if err != nil {
		return "", nil, err
	}
	joins, err := b.joins(n)
	if err != nil {
		return "", nil, err
	}
	var where []string
	if withRootConds {
		if where, err = b.rootConds(n, false); err != nil {
			return "", nil, err
		}
	}
	order, err := b.orderSQL(n)
	if err != nil {
		return "", nil, err
	}
	// select=rel() (filter-only embeds) can leave nothing to select:
	// "SELECT FROM …" is valid and still counts rows.
	if len(sel) == 0 {
		sel = []string{}
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + from + joins
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if len(group) > 0 {
		q += " GROUP BY " + strings.Join(group, ", ")
	}
	return q + order + b.limitSQL(n, true), where, nil
}

// rootConds are the WHERE conditions of the root; forCount adds EXISTS for
// !inner embeds so the count matches the page.
func (b *builder) rootConds(n *node, forCount bool) ([]string, error) {
	where, err := b.conds(n)
	if err != nil {
		return nil, err
	}
	if forCount {
		for _, e := range n.children {
			if e.item.Inner {
				s, err := b.existsSQL(n, e)
				if err != nil {
					return nil, err
				}
				where = append(where, s)
			}
		}
	}
	return where, nil
}

// selectList renders the select items of n. groupBy collects the
// non-aggregate expressions when aggregates are present.
func (b *builder) selectList(n *node) (sel []string, groupBy []string, err error) {
	items := n.items
	if len(items) == 0 {
		items = []*selectItem{{Kind: itemStar}}
	}
	// Any aggregate turns the select into a grouped one: every plain item
	// then goes to GROUP BY, as PostgREST groups by the non-aggregates.
	hasAgg := false
	for _, it := range items {
		if it.Kind == itemCount || it.Agg != "" {
			hasAgg = true
		}
	}
	if hasAgg && !b.aggs {
		return nil, nil, pgrstErr(400, "PGRST123", "Use of aggregate functions is not allowed", nil, nil)
	}
	for _, it := range items {
		switch it.Kind {
		case itemStar:
			// qual.* normally; upserts list the columns, because their
			// source carries the pgrst_inserted flag that must not show.
			if n.expandStar {
				for _, c := range n.table.Columns {
					e := n.qual + "." + quoteIdent(c.Name)
					sel = append(sel, e)
					groupBy = append(groupBy, e)
				}
			} else {
				sel = append(sel, n.qual+".*")
				groupBy = append(groupBy, n.qual+".*")
			}
		case itemCount:
			alias := "count"
			if it.Alias != "" {
				alias = it.Alias
			}
			if it.AggCast != "" && !validCast(it.AggCast) {
				return nil, nil, pgrstErr(400, "PGRST100", "invalid cast", nil, nil)
			}
			// Schema-qualified, so a user function named count on the
			// search_path cannot take its place.
			sel = append(sel, castExpr("pg_catalog.count(*)", it.AggCast)+" AS "+quoteIdent(alias))
		case itemField:
			if (it.Cast != "" && !validCast(it.Cast)) || (it.AggCast != "" && !validCast(it.AggCast)) {
				return nil, nil, pgrstErr(400, "PGRST100", "invalid cast", nil, nil)
			}
			expr := castExpr(n.fieldExpr(it.Field), it.Cast)
			key := it.Field.outputKey()
			if it.Agg != "" {
				expr = castExpr(it.Agg+"("+expr+")", it.AggCast)
				key = it.Agg
			} else {
				groupBy = append(groupBy, expr)
			}
			if it.Alias != "" {
				key = it.Alias
			}
			// A bare column keeps its own name; anything else is
			// aliased to the key the client expects in the JSON.
			if it.Agg == "" && it.Alias == "" && it.Cast == "" && len(it.Field.Path) == 0 {
				sel = append(sel, expr)
			} else {
				sel = append(sel, expr+" AS "+quoteIdent(key))
			}
		case itemEmbed, itemSpread:
			e := n.embedFor(it)
			if e == nil {
				continue
			}
			a := quoteIdent(e.alias)
			toOne := e.rel.Card.toOne()
			switch {
			case it.Kind == itemSpread:
				// A spread lifts the child's keys into the parent; a
				// to-many spread gives one array per key, empty rather
				// than null when nothing matched.
				for _, k := range e.node.outputKeys() {
					if toOne {
						sel = append(sel, a+"."+quoteIdent(k)+" AS "+quoteIdent(k))
					} else {
						sel = append(sel, "COALESCE("+a+"."+quoteIdent(k)+", '[]') AS "+quoteIdent(k))
					}
					groupBy = append(groupBy, a+"."+quoteIdent(k))
				}
			case len(it.Children) == 0:
				// rel(): only filters, no key.
			// To-one is an object (null when there is no row); to-many
			// an array, [] when there are none, as PostgREST renders them.
			case toOne:
				sel = append(sel, "row_to_json("+a+".*)::jsonb AS "+quoteIdent(e.key))
				groupBy = append(groupBy, a+".*")
			default:
				sel = append(sel, "COALESCE("+a+"."+a+", '[]') AS "+quoteIdent(e.key))
				groupBy = append(groupBy, a+"."+a)
			}
		}
	}
	if !hasAgg {
		groupBy = nil
	}
	return sel, groupBy, nil
}

// outputKeys lists the JSON keys a node's select produces (for spreads).
func (n *node) outputKeys() []string {
	var keys []string
	items := n.items
	if len(items) == 0 {
		items = []*selectItem{{Kind: itemStar}}
	}
	for _, it := range items {
		switch it.Kind {
		case itemStar:
			for _, c := range n.table.Columns {
				keys = append(keys, c.Name)
			}
		case itemField:
			k := it.Field.outputKey()
			if it.Agg != "" {
				k = it.Agg
			}
			if it.Alias != "" {
				k = it.Alias
			}
			keys = append(keys, k)
		case itemCount:
			k := "count"
			if it.Alias != "" {
				k = it.Alias
			}
			keys = append(keys, k)
		case itemEmbed, itemSpread:
			e := n.embedFor(it)
			if e == nil {
				continue
			}
			switch {
			case it.Kind == itemSpread:
				keys = append(keys, e.node.outputKeys()...)
			case len(it.Children) > 0:
				keys = append(keys, e.key)
			}
		}
	}
	return keys
}

// embedFor finds the embed resolved for select item it (nil when the item
// was not resolved, which resolveEmbeds makes an error before SQL).
func (n *node) embedFor(it *selectItem) *embed {
	for _, e := range n.children {
		if e.item == it {
			return e
		}
	}
	return nil
}

// fieldExpr renders a column with its JSON path.
func (n *node) fieldExpr(f field) string {
	base := n.qual + "." + quoteIdent(f.Name)
	if len(f.Path) == 0 {
		return base
	}
	// -> works on json and jsonb only: composite and array columns are
	// converted first, which PostgREST also does to let paths reach them.
	if c := n.table.Column(f.Name); c != nil && c.JSONWrap {
		base = "to_jsonb(" + base + ")"
	}
	var sb strings.Builder
	sb.WriteString(base)
	for _, op := range f.Path {
		sb.WriteString(op.Arrow)
		// An index is digits (checked by the grammar) and goes in as an
		// integer; a key is a text literal, so ->'0' and ->0 differ as
		// they do in Postgres.
		if op.IsIndex {
			sb.WriteString(op.Key)
		} else {
			sb.WriteString(quoteLit(op.Key))
		}
	}
	return sb.String()
}

// joins renders the lateral joins of n's embeds.
func (b *builder) joins(n *node) (string, error) {
	var sb strings.Builder
	for _, e := range n.children {
		sub, err := b.embedSubquery(n, e)
		if err != nil {
			return "", err
		}
		a := quoteIdent(e.alias)
		join := " LEFT JOIN LATERAL "
		on := " ON TRUE"
		// !inner drops parents without a match: for to-one the inner
		// join does it, for to-many the aggregate row always exists
		// (json_agg of nothing is NULL), so the NULL is tested.
		if e.item.Inner {
			join = " INNER JOIN LATERAL "
			if !e.rel.Card.toOne() {
				on = " ON " + a + " IS NOT NULL"
			}
		}
		sb.WriteString(join + "(" + sub + ") AS " + a + on)
	}
	return sb.String(), nil
}

// embedSubquery is the lateral subquery for one embed.
func (b *builder) embedSubquery(parent *node, e *embed) (string, error) {
	c := e.node
	from, cond := joinCond(e, parent.qual)
	sel, group, err := b.selectList(c)
	if err != nil {
		return "", err
	}
	joins, err := b.joins(c)
	if err != nil {
		return "", err
	}
	cc, err := b.conds(c)
	if err != nil {
		return "", err
	}
	cond = append(cond, cc...)
	order, err := b.orderSQL(c)
	if err != nil {
		return "", err
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + from + joins + " WHERE " + strings.Join(cond, " AND ")
	if len(group) > 0 {
		q += " GROUP BY " + strings.Join(group, ", ")
	}
	if e.rel.Card.toOne() {
		// A to-one embed yields at most one row per parent: no paging.
		return q + order, nil
	}
	// Order and limit apply inside the subquery, before json_agg, so each
	// parent gets its own first N children.
	q += order + b.limitSQL(c, false)
	a := quoteIdent(e.alias)
	if e.item.Kind == itemSpread {
		keys := c.outputKeys()
		aggs := make([]string, len(keys))
		for i, k := range keys {
			aggs[i] = "json_agg(" + a + "." + quoteIdent(k) + ")::jsonb AS " + quoteIdent(k)
		}
		return "SELECT " + strings.Join(aggs, ", ") + " FROM (" + q + ") AS " + a, nil
	}
	return "SELECT json_agg(" + a + ")::jsonb AS " + a + " FROM (" + q + ") AS " + a, nil
}

// joinCond relates child table alias c to parent qualifier p: a computed
// relationship calls its function with the parent row, a many-to-many goes
// through the junction (aliased per depth, so one junction may appear at
// two levels), anything else pairs the foreign key's columns.
func joinCond(e *embed, parentQual string) (from string, cond []string) {
	r := e.rel
	c := e.node.qual
	if r.Computed != nil {
		return quoteIdent(r.Computed.Schema) + "." + quoteIdent(r.Computed.Name) + "(" + parentQual + ".*) AS " + c, []string{"TRUE"}
	}
	from = quoteIdent(r.Foreign.Schema) + "." + quoteIdent(r.Foreign.Name) + " AS " + c
	if r.Card == m2m {
		j := quoteIdent(r.Junction.Name + "_" + strconv.Itoa(e.node.depth) + "_j")
		from += ", " + quoteIdent(r.Junction.Schema) + "." + quoteIdent(r.Junction.Name) + " AS " + j
		for i := range r.JFCols {
			cond = append(cond, j+"."+quoteIdent(r.JFCols[i])+" = "+c+"."+quoteIdent(r.FCols[i]))
		}
		for i := range r.JCols {
			cond = append(cond, j+"."+quoteIdent(r.JCols[i])+" = "+parentQual+"."+quoteIdent(r.Cols[i]))
		}
		return from, cond
	}
	for i := range r.Cols {
		cond = append(cond, c+"."+quoteIdent(r.FCols[i])+" = "+parentQual+"."+quoteIdent(r.Cols[i]))
	}
	return from, cond
}

// conds renders n's filters, logic trees and embedded null tests.
func (b *builder) conds(n *node) ([]string, error) {
	var out []string
	for _, f := range n.filters {
		s, err := b.filterSQL(n, f)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	for _, t := range n.trees {
		s, err := b.treeSQL(n, t)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// existsSQL is the semi-join used for rel=not.is.null, !inner counts. It
// repeats the embed's conditions (and its own !inner children) so that it
// holds exactly when the lateral join would find a row.
func (b *builder) existsSQL(n *node, e *embed) (string, error) {
	from, cond := joinCond(e, n.qual)
	cc, err := b.conds(e.node)
	if err != nil {
		return "", err
	}
	for _, g := range e.node.children {
		if g.item.Inner {
			s, err := b.existsSQL(e.node, g)
			if err != nil {
				return "", err
			}
			cc = append(cc, s)
		}
	}
	cond = append(cond, cc...)
	return "EXISTS (SELECT 1 FROM " + from + " WHERE " + strings.Join(cond, " AND ") + ")", nil
}

// orderSQL renders ORDER BY. Direction is always spelled out and NULLS
// only when asked, so Postgres's defaults (NULLS LAST ascending) apply as
// they do in PostgREST. Ordering by an embed's column is only possible for
// to-one embeds, whose lateral row is one value per parent.
func (b *builder) orderSQL(n *node) (string, error) {
	if len(n.order) == 0 {
		return "", nil
	}
	parts := make([]string, 0, len(n.order))
	for _, o := range n.order {
		var expr string
		if o.Rel != "" {
			if o.Err != nil {
				return "", o.Err
			}
			expr = quoteIdent(o.Embed.alias) + "." + quoteIdent(o.Field.outputKey())
		} else {
			expr = n.fieldExpr(o.Field)
		}
		if o.Desc {
			expr += " DESC"
		} else {
			expr += " ASC"
		}
		switch o.Nulls {
		case "first":
			expr += " NULLS FIRST"
		case "last":
			expr += " NULLS LAST"
		}
		parts = append(parts, expr)
	}
	return " ORDER BY " + strings.Join(parts, ", "), nil
}

// limitSQL renders LIMIT/OFFSET with bound values. db-max-rows caps every
// level, embeds included, as PostgREST applies it to each node. OFFSET 0
// is left out, so offset=0 and no offset share one statement text.
func (b *builder) limitSQL(n *node, top bool) string {
	var sb strings.Builder
	lim := n.limit
	if b.maxRows > 0 && (lim == nil || *lim > b.maxRows) {
		m := b.maxRows
		lim = &m
	}
	if lim != nil {
		sb.WriteString(" LIMIT " + b.arg(*lim))
	}
	if n.offset != nil && *n.offset > 0 {
		sb.WriteString(" OFFSET " + b.arg(*n.offset))
	}
	return sb.String()
}

// Conditions, after PostgREST's SqlFragment: each URL operator maps to one
// SQL operator or function, the column side is a quoted identifier (with
// its JSON path) and the value side is always a bound parameter.

// cmpOps are the binary operators; like/ilike take * for %, since % would
// have to be percent-encoded in a URL.
var cmpOps = map[string]string{"eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=",
	"like": "LIKE", "ilike": "ILIKE", "match": "~", "imatch": "~*",
	"cs": "@>", "cd": "<@", "ov": "&&", "sl": "<<", "sr": ">>", "nxr": "&<", "nxl": "&>", "adj": "-|-"}
