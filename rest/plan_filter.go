package rest

import (
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/basaltdev/basalt/internal/httpx"
)

// The query string's filters, logic trees, order and paging: where each
// goes in the tree, then their grammar. A parameter is addressed by a
// dotted path of embed names (actors.roles.order=…); the last part says
// what it is, so one parameter can target any level of the tree.

// applyQuery distributes the query string over the tree (applyParams) and
// folds the Range header into the root's page (pageBounds). isArg, on GET
// /rpc, skips the parameters that are the function's arguments.
func applyQuery(rc *reqCtx, root *node, isArg func(p param) bool) error {
	if err := applyParams(root, rc.params, isArg); err != nil {
		return err
	}
	return pageBounds(rc, root)
}

// reserved parameters are never filters.
var reserved = map[string]bool{"select": true, "columns": true, "on_conflict": true}

// applyParams distributes filters, trees, order and paging to the nodes
// they name. isArg reports parameters that are RPC arguments (GET /rpc).
func applyParams(root *node, ps []param, isArg func(p param) bool) error {
	for _, p := range ps {
		if reserved[p.key] || (isArg != nil && isArg(p)) {
			continue
		}
		parts, err := splitKey(p.key)
		if err != nil {
			return err
		}
		last := parts[len(parts)-1]
		path := parts[:len(parts)-1]
		// not.or=(…) negates a whole tree; "not" is then the last path
		// part, not an embed.
		not := false
		if (last == "or" || last == "and") && len(path) > 0 && path[len(path)-1] == "not" {
			not, path = true, path[:len(path)-1]
		}
		target := root
		for i, seg := range path {
			e := target.child(unquote(seg))
			if e == nil {
				return errNotEmbedded(strings.Join(path[:i+1], "."))
			}
			target = e.node
		}
		switch last {
		case "order":
			o, err := parseOrder(p.value)
			if err != nil {
				return err
			}
			for i := range o {
				target.relatedOrder(&o[i])
			}
			target.order = append(target.order, o...)
		case "limit":
			if n, ok := parseInt(p.value); ok {
				target.limit = &n
			}
		case "offset":
			if n, ok := parseInt(p.value); ok {
				target.offset = &n
			}
		case "or", "and":
			t, err := parseLogicTree(last, not, p.value)
			if err != nil {
				return err
			}
			target.embedFilters(t)
			target.trees = append(target.trees, t)
		default:
			f, err := parseFieldString("filter", last)
			if err != nil {
				return err
			}
			flt, err := parseFilterValue(f, p.value)
			if err != nil {
				return err
			}
			target.embedFilter(flt)
			target.filters = append(target.filters, flt)
		}
	}
	return nil
}

// embedFilter links a filter on a bare name to the embed of that name, if
// any: rel=is.null tests the embed, not a column (the SQL stage decides,
// since a column of the same name wins).
func (n *node) embedFilter(f *filter) {
	if len(f.Field.Path) == 0 {
		f.Embed = n.child(f.Field.Name)
	}
}

// embedFilters links every filter of a logic tree, at any depth.
func (n *node) embedFilters(t *logicTree) {
	for _, c := range t.Children {
		if c.Tree != nil {
			n.embedFilters(c.Tree)
		} else {
			n.embedFilter(c.Filter)
		}
	}
}

// relatedOrder resolves order=rel(col): rel must be an embed of n, and a
// to-one one, whose lateral row is a single value per parent row.
func (n *node) relatedOrder(o *orderTerm) {
	if o.Rel == "" {
		return
	}
	e := n.child(o.Rel)
	switch {
	case e == nil:
		o.Err = errNotEmbedded(o.Rel)
	case !e.rel.Card.toOne():
		o.Err = pgrstErr(400, "PGRST118", "A related order on '"+o.Rel+"' is not possible",
			"'"+n.name+"' and '"+o.Rel+"' do not form a many-to-one or one-to-one relationship", nil)
	default:
		o.Embed = e
	}
}

