package rest

import (
	"fmt"
	"strings"
	"unicode"
)

// selectParam is the select parameter; absent or empty means all columns.
func selectParam(ps []param) string {
	sel, _ := first(ps, "select")
	return sel
}

// first returns the first value of key and whether it was present.
func first(ps []param, key string) (string, bool) {
	for _, p := range ps {
		if p.key == key {
			return p.value, true
		}
	}
	return "", false
}

// The URL grammar of the select parameter, after PostgREST's
// ApiRequest/QueryParams parser. A hand-written scanner instead of a
// parser library: the error text is part of the wire contract (PostgREST
// reports Parsec's "unexpected … expecting …" with a column number), and
// the scanner can count items and nesting as it goes (limits.go), so a
// hostile URL fails here rather than deep in Postgres.

// jsonOp is one step of a JSON path: -> keeps JSON, ->> yields text. Key is
// either a field name or an array index (IsIndex, possibly negative).
type jsonOp struct {
	Arrow   string
	Key     string
	IsIndex bool
}

// field is a column reference with an optional JSON path.
type field struct {
	Name string
	Path []jsonOp
}

// outputKey is the JSON key a field produces without an alias: the last
// path key, or the column name when the path has only indexes.
func (f field) outputKey() string {
	for i := len(f.Path) - 1; i >= 0; i-- {
		if !f.Path[i].IsIndex {
			return f.Path[i].Key
		}
	}
	return f.Name
}

// itemKind tells the shapes a select item can take; the SQL builder
// renders each kind differently (sql_select.go).
type itemKind int

const (
	itemField itemKind = iota
	itemStar
	itemCount // count() aggregate
	itemEmbed
	itemSpread
)

// selectItem is one entry of the select parameter.
type selectItem struct {
	Kind    itemKind
	Alias   string
	Field   field
	Cast    string
	Agg     string // sum avg count max min
	AggCast string
	// Embeds: Rel names the relationship as written, Hint disambiguates it
	// (rel!hint), Inner/Left are the !inner/!left join modifiers.
	Rel      string
	Hint     string
	Inner    bool
	Left     bool
	Children []*selectItem
}

// parseError is a grammar error rendered as PGRST100.
type parseError struct {
	what  string // "select parameter", "filter", ...
	input string
	col   int // 1-based
	msg   string
}

func (e *parseError) Error() string {
	return fmt.Sprintf("\"failed to parse %s (%s)\" (line 1, column %d)", e.what, e.input, e.col)
}

// scanner reads one parameter value. It works on runes, not bytes, so that
// error columns count characters as PostgREST's do for non-ASCII names.
type scanner struct {
	s     []rune
	pos   int
	what  string
	in    string
	terms int // items read so far (see maxTerms)
}

func newScanner(what, s string) *scanner { return &scanner{s: []rune(s), what: what, in: s} }

func (p *scanner) fail(format string, a ...any) *parseError {
	return &parseError{what: p.what, input: p.in, col: p.pos + 1, msg: fmt.Sprintf(format, a...)}
}

func (p *scanner) eof() bool { return p.pos >= len(p.s) }

func (p *scanner) peek() rune {
	if p.eof() {
		return 0
	}
	return p.s[p.pos]
}

func (p *scanner) has(prefix string) bool {
	r := []rune(prefix)
	if p.pos+len(r) > len(p.s) {
		return false
	}
	for i, c := range r {
		if p.s[p.pos+i] != c {
			return false
		}
	}
	return true
}

// skipSpace allows blanks between select items and around commas, which
// PostgREST's parser tolerates (clients format long selects over lines).
func (p *scanner) skipSpace() {
	for !p.eof() && unicode.IsSpace(p.s[p.pos]) {
		p.pos++
	}
}

// unexpected renders the "unexpected …" half of a Parsec-style message.
func (p *scanner) unexpected() string {
	if p.eof() {
		return "unexpected end of input"
	}
	return fmt.Sprintf("unexpected %q", string(p.s[p.pos]))
}

