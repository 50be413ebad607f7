package studio

import (
	"fmt"
	"strings"

	"github.com/basaltdev/basalt/internal/lazy"
)

// The table editor filters and sorts with PostgREST's query syntax
// (`title=ilike.*rain*`, `plays=gte.10`, `id=in.(1,2)`, `order=plays.desc`),
// the same words supabase-js builds, rendered to SQL with every value as a
// parameter and every name checked against the table.

// filter is one `column=[not.]op.value` parameter.
type filter struct {
	Column string
	Not    bool
	Op     string
	Value  string
	List   []string // the items of in.(...)
}

// filterOps are the operators Studio renders.
var filterOps = &lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=",
		"like": "LIKE", "ilike": "ILIKE", "match": "~", "imatch": "~*",
		"is": "IS", "in": "IN", "cs": "@>", "cd": "<@", "ov": "&&",
	}
}}

// parseFilter reads the value of a filter parameter on column.
func parseFilter(column, raw string) (filter, error) {
	f := filter{Column: column}
	rest := raw
	if r, ok := strings.CutPrefix(rest, "not."); ok {
		f.Not, rest = true, r
	}
	op, value, ok := strings.Cut(rest, ".")
	if !ok {
		return f, fmt.Errorf("%s=%s: want operator.value, such as eq.5 or ilike.*rain*", column, raw)
	}
	if _, known := filterOps.Get()[op]; !known {
		return f, fmt.Errorf("%s=%s: unknown operator %q (eq, neq, gt, gte, lt, lte, like, ilike, match, imatch, is, in, cs, cd, ov)", column, raw, op)
	}
	f.Op, f.Value = op, value
	switch op {
	case "is":
		switch strings.ToLower(value) {
		case "null", "not_null", "true", "false", "unknown":
			f.Value = strings.ToLower(value)
		default:
			return f, fmt.Errorf("%s=%s: is takes null, not_null, true, false or unknown", column, raw)
		}
	case "in":
		list, err := parseList(value)
		if err != nil {
			return f, fmt.Errorf("%s=%s: %w", column, raw, err)
		}
		f.List = list
	case "like", "ilike":
		// PostgREST's * stands for %, so URLs need no escaping.
		f.Value = strings.ReplaceAll(value, "*", "%")
	}
	return f, nil
}

// parseList reads PostgREST's list syntax: (a,b,"c,d"), where a quoted item
// may hold commas and parentheses, and \" or \\ escape inside quotes.
func parseList(v string) ([]string, error) {
	if len(v) < 2 || v[0] != '(' || v[len(v)-1] != ')' {
		return nil, fmt.Errorf("in takes a list in parentheses: in.(1,2,3)")
	}
	body := v[1 : len(v)-1]
	var out []string
	if strings.TrimSpace(body) == "" {
		return []string{}, nil
	}
	var cur strings.Builder
	quoted, inQuotes, escaped := false, false, false
	for _, r := range body {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case inQuotes && r == '\\':
			escaped = true
		case r == '"':
			inQuotes = !inQuotes
			quoted = true
		case r == ',' && !inQuotes:
			out = append(out, item(cur.String(), quoted))
			cur.Reset()
			quoted = false
		default:
			cur.WriteRune(r)
		}
	}
	if inQuotes {
		return nil, fmt.Errorf("a quote in the list is not closed")
	}
	return append(out, item(cur.String(), quoted)), nil
}

func item(s string, quoted bool) string {
	if quoted {
		return s
	}
	return strings.TrimSpace(s)
}

// orderTerm is one item of order=.
type orderTerm struct {
	Column     string
	Desc       bool
	NullsFirst *bool
}

// parseOrder reads order=col.asc.nullslast,col2.desc.
func parseOrder(raw string) ([]orderTerm, error) {
	var out []orderTerm
	for _, part := range strings.Split(raw, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		words := strings.Split(part, ".")
		t := orderTerm{Column: words[0]}
		for _, w := range words[1:] {
			switch w {
			case "asc":
				t.Desc = false
			case "desc":
				t.Desc = true
			case "nullsfirst", "nullslast":
				b := w == "nullsfirst"
				t.NullsFirst = &b
			default:
				return nil, fmt.Errorf("order=%s: %q is not asc, desc, nullsfirst or nullslast", raw, w)
			}
		}
		if t.Column == "" {
			return nil, fmt.Errorf("order=%s: a term names no column", raw)
		}
		out = append(out, t)
	}
	return out, nil
}

// sqlBuilder collects a statement's conditions and parameters.
type sqlBuilder struct {
	args []any
}

func (b *sqlBuilder) arg(v any) string {
	b.args = append(b.args, v)
	return fmt.Sprintf("$%d", len(b.args))
}

// condition renders f on a column of type typ (format_type's text, read
// from the catalog).
func (b *sqlBuilder) condition(f filter, typ string) string {
	col := ident(f.Column)
	var c string
	switch f.Op {
	case "is":
		c = col + map[string]string{"null": " IS NULL", "not_null": " IS NOT NULL", "true": " IS TRUE",
			"false": " IS FALSE", "unknown": " IS UNKNOWN"}[f.Value]
	case "in":
		c = fmt.Sprintf("%s = ANY (CAST(%s::text[] AS %s[]))", col, b.arg(f.List), typ)
	case "like", "ilike", "match", "imatch":
		c = fmt.Sprintf("%s::text %s %s::text", col, filterOps.Get()[f.Op], b.arg(f.Value))
	default:
		c = fmt.Sprintf("%s %s CAST(%s::text AS %s)", col, filterOps.Get()[f.Op], b.arg(f.Value), typ)
	}
	if f.Not {
		return "NOT (" + c + ")"
	}
	return c
}