// errNotEmbedded is PGRST108: a parameter or an order names an embed the
// select does not have.
func errNotEmbedded(rel string) *apiError {
	return pgrstErr(400, "PGRST108", "'"+rel+"' is not an embedded resource in this request", nil,
		"Verify that '"+rel+"' is included in the 'select' query parameter.")
}

// child finds the embed a path segment names: its key (alias or name as
// written), or its related table's name when it was aliased, since
// PostgREST accepts either for filters on an aliased embed.
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

// unquote strips the double quotes of a quoted path segment ("a.b").
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// pageBounds folds limit/offset and (on GET) the Range header together.
func pageBounds(rc *reqCtx, root *node) error {
	if hasNegativeLimit(root) {
		return rangeErr("Limit should be greater than or equal to zero.")
	}
	// Only a GET is paged by Range, as in PostgREST; other methods
	// ignore the header.
	if rc.r.Method != http.MethodGet {
		return nil
	}
	h := rc.r.Header.Get("Range")
	if h == "" {
		return nil
	}
	// A Range outside the grammar is ignored, not an error.
	lo, hi, ok := rangeHeader(h)
	if !ok {
		return nil
	}
	if hi != nil && lo > *hi {
		return rangeErr("The lower boundary must be lower than or equal to the upper boundary in the Range header.")
	}
	// Intersect [offset, offset+limit) with [lo, hi+1). The ends are
	// exclusive and unsigned: two non-negative int64s add without wrapping.
	off := int64(0)
	if root.offset != nil {
		off = *root.offset
	}
	stop, bounded := uint64(0), false
	if root.limit != nil {
		stop, bounded = uint64(off)+uint64(*root.limit), true
	}
	if lo > off {
		off = lo
	}
	if hi != nil && (!bounded || uint64(*hi)+1 < stop) {
		stop, bounded = uint64(*hi)+1, true
	}
	root.offset = &off
	if bounded {
		l := int64(0)
		if stop > uint64(off) {
			l = int64(min(stop-uint64(off), math.MaxInt64))
		}
		root.limit = &l
	}
	return nil
}

// rangeHeader parses "Range: a-b" / "a-" (an optional "items=" is allowed)
// with PostgREST's grammar: decimal digits only, anything else is ignored.
// Bounds beyond int64 read as math.MaxInt64 (past every row).
func rangeHeader(h string) (lo int64, hi *int64, ok bool) {
	h = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(h), "items="))
	a, b, found := strings.Cut(h, "-")
	if !found {
		return 0, nil, false
	}
	l, ok := httpx.ParseDigits(a)
	if !ok {
		return 0, nil, false
	}
	if b == "" {
		return l, nil, true
	}
	u, ok := httpx.ParseDigits(b)
	if !ok {
		return 0, nil, false
	}
	return l, &u, true
}

// hasNegativeLimit walks the tree for a limit below zero (416 PGRST103).
func hasNegativeLimit(n *node) bool {
	if n.limit != nil && *n.limit < 0 {
		return true
	}
	for _, e := range n.children {
		if hasNegativeLimit(e.node) {
			return true
		}
	}
	return false
}

// The grammar of filters, logic trees, order and column lists, after
// PostgREST's QueryParams parser. Values are kept as the raw text of the
// URL: they go to Postgres as untyped parameters (execute_pipeline.go), so the
// column's type decides how "5" or "2024-01-01" is read, as in PostgREST.

// filter is one horizontal condition: [not.]op[(any|all)][(lang)].value.
type filter struct {
	Field field
	Not   bool
	Op    string
	Quant string   // any, all
	Lang  string   // fts config
	Value string   // raw value
	List  []string // in.(…) items
	// Embed is the embed a bare name refers to (rel=not.is.null), found
	// when the plan places the filter; the SQL stage only renders it.
	Embed *embed
}

// logicTree is and=(…)/or=(…), possibly negated and nested.
type logicTree struct {
	Op       string // and, or
	Not      bool
	Children []logicNode
}

// logicNode is a leaf filter, an embedded null test, or a subtree.
type logicNode struct {
	Filter *filter
	Tree   *logicTree
}