// isIdentRune is PostgREST's field-name alphabet: letters, digits, '_',
// '$' and spaces (a column may be named "first name" without quotes).
func isIdentRune(c rune) bool {
	return unicode.IsLetter(c) || unicode.IsDigit(c) || c == '_' || c == '$' || c == ' '
}

// name reads a quoted or bare identifier. Bare names may contain '-' unless
// it starts a JSON arrow.
func (p *scanner) name() (string, error) {
	if p.peek() == '"' {
		return p.quoted()
	}
	start := p.pos
	for !p.eof() {
		c := p.s[p.pos]
		if isIdentRune(c) || (c == '-' && !p.has("->")) {
			p.pos++
			continue
		}
		break
	}
	if p.pos == start {
		return "", p.fail("%s expecting field name (* or [a..z0..9_$])", p.unexpected())
	}
	return strings.TrimSpace(string(p.s[start:p.pos])), nil
}

// quoted reads "..." where backslash escapes the next character.
func (p *scanner) quoted() (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for {
		if p.eof() {
			return "", p.fail("unexpected end of input expecting \"\\\"\"")
		}
		c := p.s[p.pos]
		p.pos++
		switch c {
		case '\\':
			if p.eof() {
				return "", p.fail("unexpected end of input")
			}
			b.WriteRune(p.s[p.pos])
			p.pos++
		case '"':
			return b.String(), nil
		default:
			b.WriteRune(c)
		}
	}
}

