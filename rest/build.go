package rest

import (
	"strconv"
	"strings"
)

// node is one level of a read: the root resource or an embedded one.
type node struct {
	table *Table
	name  string // table (or function) name, for lateral aliases
	qual  string // SQL qualifier for column references
	depth int
	items []*selectItem
	// expandStar lists columns instead of qual.* (sources that carry extra
	// bookkeeping columns, like upserts).
	expandStar bool

	filters  []*filter
	trees    []*logicTree
	order    []orderTerm
	limit    *int64
	offset   *int64
	children []*embed
}

// embed is a child node reached through a relationship.
type embed struct {
	item  *selectItem
	rel   *Relationship
	key   string // JSON key (alias or relation name as written)
	alias string // lateral alias: <parent>_<key>_<depth>
	node  *node
}

// builder accumulates bound arguments. Every value goes through arg, every
// identifier through quoteIdent.
type builder struct {
	args    []any
	maxRows int64
	aggs    bool // aggregates allowed
}

func (b *builder) arg(v any) string {
	b.args = append(b.args, v)
	return "$" + strconv.Itoa(len(b.args))
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

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

func (n *node) child(key string) *embed {
	for _, e := range n.children {
		if e.key == key {
			return e
		}
	}
	for _, e := range n.children {
		if e.item.Alias != "" && e.rel.Foreign.Name == key {
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
	if c := n.table.Column(f.Name); c != nil && c.JSONWrap {
		base = "to_jsonb(" + base + ")"
	}
	var sb strings.Builder
	sb.WriteString(base)
	for _, op := range f.Path {
		sb.WriteString(op.Arrow)
		if op.IsIndex {
			sb.WriteString(op.Key)
		} else {
			sb.WriteString(quoteLit(op.Key))
		}
	}
	return sb.String()
}

func castExpr(expr, cast string) string {
	if cast == "" {
		return expr
	}
	return "CAST(" + expr + " AS " + cast + ")"
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

func (n *node) embedFor(it *selectItem) *embed {
	for _, e := range n.children {
		if e.item == it {
			return e
		}
	}
	return nil
}

// selectList renders the select items of n. groupBy collects the
// non-aggregate expressions when aggregates are present.
func (b *builder) selectList(n *node) (sel []string, groupBy []string, err error) {
	items := n.items
	if len(items) == 0 {
		items = []*selectItem{{Kind: itemStar}}
	}
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

// joinCond relates child table alias c to parent qualifier p.
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

// existsSQL is the semi-join used for rel=not.is.null, !inner counts.
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

func errNotEmbedded(rel string) *apiError {
	return pgrstErr(400, "PGRST108", "'"+rel+"' is not an embedded resource in this request", nil,
		"Verify that '"+rel+"' is included in the 'select' query parameter.")
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

// readSQL renders the full SELECT for root node n over from.
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