// orderTerm is one ORDER BY item; Rel is set for order=rel(col).
type orderTerm struct {
	Rel   string
	Field field
	Desc  bool
	Nulls string // "", first, last
	// For order=rel(col), the plan finds the embed Rel names (Embed), or
	// why it cannot order by it (Err: PGRST108, PGRST118). orderSQL raises
	// Err only when it reaches the term, so a request with several faults
	// reports the one the SQL meets first, as before the plan resolved it.
	Embed *embed
	Err   error
}

// The operator families differ in what may follow the name: quantOps take
// (any)/(all) over an array value, ftsOps an optional (language), simpleOps
// nothing. The split mirrors PostgREST's operator tables, so an operator
// it rejects with a modifier is rejected here too.
var quantOps = map[string]bool{"eq": true, "gte": true, "gt": true, "lte": true, "lt": true,
	"like": true, "ilike": true, "match": true, "imatch": true}
var simpleOps = map[string]bool{"neq": true, "cs": true, "cd": true, "ov": true, "sl": true,
	"sr": true, "nxr": true, "nxl": true, "adj": true, "isdistinct": true}
var ftsOps = map[string]bool{"fts": true, "plfts": true, "phfts": true, "wfts": true}

// isValues are the only operands of is: IS takes keywords, not values.
var isValues = map[string]bool{"null": true, "not_null": true, "true": true, "false": true, "unknown": true}

// looksLikeFilter reports whether v starts with a known operator, which
// decides on GET /rpc whether a parameter is a filter or an argument.
func looksLikeFilter(v string) bool {
	v = strings.TrimPrefix(v, "not.")
	op := v
	if i := strings.IndexAny(v, ".("); i >= 0 {
		op = v[:i]
	}
	return quantOps[op] || simpleOps[op] || ftsOps[op] || op == "is" || op == "in"
}

// parseFilterValue parses the value side of a top-level filter. The value
// after the operator is taken verbatim to the end of the parameter.
func parseFilterValue(f field, raw string) (*filter, error) {
	p := newScanner("filter", raw)
	flt := &filter{Field: f}
	if p.has("not.") {
		flt.Not = true
		p.pos += 4
	}
	if err := p.operator(flt, false); err != nil {
		return nil, err
	}
	return flt, nil
}

// operator parses op[...] "." value. inTree limits the value to the next
// ',' or ')' (respecting quotes and braces), as in logic trees.
func (p *scanner) operator(flt *filter, inTree bool) error {
	start := p.pos
	for !p.eof() && p.s[p.pos] >= 'a' && p.s[p.pos] <= 'z' {
		p.pos++
	}
	op := string(p.s[start:p.pos])
	flt.Op = op
	switch {
	case quantOps[op]:
		if p.has("(any)") || p.has("(all)") {
			flt.Quant = string(p.s[p.pos+1 : p.pos+4])
			p.pos += 5
		}
	case ftsOps[op]:
		if p.peek() == '(' {
			p.pos++
			ls := p.pos
			for !p.eof() && p.s[p.pos] != ')' {
				p.pos++
			}
			if p.eof() {
				return p.fail("unexpected end of input expecting \")\"")
			}
			flt.Lang = string(p.s[ls:p.pos])
			p.pos++
		}
	case simpleOps[op], op == "is", op == "in":
	default:
		p.pos = start
		return p.fail("%s expecting operator (eq, gt, ...)", p.unexpected())
	}
	if p.peek() != '.' {
		return p.fail("%s expecting \".\"", p.unexpected())
	}
	p.pos++
	// in and is have operands with a grammar of their own; every other
	// operator takes the rest of the value verbatim (top level) or up to
	// the next separator (inside a logic tree).
	switch op {
	case "in":
		list, err := p.inList()
		if err != nil {
			return err
		}
		flt.List = list
		if !inTree && !p.eof() {
			return p.fail("%s expecting end of input", p.unexpected())
		}
		return nil
	case "is":
		// IS NULL / IS TRUE are keywords, so any case is accepted and the
		// lower-cased form is what the SQL builder maps.
		v := p.treeValue(inTree)
		lv := strings.ToLower(v)
		if !isValues[lv] {
			return p.fail("unexpected %q expecting null or trilean value (unknown, true, false)", v)
		}
		flt.Value = lv
		return nil
	}
	if inTree {
		flt.Value = p.treeValue(true)
	} else {
		flt.Value = string(p.s[p.pos:])
		p.pos = len(p.s)
	}
	return nil
}

