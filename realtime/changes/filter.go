package changes

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/basaltdev/basalt/internal/lazy"
)

// filterOps are the operators a postgres_changes filter may use.
var filterOps = &lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"eq": "=", "neq": "<>", "lt": "<", "lte": "<=", "gt": ">", "gte": ">=",
		"in": "= ANY", "like": "LIKE", "ilike": "ILIKE", "match": "~", "imatch": "~*",
		"is": "IS", "isdistinct": "IS DISTINCT FROM",
	}
}}

// maxInValues caps the items of an in filter, as the reference does.
const maxInValues = 100

// filter is one parsed col=[not.]op.value condition.
type filter struct {
	Column string
	Op     string
	Value  string // for in: a PostgreSQL array literal {a,b}
	Negate bool
}

// params are a binding's parsed parameters.
type params struct {
	action  string // *, INSERT, UPDATE, DELETE
	schema  string // "*" matches every schema
	table   string // "*" matches every table
	filters []filter
	selects []string // nil: every column
}

// parseParams reads a binding as the reference's parse_subscription_params.
func parseParams(b Binding) (params, error) {
	p := params{action: actionFilter(b.Event), selects: b.Select}
	if b.SelectInvalid {
		return p, fmt.Errorf("Error parsing `select` params: expected a list of column name strings, e.g. select: [\"col1\", \"col2\"]")
	}
	switch {
	case b.Schema != "" && b.Table != "":
		p.schema, p.table = b.Schema, b.Table
	case b.Schema != "" && !b.HasFilter:
		p.schema, p.table = b.Schema, "*"
	case b.Table != "" && !b.HasFilter:
		p.schema, p.table = "public", b.Table
	default:
		return p, fmt.Errorf("No subscription params provided. Please provide at least a `schema` or `table` to subscribe to: %s", b.raw())
	}
	if b.HasFilter {
		fs, err := parseFilters(b.Filter)
		if err != nil {
			return p, fmt.Errorf("Error parsing `filter` params: %s", err.Error())
		}
		p.filters = fs
	}
	if p.selects != nil && (p.schema == "*" || p.table == "*") {
		return p, fmt.Errorf("Column selection is not supported for wildcard subscriptions. Provide an explicit schema and table name.")
	}
	return p, nil
}

// actionFilter maps event to *, INSERT, UPDATE or DELETE (unknown means *).
func actionFilter(event string) string {
	switch e := strings.ToUpper(event); e {
	case "INSERT", "UPDATE", "DELETE":
		return e
	}
	return "*"
}

// parseFilters splits on top-level commas and parses each segment.
func parseFilters(s string) ([]filter, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []filter
	for _, seg := range splitTopLevel(s) {
		f, err := parseSegment(seg)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// splitTopLevel splits on commas outside parentheses and double quotes; a
// quote opens only after '.', '(' or ','.
func splitTopLevel(s string) []string {
	var parts []string
	var cur strings.Builder
	depth, quoted, prev := 0, false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quoted && c == '\\' && i+1 < len(s):
			cur.WriteByte(c)
			cur.WriteByte(s[i+1])
			prev = s[i+1]
			i++
			continue
		case quoted && c == '"':
			quoted = false
		case quoted:
		case c == '"' && (prev == '.' || prev == '(' || prev == ','):
			quoted = true
		case c == '(':
			depth++
		case c == ')':
			depth = max(0, depth-1)
		case c == ',' && depth == 0:
			parts = append(parts, cur.String())
			cur.Reset()
			prev = 0
			continue
		}
		cur.WriteByte(c)
		prev = c
	}
	return append(parts, cur.String())
}

// parseSegment reads col=[not.]op.value.
func parseSegment(seg string) (filter, error) {
	seg = strings.TrimSpace(seg)
	if seg == "" {
		return filter{}, fmt.Errorf("filter must not contain empty segments (check for extra commas)")
	}
	col, rest, ok := strings.Cut(seg, "=")
	if !ok {
		return filter{}, fmt.Errorf("%s", elixirList(seg))
	}
	negate := false
	if r, found := strings.CutPrefix(rest, "not."); found {
		negate, rest = true, r
	}
	op, value, ok := strings.Cut(rest, ".")
	if !ok {
		return filter{}, fmt.Errorf("%s", elixirList(rest))
	}
	if _, known := filterOps.Get()[op]; !known {
		return filter{}, fmt.Errorf("%s", elixirList(op, value))
	}
	if op == "in" {
		if len(value) < 2 || value[0] != '(' || value[len(value)-1] != ')' {
			return filter{}, fmt.Errorf("`in` filter value must be wrapped by parentheses")
		}
		value = "{" + value[1:len(value)-1] + "}"
	} else {
		value = unquote(value)
	}
	return filter{Column: col, Op: op, Value: value, Negate: negate}, nil
}

// unquote removes surrounding double quotes with \" and \\ escapes; a value
// that is not one well-formed quoted string stays as it is.
func unquote(v string) string {
	if len(v) < 2 || v[0] != '"' {
		return v
	}
	var b strings.Builder
	for i := 1; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\' && i+1 < len(v):
			b.WriteByte(v[i+1])
			i++
		case c == '"':
			if i == len(v)-1 {
				return b.String()
			}
			return v
		default:
			b.WriteByte(c)
		}
	}
	return v
}

// elixirList renders strings as Elixir's inspect shows a list of them.
func elixirList(items ...string) string {
	q := make([]string, len(items))
	for i, s := range items {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// describe renders the parameters for error messages the way the reference
// logs them: [event: *, schema: public, table: x, filters: [], select: nil].
func (p params) describe() string {
	fs := make([]string, len(p.filters))
	for i, f := range p.filters {
		op := f.Op
		if f.Negate {
			op = "not." + op
		}
		fs[i] = fmt.Sprintf("{%q, %q, %q}", f.Column, op, f.Value)
	}
	sel := "nil"
	if p.selects != nil {
		sel = elixirList(p.selects...)
	}
	return fmt.Sprintf("event: %s, schema: %s, table: %s, filters: [%s], select: %s",
		p.action, p.schema, p.table, strings.Join(fs, ", "), sel)
}

// matches reports whether a name matches a pattern where "*" is any.
func matches(pattern, name string) bool { return pattern == "*" || pattern == name }
