package rest

import (
	"strconv"
	"strings"
)

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
			e := n.child(o.Rel)
			if e == nil {
				return "", errNotEmbedded(o.Rel)
			}
			if !e.rel.Card.toOne() {
				return "", pgrstErr(400, "PGRST118", "A related order on '"+o.Rel+"' is not possible",
					"'"+n.name+"' and '"+o.Rel+"' do not form a many-to-one or one-to-one relationship", nil)
			}
			expr = quoteIdent(e.alias) + "." + quoteIdent(o.Field.outputKey())
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
