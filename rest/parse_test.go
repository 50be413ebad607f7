package rest

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSelect(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want []*selectItem
		err  bool
	}{
		{in: "", want: nil},
		{in: "*", want: []*selectItem{{Kind: itemStar}}},
		{in: "id, name", want: []*selectItem{{Kind: itemField, Field: field{Name: "id"}}, {Kind: itemField, Field: field{Name: "name"}}}},
		{in: "a:id::text", want: []*selectItem{{Kind: itemField, Alias: "a", Field: field{Name: "id"}, Cast: "text"}}},
		{in: "data->a->>b", want: []*selectItem{{Kind: itemField, Field: field{Name: "data", Path: []jsonOp{{Arrow: "->", Key: "a"}, {Arrow: "->>", Key: "b"}}}}}},
		{in: "data->0->-1", want: []*selectItem{{Kind: itemField, Field: field{Name: "data", Path: []jsonOp{{Arrow: "->", Key: "0", IsIndex: true}, {Arrow: "->", Key: "-1", IsIndex: true}}}}}},
		{in: "first-name", want: []*selectItem{{Kind: itemField, Field: field{Name: "first-name"}}}},
		{in: `"a,b"`, want: []*selectItem{{Kind: itemField, Field: field{Name: "a,b"}}}},
		{in: `"a\"b"`, want: []*selectItem{{Kind: itemField, Field: field{Name: `a"b`}}}},
		{in: "count()", want: []*selectItem{{Kind: itemCount}}},
		{in: "total:price.sum()::int", want: []*selectItem{{Kind: itemField, Alias: "total", Field: field{Name: "price"}, Agg: "sum", AggCast: "int"}}},
		{in: "users(*)", want: []*selectItem{{Kind: itemEmbed, Rel: "users", Children: []*selectItem{{Kind: itemStar}}}}},
		{in: "u:users!fk!inner(id)", want: []*selectItem{{Kind: itemEmbed, Alias: "u", Rel: "users", Hint: "fk", Inner: true,
			Children: []*selectItem{{Kind: itemField, Field: field{Name: "id"}}}}}},
		{in: "users!inner!fk()", want: []*selectItem{{Kind: itemEmbed, Rel: "users", Hint: "fk", Inner: true}}},
		{in: "...users(a,b)", want: []*selectItem{{Kind: itemSpread, Rel: "users", Children: []*selectItem{
			{Kind: itemField, Field: field{Name: "a"}}, {Kind: itemField, Field: field{Name: "b"}}}}}},
		{in: "a(b(c))", want: []*selectItem{{Kind: itemEmbed, Rel: "a", Children: []*selectItem{{Kind: itemEmbed, Rel: "b",
			Children: []*selectItem{{Kind: itemField, Field: field{Name: "c"}}}}}}}},
		{in: "id,", err: true},
		{in: "users(", err: true},
		{in: "a.b", err: true},
		{in: "x.nope()", err: true},
		{in: "id::", err: true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseSelect(tc.in)
			if tc.err {
				var pe *parseError
				if !errors.As(err, &pe) {
					t.Fatalf("want parse error, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestParseFilters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want *filter
		err  bool
	}{
		{in: "eq.5", want: &filter{Op: "eq", Value: "5"}},
		{in: `eq."x"`, want: &filter{Op: "eq", Value: `"x"`}},
		{in: "eq.a,b(c)", want: &filter{Op: "eq", Value: "a,b(c)"}},
		{in: "not.in.(1,\"a,b\",3)", want: &filter{Not: true, Op: "in", List: []string{"1", "a,b", "3"}}},
		{in: "in.()", want: &filter{Op: "in", List: []string{}}},
		{in: "is.NULL", want: &filter{Op: "is", Value: "null"}},
		{in: "is.not_null", want: &filter{Op: "is", Value: "not_null"}},
		{in: "like(any).{a*,b*}", want: &filter{Op: "like", Quant: "any", Value: "{a*,b*}"}},
		{in: "fts(english).cat & dog", want: &filter{Op: "fts", Lang: "english", Value: "cat & dog"}},
		{in: "cs.{1,2}", want: &filter{Op: "cs", Value: "{1,2}"}},
		{in: "isdistinct.x", want: &filter{Op: "isdistinct", Value: "x"}},
		{in: "is.maybe", err: true},
		{in: "foo.bar", err: true},
		{in: "eq", err: true},
		{in: "in.(1,2", err: true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseFilterValue(field{Name: "c"}, tc.in)
			if tc.err {
				if err == nil {
					t.Fatalf("want error, got %+v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Field = field{Name: "c"}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestParseLogicTree(t *testing.T) {
	t.Parallel()
	got, err := parseLogicTree("or", false, `(a.eq.1,and(b.gte.2,c.is.null),d.in.(x,"y,z"),e.cs.{1,2},f.eq."q,)",g.not.like.*x*)`)
	if err != nil {
		t.Fatal(err)
	}
	want := &logicTree{Op: "or", Children: []logicNode{
		{Filter: &filter{Field: field{Name: "a"}, Op: "eq", Value: "1"}},
		{Tree: &logicTree{Op: "and", Children: []logicNode{
			{Filter: &filter{Field: field{Name: "b"}, Op: "gte", Value: "2"}},
			{Filter: &filter{Field: field{Name: "c"}, Op: "is", Value: "null"}},
		}}},
		{Filter: &filter{Field: field{Name: "d"}, Op: "in", List: []string{"x", "y,z"}}},
		{Filter: &filter{Field: field{Name: "e"}, Op: "cs", Value: "{1,2}"}},
		{Filter: &filter{Field: field{Name: "f"}, Op: "eq", Value: "q,)"}},
		{Filter: &filter{Field: field{Name: "g"}, Not: true, Op: "like", Value: "*x*"}},
	}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got)\n%s", d)
	}
	for _, bad := range []string{"", "(", "(a.eq.1", "(a)", "a.eq.1", "(a.eq.1))"} {
		if _, err := parseLogicTree("and", false, bad); err == nil {
			t.Errorf("%q: want error", bad)
		}
	}
}

func TestParseOrder(t *testing.T) {
	t.Parallel()
	got, err := parseOrder("a.desc.nullsfirst,b,data->>x.asc,rel(c).desc.nullslast")
	if err != nil {
		t.Fatal(err)
	}
	want := []orderTerm{
		{Field: field{Name: "a"}, Desc: true, Nulls: "first"},
		{Field: field{Name: "b"}},
		{Field: field{Name: "data", Path: []jsonOp{{Arrow: "->>", Key: "x"}}}},
		{Rel: "rel", Field: field{Name: "c"}, Desc: true, Nulls: "last"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got)\n%s", d)
	}
	for _, bad := range []string{"a.descc", "a.", ",", "a,,b"} {
		if _, err := parseOrder(bad); err == nil {
			t.Errorf("%q: want error", bad)
		}
	}
}

func TestRangeHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in string
		lo int64
		hi int64 // -1 = open
		ok bool
	}{{"0-9", 0, 9, true}, {"items=5-", 5, -1, true}, {"x", 0, 0, false}, {"-5", 0, 0, false}, {"3-a", 0, 0, false}} {
		lo, hi, ok := rangeHeader(tc.in)
		if ok != tc.ok || (ok && (lo != tc.lo || (hi == nil) != (tc.hi == -1) || (hi != nil && *hi != tc.hi))) {
			t.Errorf("%q: got %d %v %v", tc.in, lo, hi, ok)
		}
	}
}

func TestParsePrefer(t *testing.T) {
	t.Parallel()
	h := map[string][]string{"Prefer": {"resolution=merge-duplicates, count=exact", "return=representation,return=minimal, bogus, missing=default, max-affected=5, tx=rollback"}}
	p := parsePrefer(h)
	want := prefs{ret: "representation", count: "exact", resolution: "merge-duplicates", missing: "default", tx: "rollback", invalid: []string{"bogus"}}
	n := int64(5)
	want.maxAffected = &n
	if d := cmp.Diff(want, p, cmp.AllowUnexported(prefs{})); d != "" {
		t.Fatalf("(-want +got)\n%s", d)
	}
}

// placeholderRE finds $n placeholders in generated SQL.
var placeholderRE = regexp.MustCompile(`\$(\d+)`)

// FuzzSelectAndFilters feeds arbitrary select, filter and order strings
// through the parsers and the SQL builder: nothing may panic, every
// placeholder must have an argument (and vice versa), and user text may
// reach the SQL only inside quoted identifiers or bound values. Whatever
// parses stays within the depth and term limits.
func FuzzSelectAndFilters(f *testing.F) {
	for _, s := range []string{"id,name", "a:b::text,c(d,e!inner(*))", "data->a->>b", "...rel(x)", "\"we\"\"ird\"", "count(),x.sum()"} {
		f.Add(s, "eq.1", "a.desc,b.nullsfirst", "(a.eq.1,or(b.in.(1,2),c.is.null))")
	}
	deep := strings.Repeat("a(", maxDepth) + "b" + strings.Repeat(")", maxDepth)
	f.Add(deep, "eq.1", "data"+strings.Repeat("->a", maxDepth+1), "("+strings.Repeat("or(", maxDepth)+"a.eq.1"+strings.Repeat(")", maxDepth+1))
	f.Add(strings.Repeat("a,", maxTerms)+"a", "eq.1", strings.Repeat("a,", maxTerms)+"a", "("+strings.Repeat("a.eq.1,", maxTerms)+"a.eq.1)")
	tbl := &Table{Schema: "public", Name: "t", cols: map[string]*Column{}}
	for _, c := range []string{"id", "name", "data"} {
		col := &Column{Name: c}
		tbl.Columns = append(tbl.Columns, col)
		tbl.cols[c] = col
	}
	f.Fuzz(func(t *testing.T, sel, flt, order, tree string) {
		items, err := parseSelect(sel)
		if err != nil {
			return
		}
		if depth, n := selectShape(items); depth > maxDepth || n > maxTerms {
			t.Fatalf("select of depth %d with %d items parsed", depth, n)
		}
		// Embeds need a schema cache; keep plain items.
		var plain []*selectItem
		for _, it := range items {
			if it.Kind != itemEmbed && it.Kind != itemSpread {
				plain = append(plain, it)
			}
		}
		root := &node{table: tbl, name: "t", qual: `"public"."t"`, items: plain}
		if fl, err := parseFilterValue(field{Name: "name"}, flt); err == nil {
			root.filters = append(root.filters, fl)
		}
		if o, err := parseOrder(order); err == nil {
			if len(o) > maxTerms {
				t.Fatalf("order of %d terms parsed", len(o))
			}
			for _, term := range o {
				if term.Rel == "" {
					root.order = append(root.order, term)
				}
			}
		}
		if tr, err := parseLogicTree("or", false, tree); err == nil {
			if depth, n := treeShape(tr); depth > maxDepth || n > maxTerms {
				t.Fatalf("logic tree of depth %d with %d terms parsed", depth, n)
			}
			root.trees = append(root.trees, tr)
		}
		b := &builder{maxRows: 10, aggs: true}
		sql, _, err := b.readSQL(root, `"public"."t"`, true)
		if err != nil {
			return
		}
		max := 0
		// Placeholders outside quoted identifiers and literals only: a
		// column may well be named "$2".
		for _, m := range placeholderRE.FindAllStringSubmatch(stripQuoted(sql), -1) {
			n := 0
			for _, c := range m[1] {
				n = n*10 + int(c-'0')
			}
			if n > max {
				max = n
			}
		}
		if max != len(b.args) {
			t.Fatalf("placeholders up to $%d but %d args\n%s", max, len(b.args), sql)
		}
		// Strip quoted identifiers and string literals; what remains must
		// not contain statement separators or comment starts.
		rest := stripQuoted(sql)
		if strings.Contains(rest, ";") || strings.Contains(rest, "--") || strings.Contains(rest, "/*") {
			t.Fatalf("unquoted user text in SQL: %s", sql)
		}
	})
}

// selectShape returns the nesting depth of items (0 without embeds) and
// how many items there are at all levels; a JSON path counts as deep as it
// is long.
func selectShape(items []*selectItem) (depth, n int) {
	for _, it := range items {
		n++
		depth = max(depth, len(it.Field.Path))
		if it.Children != nil || it.Kind == itemEmbed || it.Kind == itemSpread {
			d, m := selectShape(it.Children)
			depth, n = max(depth, d+1), n+m
		}
	}
	return depth, n
}

// treeShape returns the nesting depth of a logic tree and its terms.
func treeShape(t *logicTree) (depth, n int) {
	depth = 1
	for _, c := range t.Children {
		n++
		if c.Tree != nil {
			d, m := treeShape(c.Tree)
			depth, n = max(depth, d+1), n+m
		} else {
			depth = max(depth, len(c.Filter.Field.Path))
		}
	}
	return depth, n
}

// stripQuoted removes "..." identifiers and '...' literals (with doubled
// quotes as escapes).
func stripQuoted(s string) string {
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '"' && c != '\'' {
			out.WriteByte(c)
			continue
		}
		for i++; i < len(s); i++ {
			if s[i] == c {
				if i+1 < len(s) && s[i+1] == c {
					i++
					continue
				}
				break
			}
		}
	}
	return out.String()
}

func TestFuzzyBest(t *testing.T) {
	t.Parallel()
	names := []string{"users", "messages", "channels", "channel_details", "best_friends"}
	for _, tc := range []struct{ in, want string }{
		{"user", "users"},
		{"mesages", "messages"},
		{"channel_detail", "channel_details"},
		{"users", ""},
		{"zzzzzz", ""},
	} {
		if got := fuzzyBest(tc.in, names, fuzzyNames); got != tc.want {
			t.Errorf("fuzzyBest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// PostgREST scores the edit distance of the lower-cased names, with
	// their underscores: close by letters alone is not close enough.
	if got := fuzzyBest("function_returning_set_of_rows", []string{"users", "active_users"}, fuzzyParams); got != "" {
		t.Errorf("relationship hint %q, want none", got)
	}
	fns := []string{"polymorphic_function_with_unnamed_text", "polymorphic_function_with_unnamed_json"}
	if got := fuzzyBest("polymorphic_function_with_unnamed_integer", fns, fuzzyNames); got != fns[0] {
		t.Errorf("function hint %q, want %q", got, fns[0])
	}
	// Table and function names need a score above 0.75 (0.71 here).
	if got := fuzzyBest("channel", []string{"channels_x"}, fuzzyNames); got != "" {
		t.Errorf("name hint %q, want none", got)
	}
	if got := fuzzyBest("channel", []string{"channels_x"}, fuzzyParams); got != "channels_x" {
		t.Errorf("params hint %q, want channels_x", got)
	}
}