// inList parses "(" item *("," item) ")" where items may be double-quoted.
func (p *scanner) inList() ([]string, error) {
	if p.peek() != '(' {
		return nil, p.fail("%s expecting \"(\"", p.unexpected())
	}
	p.pos++
	// in.() is an empty list (matches nothing), not a parse error.
	list := []string{}
	if p.peek() == ')' {
		p.pos++
		return list, nil
	}
	for {
		var v string
		if p.peek() == '"' {
			q, err := p.quoted()
			if err != nil {
				return nil, err
			}
			v = q
		} else {
			start := p.pos
			for !p.eof() && p.s[p.pos] != ',' && p.s[p.pos] != ')' {
				p.pos++
			}
			v = string(p.s[start:p.pos])
		}
		list = append(list, v)
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
			p.pos++
			return list, nil
		default:
			return nil, p.fail("%s expecting \",\" or \")\"", p.unexpected())
		}
	}
}

// treeValue reads a value inside a logic tree: quoted, a {…} literal kept
// verbatim, or characters up to ',' or ')'.
func (p *scanner) treeValue(inTree bool) string {
	if !inTree {
		v := string(p.s[p.pos:])
		p.pos = len(p.s)
		return v
	}
	if p.peek() == '"' {
		if q, err := p.quoted(); err == nil {
			return q
		}
	}
	// Braces nest: an array or range literal such as {1,2} or [1,3) may
	// hold commas that do not end the value.
	start := p.pos
	depth := 0
	for !p.eof() {
		c := p.s[p.pos]
		switch {
		case c == '{':
			depth++
		case c == '}' && depth > 0:
			depth--
		case (c == ',' || c == ')') && depth == 0:
			return string(p.s[start:p.pos])
		}
		p.pos++
	}
	return string(p.s[start:p.pos])
}

// parseLogicTree parses the value of an or=/and= parameter.
func parseLogicTree(op string, not bool, raw string) (*logicTree, error) {
	p := newScanner("logic tree", raw)
	t, err := p.treeBody(op, not, 1)
	if err != nil {
		return nil, err
	}
	if !p.eof() {
		return nil, p.fail("%s expecting end of input", p.unexpected())
	}
	return t, nil
}

// treeBody parses "(" term *("," term) ")" at the given nesting depth.
func (p *scanner) treeBody(op string, not bool, depth int) (*logicTree, error) {
	if p.peek() != '(' {
		return nil, p.fail("%s expecting \"(\"", p.unexpected())
	}
	if err := p.nest(depth); err != nil {
		return nil, err
	}
	p.pos++
	t := &logicTree{Op: op, Not: not}
	for {
		if err := p.term(); err != nil {
			return nil, err
		}
		n, err := p.treeTerm(depth)
		if err != nil {
			return nil, err
		}
		t.Children = append(t.Children, n)
		switch p.peek() {
		case ',':
			p.pos++
		case ')':
			p.pos++
			return t, nil
		default:
			return nil, p.fail("%s expecting \",\" or \")\"", p.unexpected())
		}
	}
}

// treeTerm reads one term of a logic tree: a nested [not.]or(…)/and(…),
// or field.[not.]op.value. A field named "or" or "and" is only a subtree
// when an opening parenthesis follows, as in PostgREST.
func (p *scanner) treeTerm(depth int) (logicNode, error) {
	not := false
	save := p.pos
	if p.has("not.") {
		not = true
		p.pos += 4
	}
	for _, op := range []string{"or", "and"} {
		if p.has(op + "(") {
			p.pos += len(op)
			t, err := p.treeBody(op, not, depth+1)
			return logicNode{Tree: t}, err
		}
	}
	p.pos = save
	f, err := p.field()
	if err != nil {
		return logicNode{}, err
	}
	if p.peek() != '.' {
		return logicNode{}, p.fail("%s expecting \".\"", p.unexpected())
	}
	p.pos++
	flt := &filter{Field: f}
	if p.has("not.") {
		flt.Not = true
		p.pos += 4
	}
	if err := p.operator(flt, true); err != nil {
		return logicNode{}, err
	}
	return logicNode{Filter: flt}, nil
}

