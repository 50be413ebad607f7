package rest

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The tree of a read: the root resource and, for every embed in the select,
// a child node reached through a relationship of the schema cache. A name
// that resolves to nothing gets PostgREST's "Perhaps you meant" hint from
// the fuzzy matching at the end of this file, which the table and function
// lookups use too.

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

// buildTree resolves the embeds of items under a root resource.
func (s *Service) buildTree(c *Cache, t *Table, name, qual string, items []*selectItem) (*node, error) {
	root := &node{table: t, name: name, qual: qual, items: items}
	if err := s.resolveEmbeds(c, root); err != nil {
		return nil, err
	}
	return root, nil
}

func (s *Service) resolveEmbeds(c *Cache, n *node) error {
	for _, it := range n.items {
		if it.Kind != itemEmbed && it.Kind != itemSpread {
			continue
		}
		rel, err := c.findRelationship(n.table, it.Rel, it.Hint)
		if err != nil {
			return err
		}
		key := it.Rel
		if it.Alias != "" {
			key = it.Alias
		}
		d := n.depth + 1
		child := &node{table: rel.Foreign, name: rel.Foreign.Name, depth: d, items: it.Children,
			qual: quoteIdent(rel.Foreign.Name + "_" + strconv.Itoa(d))}
		e := &embed{item: it, rel: rel, key: key, node: child,
			alias: n.name + "_" + key + "_" + strconv.Itoa(d)}
		n.children = append(n.children, e)
		if err := s.resolveEmbeds(c, child); err != nil {
			return err
		}
	}
	return nil
}

// findRelationship resolves an embed rel[!hint] from parent p, following
// PostgREST: without a hint rel names the related table, the foreign key
// constraint or the single FK column on p's side; with a hint rel is the
// related table and the hint picks the constraint, a column or the
// junction table.
func (c *Cache) findRelationship(p *Table, rel, hint string) (*Relationship, error) {
	var found []*Relationship
	for _, r := range c.Rels[p.Schema+"."+p.Name] {
		if relMatches(r, rel, hint) {
			found = append(found, r)
		}
	}
	// Exactly one match embeds; none is PGRST200 with a fuzzy hint; more
	// than one is PGRST201 (300 Multiple Choices), listing every candidate
	// so the client can pick one with a !hint.
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		details := "Searched for a foreign key relationship between '" + p.Name + "' and '" + rel + "'"
		if hint != "" {
			details += " using the hint '" + hint + "'"
		}
		details += " in the schema '" + p.Schema + "', but no matches were found."
		return nil, &apiError{Status: 400, Code: "PGRST200",
			Message: "Could not find a relationship between '" + p.Name + "' and '" + rel + "' in the schema cache",
			Details: details, Hint: c.relHint(p, rel)}
	}
	details := make([]any, len(found))
	hints := make([]string, len(found))
	for i, r := range found {
		details[i] = r.describe()
		hints[i] = "'" + r.hintName() + "'"
	}
	return nil, &apiError{Status: 300, Code: "PGRST201",
		Message: "Could not embed because more than one relationship was found for '" + p.Name + "' and '" + rel + "'",
		Details: details,
		Hint:    "Try changing '" + rel + "' to one of the following: " + strings.Join(hints, ", ") + ". Find the desired relationship in the 'details' key."}
}

// single reports whether cols is the one column name: a column addresses a
// relationship only when the foreign key has that column alone.
func single(cols []string, name string) bool { return len(cols) == 1 && cols[0] == name }

// relMatches is PostgREST's relationship filter for one candidate.
// Computed relationships are addressed by the function's name only and
// take no hint.
func relMatches(r *Relationship, rel, hint string) bool {
	if r.Computed != nil {
		return r.Computed.Name == rel && hint == ""
	}
	if r.SelfRef && r.Card != m2m {
		return selfRelMatches(r, rel, hint)
	}
	if hint == "" {
		if r.Foreign.Name == rel {
			return true
		}
		if r.Card == m2m {
			return false
		}
		// Constraint and column names only address relationships between
		// tables, not the ones inferred for views.
		if r.Table.IsView() || r.Foreign.IsView() {
			return false
		}
		if r.Constraint == rel {
			return true
		}
		// The FK column on the parent side names a to-one embed.
		return r.Card.toOne() && single(r.Cols, rel)
	}
	// With a hint, rel must name the related table, and the hint picks
	// among the relationships to it.
	if r.Foreign.Name != rel {
		return false
	}
	if r.Card == m2m {
		return r.Junction.Name == hint || r.JConstraint1 == hint || r.JConstraint2 == hint
	}
	if r.Constraint == hint {
		return true
	}
	return single(r.Cols, hint) || single(r.FCols, hint)
}

