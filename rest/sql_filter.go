package rest

import (
	"strings"
)

// Filters of a read or write: one operator of the URL grammar
// (?col=op.value) or a logic tree (or=(…), and=(…)) becomes a SQL
// condition with bound values. sql_select.go calls filterSQL and treeSQL
// for every condition it renders.

// ftsFuncs map the full-text operators to the tsquery constructor of the
// same meaning (plain, phrase, websearch syntax).
var ftsFuncs = map[string]string{"fts": "to_tsquery", "plfts": "plainto_tsquery", "phfts": "phraseto_tsquery", "wfts": "websearch_to_tsquery"}

// pgArray renders items as a Postgres array literal with every element
// double-quoted, so commas and braces inside values stay literal.
func pgArray(items []string) string {
	var sb strings.Builder
	sb.WriteByte('{')
	for i, it := range items {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteByte('"')
		sb.WriteString(strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(it))
		sb.WriteByte('"')
	}
	sb.WriteByte('}')
	return sb.String()
}

// filterSQL renders one condition on node n. A bare embed name with is.null
// or not.is.null becomes an anti/semi-join on that embed.
func (b *builder) filterSQL(n *node, f *filter) (string, error) {
	if len(f.Field.Path) == 0 {
		if e := f.Embed; e != nil && n.table.Column(f.Field.Name) == nil {
			if f.Op != "is" || (f.Value != "null" && f.Value != "not_null") {
				return "", pgrstErr(400, "PGRST120", "Bad operator on the '"+f.Field.Name+"' embedded resource",
					"Only is null or not is null filters are allowed on embedded resources", nil)
			}
			ex, err := b.existsSQL(n, e)
			if err != nil {
				return "", err
			}
			null := f.Value == "null"
			if f.Not {
				null = !null
			}
			if null {
				return "NOT " + ex, nil
			}
			return ex, nil
		}
	}
	lhs := n.fieldExpr(f.Field)
	var s string
	switch op := f.Op; {
	// IS takes a keyword, never a parameter; the grammar allowed only
	// these five.
	case op == "is":
		s = lhs + " IS " + map[string]string{"null": "NULL", "not_null": "NOT NULL", "true": "TRUE",
			"false": "FALSE", "unknown": "UNKNOWN"}[f.Value]
	// in.(…) binds one array literal, not one parameter per item, so the
	// statement text does not change with the list's length.
	case op == "in":
		s = lhs + " = ANY (" + b.arg(pgArray(f.List)) + ")"
	case op == "isdistinct":
		s = lhs + " IS DISTINCT FROM " + b.arg(f.Value)
	case ftsFuncs[op] != "":
		col := lhs
		// A tsvector column is searched as it is; any other value is
		// turned into one first, with the same language as the query.
		c := n.table.Column(f.Field.Name)
		tsv := c != nil && c.TSVector && len(f.Field.Path) == 0
		if f.Lang != "" {
			lang := b.arg(f.Lang)
			if !tsv {
				col = "to_tsvector(" + lang + ", " + lhs + ")"
			}
			s = col + " @@ " + ftsFuncs[op] + "(" + lang + ", " + b.arg(f.Value) + ")"
		} else {
			if !tsv {
				col = "to_tsvector(" + lhs + ")"
			}
			s = col + " @@ " + ftsFuncs[op] + "(" + b.arg(f.Value) + ")"
		}
	default:
		sqlOp := cmpOps[op]
		v := f.Value
		if op == "like" || op == "ilike" {
			v = strings.ReplaceAll(v, "*", "%")
		}
		// eq(any).{a,b} compares with each element of an array value.
		if f.Quant != "" {
			s = lhs + " " + sqlOp + " " + strings.ToUpper(f.Quant) + "(" + b.arg(v) + ")"
		} else {
			s = lhs + " " + sqlOp + " " + b.arg(v)
		}
	}
	if f.Not {
		return "NOT " + s, nil
	}
	return s, nil
}

// treeSQL renders and=(…)/or=(…) recursively, parenthesised at every
// level so that precedence never depends on the surrounding SQL.
func (b *builder) treeSQL(n *node, t *logicTree) (string, error) {
	parts := make([]string, 0, len(t.Children))
	for _, c := range t.Children {
		var s string
		var err error
		if c.Tree != nil {
			s, err = b.treeSQL(n, c.Tree)
		} else {
			s, err = b.filterSQL(n, c.Filter)
		}
		if err != nil {
			return "", err
		}
		parts = append(parts, s)
	}
	joiner := " AND "
	if t.Op == "or" {
		joiner = " OR "
	}
	s := "(" + strings.Join(parts, joiner) + ")"
	if t.Not {
		s = "NOT " + s
	}
	return s, nil
}