// jsonPath reads *(("->"|"->>") (name | [-]digits)).
func (p *scanner) jsonPath() ([]jsonOp, error) {
	var ops []jsonOp
	for p.has("->") {
		if len(ops) == maxDepth {
			return nil, p.fail("JSON path of more than %d steps", maxDepth)
		}
		op := jsonOp{Arrow: "->"}
		p.pos += 2
		if p.peek() == '>' {
			op.Arrow = "->>"
			p.pos++
		}
		start := p.pos
		if p.peek() == '-' {
			p.pos++
		}
		digits := p.pos
		for !p.eof() && unicode.IsDigit(p.s[p.pos]) {
			p.pos++
		}
		// Digits followed by more name characters ("->2nd") are a key,
		// not an index: only a whole number indexes an array.
		if p.pos > digits && (p.eof() || !isIdentRune(p.peek())) {
			op.Key, op.IsIndex = string(p.s[start:p.pos]), true
		} else {
			p.pos = start
			k, err := p.name()
			if err != nil {
				return nil, err
			}
			op.Key = k
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// field reads a column name and its JSON path (col->a->>b).
func (p *scanner) field() (field, error) {
	n, err := p.name()
	if err != nil {
		return field{}, err
	}
	path, err := p.jsonPath()
	return field{Name: n, Path: path}, err
}

// cast reads "::" type; the type may hold letters, digits, '_', '$', spaces.
func (p *scanner) cast() (string, error) {
	if !p.has("::") {
		return "", nil
	}
	p.pos += 2
	start := p.pos
	for !p.eof() && (isIdentRune(p.s[p.pos])) {
		p.pos++
	}
	t := strings.TrimSpace(string(p.s[start:p.pos]))
	if t == "" {
		return "", p.fail("%s expecting cast type", p.unexpected())
	}
	return t, nil
}

// aggregates are the functions PostgREST allows after a field (col.sum());
// anything else is a parse error, so no other function name reaches SQL.
var aggregates = map[string]bool{"sum": true, "avg": true, "count": true, "max": true, "min": true}

// parseSelect parses the select parameter. Empty means all columns.
func parseSelect(s string) ([]*selectItem, error) {
	p := newScanner("select parameter", s)
	items, err := p.selectList(0)
	if err != nil {
		return nil, err
	}
	if !p.eof() {
		return nil, p.fail("%s expecting \",\" or end of input", p.unexpected())
	}
	return items, nil
}

// selectList reads comma-separated items up to the end of input or, inside
// an embed, the closing parenthesis; an empty list (rel()) is allowed, as
// PostgREST allows embedding a relation only to filter on it.
func (p *scanner) selectList(depth int) ([]*selectItem, error) {
	var items []*selectItem
	p.skipSpace()
	if p.eof() || (depth > 0 && p.peek() == ')') {
		return nil, nil
	}
	for {
		p.skipSpace()
		if err := p.term(); err != nil {
			return nil, err
		}
		it, err := p.selectItem(depth)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
		p.skipSpace()
		if p.peek() != ',' {
			return items, nil
		}
		p.pos++
	}
}

// embedTail reads what follows an embed's name: any number of !hint,
// !inner, !left modifiers, then the parenthesised child select. Only one
// free-form hint is allowed; a second is the error PostgREST gives.
func (p *scanner) embedTail(it *selectItem, depth int) error {
	for p.peek() == '!' {
		p.pos++
		h, err := p.name()
		if err != nil {
			return err
		}
		switch h {
		case "inner":
			it.Inner = true
		case "left":
			it.Left = true
		default:
			if it.Hint != "" {
				return p.fail("unexpected %q expecting \"(\"", "!")
			}
			it.Hint = h
		}
	}
	if p.peek() != '(' {
		return p.fail("%s expecting \"(\"", p.unexpected())
	}
	p.pos++
	if err := p.nest(depth + 1); err != nil {
		return err
	}
	children, err := p.selectList(depth + 1)
	if err != nil {
		return err
	}
	p.skipSpace()
	if p.peek() != ')' {
		return p.fail("%s expecting \")\"", p.unexpected())
	}
	p.pos++
	it.Children = children
	return nil
}

// selectItem reads one item: *, ...spread(…), [alias:]count(), an embed
// rel[!hint](…), or a field with JSON path, cast and aggregate. The order
// of the checks is the order of PostgREST's alternatives, so that an
// ambiguous item parses the same way on both servers.
func (p *scanner) selectItem(depth int) (*selectItem, error) {
	if p.peek() == '*' {
		p.pos++
		return &selectItem{Kind: itemStar}, nil
	}
	if p.has("...") {
		p.pos += 3
		rel, err := p.name()
		if err != nil {
			return nil, err
		}
		it := &selectItem{Kind: itemSpread, Rel: rel}
		return it, p.embedTail(it, depth)
	}
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	it := &selectItem{}
	// "alias:name", but not "name::cast".
	if p.peek() == ':' && !p.has("::") {
		p.pos++
		it.Alias = n
		p.skipSpace()
		// A spread has no key of its own to alias.
		if p.has("...") {
			return nil, p.fail("unexpected \".\" expecting field name")
		}
		if n, err = p.name(); err != nil {
			return nil, err
		}
	}
	// A bare count() counts rows; col.count() is an ordinary aggregate.
	if n == "count" && p.has("()") {
		p.pos += 2
		it.Kind = itemCount
		it.AggCast, err = p.cast()
		return it, err
	}
	if p.peek() == '!' || p.peek() == '(' {
		it.Kind, it.Rel = itemEmbed, n
		return it, p.embedTail(it, depth)
	}
	it.Kind = itemField
	it.Field.Name = n
	if it.Field.Path, err = p.jsonPath(); err != nil {
		return nil, err
	}
	if it.Cast, err = p.cast(); err != nil {
		return nil, err
	}
	// ".agg()" after a field; the dot is otherwise not part of a select.
	if p.peek() == '.' {
		p.pos++
		start := p.pos
		for !p.eof() && unicode.IsLetter(p.s[p.pos]) {
			p.pos++
		}
		agg := string(p.s[start:p.pos])
		if !aggregates[agg] || !p.has("()") {
			p.pos = start
			return nil, p.fail("%s expecting aggregate function", p.unexpected())
		}
		p.pos += 2
		it.Agg = agg
		if it.AggCast, err = p.cast(); err != nil {
			return nil, err
		}
	}
	return it, nil
}