// selfRelMatches reads an embed of a table that references itself, where
// one foreign key gives two relationships, as PostgREST does: the table
// name means the rows that point here (one-to-many), with a hint naming the
// referencing column; the referencing column's name means the row this one
// points to (many-to-one). A constraint name addresses neither.
func selfRelMatches(r *Relationship, rel, hint string) bool {
	if hint != "" {
		return r.Foreign.Name == rel && r.Card == o2m && single(r.FCols, hint)
	}
	return (r.Foreign.Name == rel && r.Card == o2m) || (r.Card == m2o && single(r.Cols, rel))
}

// relHint suggests a related table close to rel when p has relationships,
// else a table close to p among those that have some (PostgREST's order).
func (c *Cache) relHint(p *Table, rel string) any {
	rels := c.Rels[p.Schema+"."+p.Name]
	if len(rels) > 0 {
		seen := map[string]bool{}
		var names []string
		for _, r := range rels {
			if !seen[r.Foreign.Name] {
				seen[r.Foreign.Name] = true
				names = append(names, r.Foreign.Name)
			}
		}
		if best := fuzzyBest(rel, names, fuzzyParams); best != "" {
			return "Perhaps you meant '" + best + "' instead of '" + rel + "'."
		}
		return nil
	}
	var parents []string
	for k, rs := range c.Rels {
		if len(rs) > 0 && rs[0].Table.Schema == p.Schema {
			parents = append(parents, k[len(p.Schema)+1:])
		}
	}
	sort.Strings(parents)
	if best := fuzzyBest(p.Name, parents, fuzzyParams); best != "" {
		return "Perhaps you meant '" + best + "' instead of '" + p.Name + "'."
	}
	return nil
}

// The "Perhaps you meant …" hints of PGRST200/202/205 come from a fuzzy
// set, as in PostgREST: names are compared by cosine similarity of their
// 3-gram (then 2-gram) counts of letters and digits, the best candidates
// are re-ranked by the Levenshtein distance of the lower-cased names
// (underscores and all), and a suggestion must score above a minimum:
// fuzzyNames for table and function names, fuzzyParams for parameter lists
// and relationships (PostgREST 14).
const (
	fuzzyNames  = 0.75
	fuzzyParams = 0.33
)

// fuzzyNormalize keeps what the fuzzy set compares: lower-cased letters,
// digits, spaces and commas (commas separate parameter names).
func fuzzyNormalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == ',' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// grams counts the n-grams of s padded with '-' at both ends, so that
// matching first and last letters weigh in, as in the fuzzy set PostgREST
// uses.
func grams(s string, n int) map[string]int {
	padded := []rune("-" + s + "-")
	out := map[string]int{}
	if len(padded) < n {
		out[string(padded)]++
		return out
	}
	for i := 0; i+n <= len(padded); i++ {
		out[string(padded[i:i+n])]++
	}
	return out
}

// cosine is the similarity of two n-gram count vectors.
func cosine(a, b map[string]int) float64 {
	var dot, na, nb float64
	for k, v := range a {
		na += float64(v * v)
		dot += float64(v * b[k])
	}
	for _, v := range b {
		nb += float64(v * v)
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// levenshtein is the edit distance, kept to two rows of the table.
func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// fuzzyBest returns the candidate closest to name that scores above
// minScore, or "" when there is none. An exact match is not a suggestion.
func fuzzyBest(name string, candidates []string, minScore float64) string {
	q := fuzzyNormalize(name)
	lower := []rune(strings.ToLower(name))
	// The edit distance is at least the difference in length, so the
	// final score is at most shorter/longer: candidates that cannot reach
	// minScore are dropped first, and a name far longer than any candidate
	// costs only its lower-casing.
	ql := len(lower)
	var reachable []string
	for _, c := range candidates {
		if strings.EqualFold(c, name) {
			return ""
		}
		cl := utf8.RuneCountInString(c)
		if float64(min(ql, cl)) > minScore*float64(max(ql, cl, 1)) {
			reachable = append(reachable, c)
		}
	}
	if len(reachable) == 0 {
		return ""
	}
	candidates = reachable
	type scored struct {
		score float64
		name  string
	}
	for n := 3; n >= 2; n-- {
		qg := grams(q, n)
		var res []scored
		for _, c := range candidates {
			if s := cosine(qg, grams(fuzzyNormalize(c), n)); s > 0 {
				res = append(res, scored{s, c})
			}
		}
		// Only the 50 best by n-grams are re-ranked, as the fuzzy set
		// does: the edit distance is the costly part.
		sort.SliceStable(res, func(i, j int) bool { return res[i].score > res[j].score })
		if len(res) > 50 {
			res = res[:50]
		}
		for i := range res {
			b := []rune(strings.ToLower(res[i].name))
			res[i].score = 1 - float64(levenshtein(lower, b))/float64(max(len(lower), len(b), 1))
		}
		sort.SliceStable(res, func(i, j int) bool { return res[i].score > res[j].score })
		if len(res) > 0 && res[0].score > minScore {
			return res[0].name
		}
	}
	return ""
}