// parseOrder parses order=term,term. A term is a field (with JSON path)
// or rel(field) for ordering by a to-one embed's column, followed by any of
// .asc/.desc/.nullsfirst/.nullslast; a later modifier wins, as in PostgREST.
func parseOrder(raw string) ([]orderTerm, error) {
	p := newScanner("order", raw)
	var terms []orderTerm
	for {
		p.skipSpace()
		if err := p.term(); err != nil {
			return nil, err
		}
		var t orderTerm
		f, err := p.field()
		if err != nil {
			return nil, err
		}
		if p.peek() == '(' {
			p.pos++
			t.Rel = f.Name
			if f, err = p.field(); err != nil {
				return nil, err
			}
			if p.peek() != ')' {
				return nil, p.fail("%s expecting \")\"", p.unexpected())
			}
			p.pos++
		}
		t.Field = f
		for p.peek() == '.' {
			p.pos++
			start := p.pos
			for !p.eof() && p.s[p.pos] != '.' && p.s[p.pos] != ',' {
				p.pos++
			}
			switch tok := string(p.s[start:p.pos]); tok {
			case "asc":
				t.Desc = false
			case "desc":
				t.Desc = true
			case "nullsfirst":
				t.Nulls = "first"
			case "nullslast":
				t.Nulls = "last"
			default:
				p.pos = start
				return nil, p.fail("%s expecting \"asc\", \"desc\", \"nullsfirst\" or \"nullslast\"", p.unexpected())
			}
		}
		terms = append(terms, t)
		if p.eof() {
			return terms, nil
		}
		if p.peek() != ',' {
			return nil, p.fail("%s expecting \",\" or end of input", p.unexpected())
		}
		p.pos++
	}
}

// parseColumns parses columns=a,b or columns="a","b" (also on_conflict).
// Names only: a JSON path or cast has no meaning for a written column.
func parseColumns(what, raw string) ([]string, error) {
	p := newScanner(what, raw)
	var cols []string
	for {
		p.skipSpace()
		if err := p.term(); err != nil {
			return nil, err
		}
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		cols = append(cols, n)
		p.skipSpace()
		if p.eof() {
			return cols, nil
		}
		if p.peek() != ',' {
			return nil, p.fail("%s expecting \",\" or end of input", p.unexpected())
		}
		p.pos++
	}
}

// splitKey splits a parameter name into its dot-separated parts, keeping
// quoted parts (which may contain dots) whole. The last part may carry a
// JSON path.
func splitKey(key string) ([]string, error) {
	p := newScanner("tree path", key)
	var parts []string
	for {
		start := p.pos
		if p.peek() == '"' {
			if _, err := p.quoted(); err != nil {
				return nil, err
			}
		}
		for !p.eof() && p.s[p.pos] != '.' {
			if p.s[p.pos] == '"' {
				if _, err := p.quoted(); err != nil {
					return nil, err
				}
				continue
			}
			p.pos++
		}
		parts = append(parts, string(p.s[start:p.pos]))
		if p.eof() {
			return parts, nil
		}
		p.pos++
	}
}

// parseFieldString parses a column name with an optional JSON path.
func parseFieldString(what, s string) (field, error) {
	p := newScanner(what, s)
	f, err := p.field()
	if err != nil {
		return f, err
	}
	if !p.eof() {
		return f, p.fail("%s expecting end of input", p.unexpected())
	}
	return f, nil
}

// parseInt reads limit/offset. A value that is not a number is ignored,
// not an error: PostgREST drops it the same way. Negative values are kept
// so that paging can answer 416 for them (pageBounds).
func parseInt(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
