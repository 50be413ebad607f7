package studio

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestParseList(t *testing.T) {
	for in, want := range map[string]string{
		`(1,2,3)`:            `[1 2 3]`,
		`( a , b )`:          `[a b]`,
		`("a,b",c)`:          `[a,b c]`,
		`("say \"hi\"",x\y)`: `[say "hi" x\y]`,
		`()`:                 `[]`,
		`("(",")")`:          `[( )]`,
	} {
		got, err := parseList(in)
		if err != nil || fmt.Sprint(got) != want {
			t.Errorf("parseList(%s) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{`1,2`, `(1,2`, `("open)`} {
		if _, err := parseList(bad); err == nil {
			t.Errorf("parseList(%s) accepted", bad)
		}
	}
}

// FuzzParseFilter: any query value either is refused or renders to SQL in
// which the value is a parameter, never text.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"eq.1", "not.in.(1,\"2,3\")", "ilike.*x*", "is.null", "cs.{a,b}", "eq.'; drop table x; --", "in.(", "not."} {
		f.Add("col", s)
	}
	f.Fuzz(func(t *testing.T, column, raw string) {
		flt, err := parseFilter(column, raw)
		if err != nil {
			return
		}
		if _, ok := filterOps.Get()[flt.Op]; !ok {
			t.Fatalf("unknown op %q accepted", flt.Op)
		}
		b := &sqlBuilder{}
		sql := b.condition(flt, "text")
		if flt.Op != "is" && len(b.args) != 1 {
			t.Fatalf("%q renders %d parameters", raw, len(b.args))
		}
		rest := strings.ReplaceAll(sql, ident(column), "")
		for _, ch := range []string{";", "--", "'"} {
			if strings.Contains(rest, ch) {
				t.Fatalf("%q leaked %q into %s", raw, ch, sql)
			}
		}
	})
}

// FuzzParseOrder: an order either is refused or names columns and
// directions only.
func FuzzParseOrder(f *testing.F) {
	for _, s := range []string{"a.asc", "a.desc.nullslast,b", "a..b", ",", "a.up"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		terms, err := parseOrder(raw)
		if err != nil {
			return
		}
		for _, term := range terms {
			if term.Column == "" || strings.Contains(term.Column, ".") || strings.Contains(term.Column, ",") {
				t.Fatalf("%q gave column %q", raw, term.Column)
			}
		}
	})
}

// FuzzTextValue: any JSON value for any column kind either is refused or
// gives text; lists give a balanced array literal.
func FuzzTextValue(f *testing.F) {
	for _, s := range []string{`["a,b", "\"q", null, ["x"], 1, {"k":1}]`, `"s"`, `{"a":1}`, `[`, `12.5`, `true`} {
		f.Add(s, "A")
		f.Add(s, "S")
	}
	f.Fuzz(func(t *testing.T, raw, category string) {
		c := column{Name: "c", Type: "text[]", Category: category}
		v, err := textValue(c, json.RawMessage(raw))
		if err != nil || v == nil {
			return
		}
		if category == "A" && strings.HasPrefix(strings.TrimSpace(raw), "[") {
			if !strings.HasPrefix(*v, "{") || !strings.HasSuffix(*v, "}") {
				t.Fatalf("%s gave %s", raw, *v)
			}
		}
	})
}
