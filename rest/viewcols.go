package rest

import (
	"fmt"
	"strconv"
	"strings"
)

// A view's column lineage comes from its rewrite rule: pg_rewrite.ev_action
// is the view's query as a node tree, and each top-level target entry of
// that query records the table and column it was taken from (resorigtbl,
// resorigcol; 0 for expressions). This is how PostgREST maps a view column
// to the base-table column it exposes, under whatever name the view gives
// it, so keys and foreign keys carry over to views.

// viewColumn is one output column of a view and where it comes from.
type viewColumn struct {
	name   string
	table  uint32 // pg_class oid of the origin, 0 when computed
	attnum int    // column number in the origin
}

// viewColumnOrigins reads the top-level target list of the first query in
// a pg_node_tree text. Entries with no name or marked junk are skipped.
func viewColumnOrigins(tree string) ([]viewColumn, error) {
	toks := nodeTokens(tree)
	// The tree is a list of queries: ( {QUERY :field value ... } ... )
	if len(toks) < 3 || toks[0].text != "(" || toks[1].text != "{" || toks[2].text != "QUERY" {
		return nil, fmt.Errorf("rest: view rule is not a query list")
	}
	// Depth 2 is the first QUERY node's own fields; deeper :targetList
	// fields belong to subqueries and CTEs, whose columns the view does
	// not expose directly.
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.open():
			depth++
		case t.close():
			depth--
			if depth < 2 {
				return nil, nil // the first query ended without a target list
			}
		case depth == 2 && t.text == ":targetList":
			return targetEntries(toks[i+1:])
		}
	}
	return nil, nil
}

// targetEntries reads "( {TARGETENTRY ...} ... )" or "<>".
func targetEntries(toks []nodeToken) ([]viewColumn, error) {
	if len(toks) == 0 || toks[0].text != "(" {
		return nil, nil
	}
	// Each {TARGETENTRY …} at depth 2 is one output column; its fields are
	// collected as they come and the entry is kept when it closes.
	var out []viewColumn
	var cur viewColumn
	var junk, named bool
	depth := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.open():
			depth++
			if depth == 2 && t.text == "{" {
				cur, junk, named = viewColumn{}, false, false
			}
		case t.close():
			depth--
			if depth == 1 && t.text == "}" && named && !junk {
				out = append(out, cur)
			}
			if depth == 0 {
				return out, nil
			}
		case depth == 2 && strings.HasPrefix(t.text, ":") && !t.escaped && i+1 < len(toks):
			v := toks[i+1]
			switch t.text {
			case ":resname":
				if !(v.text == "<>" && !v.escaped) {
					cur.name, named = v.text, true
				}
			case ":resorigtbl":
				n, err := strconv.ParseUint(v.text, 10, 32)
				if err != nil {
					return nil, fmt.Errorf("rest: view rule: resorigtbl %q", v.text)
				}
				cur.table = uint32(n)
			case ":resorigcol":
				n, err := strconv.Atoi(v.text)
				if err != nil {
					return nil, fmt.Errorf("rest: view rule: resorigcol %q", v.text)
				}
				cur.attnum = n
			case ":resjunk":
				junk = v.text == "true"
			}
		}
	}
	return nil, fmt.Errorf("rest: view rule: unterminated target list")
}

// nodeToken is one token of PostgreSQL's node tree text: a bracket or a
// word. Words may contain backslash-escaped characters (spaces, brackets,
// a leading quote or digit in a name); escaped marks a word that had one,
// so an escaped "<>" or "(" is a name, not syntax.
type nodeToken struct {
	text    string
	escaped bool
}

func (t nodeToken) open() bool  { return !t.escaped && (t.text == "(" || t.text == "{") }
func (t nodeToken) close() bool { return !t.escaped && (t.text == ")" || t.text == "}") }

// nodeTokens splits node tree text the way PostgreSQL's own reader does:
// brackets are tokens of their own, whitespace separates words, and a
// backslash takes the next character literally.
func nodeTokens(s string) []nodeToken {
	var out []nodeToken
	var word strings.Builder
	inWord, escaped := false, false
	flush := func() {
		if inWord {
			out = append(out, nodeToken{text: word.String(), escaped: escaped})
			word.Reset()
			inWord, escaped = false, false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\n', '\t', '\r':
			flush()
		case '(', ')', '{', '}':
			flush()
			out = append(out, nodeToken{text: string(c)})
		case '\\':
			if i+1 < len(s) {
				i++
				word.WriteByte(s[i])
				inWord, escaped = true, true
			}
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return out
}
