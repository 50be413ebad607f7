package rest

import (
	"math"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// Fuzz targets for the request headers and query string the REST service
// parses by hand (the URL grammar has FuzzSelectAndFilters).

// pgrstRangeRE is PostgREST's Range grammar (after Basalt's optional
// "items=" unit): a decimal lower bound and an optional decimal upper one.
var pgrstRangeRE = regexp.MustCompile(`^([0-9]+)-([0-9]*)$`)

// FuzzPageBounds: the Range header folded into limit and offset. It is
// compared with the same intersection over unbounded integers: a header
// outside the grammar is ignored, an inverted range is refused, and
// otherwise the rows asked for are exactly those both ask for (limits
// beyond int64 read as the largest one, never wrapped to zero).
func FuzzPageBounds(f *testing.F) {
	f.Add("0-9", int64(0), int64(0), false, false)
	f.Add("items=5-", int64(10), int64(2), true, true)
	f.Add("5-2", int64(0), int64(0), false, false)
	f.Add("0-9223372036854775807", int64(0), int64(0), false, false)
	f.Add("3-99999999999999999999", int64(9223372036854775807), int64(9223372036854775807), true, true)
	f.Add("+1-5", int64(0), int64(0), false, false)
	f.Add("5--3", int64(0), int64(0), false, false)
	f.Add("99999999999999999999-", int64(3), int64(0), true, false)
	f.Fuzz(func(t *testing.T, h string, limit, offset int64, hasLimit, hasOffset bool) {
		if limit < 0 || offset < 0 {
			return
		}
		root := &node{}
		if hasLimit {
			root.limit = &limit
		}
		if hasOffset {
			root.offset = &offset
		}
		r := httptest.NewRequest(http.MethodGet, "/t", nil)
		r.Header.Set("Range", h)
		err := pageBounds(&reqCtx{r: r}, root)

		spec := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(h), "items="))
		m := pgrstRangeRE.FindStringSubmatch(spec)
		if h == "" || m == nil {
			if err != nil || !sameInt(root.limit, ptrIf(hasLimit, limit)) || !sameInt(root.offset, ptrIf(hasOffset, offset)) {
				t.Fatalf("Range %q outside the grammar changed the page: limit %v offset %v err %v", h, show(root.limit), show(root.offset), err)
			}
			return
		}
		lo, _ := new(big.Int).SetString(m[1], 10)
		var hi *big.Int
		if m[2] != "" {
			hi, _ = new(big.Int).SetString(m[2], 10)
		}
		if hi != nil && lo.Cmp(hi) > 0 {
			if err == nil {
				t.Fatalf("Range %q is inverted, yet accepted", h)
			}
			return
		}
		if err != nil {
			t.Fatalf("Range %q: %v", h, err)
		}
		off := big.NewInt(offset)
		if !hasOffset {
			off.SetInt64(0)
		}
		var end *big.Int
		if hasLimit {
			end = new(big.Int).Sub(new(big.Int).Add(off, big.NewInt(limit)), big.NewInt(1))
		}
		if lo.Cmp(off) > 0 {
			off = lo
		}
		if hi != nil && (end == nil || hi.Cmp(end) < 0) {
			end = hi
		}
		if root.offset == nil || !sameCount(*root.offset, off) {
			t.Fatalf("Range %q, limit %d/%v offset %d/%v: offset %v, want %s", h, limit, hasLimit, offset, hasOffset, show(root.offset), off)
		}
		if off.Cmp(huge) >= 0 {
			return // every row is skipped, whatever the limit
		}
		if end == nil {
			if root.limit != nil {
				t.Fatalf("Range %q: limit %d, want none", h, *root.limit)
			}
			return
		}
		n := new(big.Int).Add(new(big.Int).Sub(end, off), big.NewInt(1))
		if n.Sign() < 0 {
			n.SetInt64(0)
		}
		if root.limit == nil || !sameCount(*root.limit, n) {
			t.Fatalf("Range %q, limit %d/%v offset %d/%v: limit %v, want %s", h, limit, hasLimit, offset, hasOffset, show(root.limit), n)
		}
	})
}

func ptrIf(ok bool, v int64) *int64 {
	if !ok {
		return nil
	}
	return &v
}

func sameInt(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(p *int64) any {
	if p == nil {
		return "none"
	}
	return *p
}

// huge is more rows than any table holds: past it, a count only needs to
// stay past it (bounds beyond int64 are read as math.MaxInt64).
var huge = big.NewInt(1 << 62)

func sameCount(got int64, want *big.Int) bool {
	if want.Cmp(huge) >= 0 {
		return got >= 1<<62
	}
	return want.IsInt64() && got == want.Int64()
}

// FuzzPrefer: every preference read from Prefer holds one of its allowed
// values, the first valid one wins, and anything else is reported invalid.
func FuzzPrefer(f *testing.F) {
	f.Add("return=representation, count=exact", "return=minimal")
	f.Add("max-affected=5,max-affected=x", "tx=rollback")
	f.Add("  ,timezone=UTC, bogus", "handling=strict,missing=null,resolution=ignore-duplicates")
	f.Add("return==minimal", "")
	f.Fuzz(func(t *testing.T, first, second string) {
		h := http.Header{"Prefer": {first, second}}
		p := parsePrefer(h)
		allowed := map[string][]string{"return": {"minimal", "headers-only", "representation"}, "count": {"exact", "planned", "estimated"},
			"resolution": {"merge-duplicates", "ignore-duplicates"}, "missing": {"default", "null"}, "handling": {"strict", "lenient"},
			"tx": {"commit", "rollback"}}
		got := map[string]string{"return": p.ret, "count": p.count, "resolution": p.resolution, "missing": p.missing,
			"handling": p.handling, "tx": p.tx}
		for k, v := range got {
			if v != "" && !contains(allowed[k], v) {
				t.Fatalf("Prefer %q: %s=%q is not an allowed value", h["Prefer"], k, v)
			}
		}
		// A valid preference added after them never overrides one already set.
		for k, vals := range allowed {
			h2 := http.Header{"Prefer": {first, second, k + "=" + vals[0]}}
			if p2 := parsePrefer(h2); got[k] != "" && preferOf(p2, k) != got[k] || got[k] == "" && preferOf(p2, k) != vals[0] {
				t.Fatalf("Prefer %q: %s = %q, want %q", h2["Prefer"], k, preferOf(p2, k), cmpOr(got[k], vals[0]))
			}
		}
	})
}

func preferOf(p prefs, k string) string {
	return map[string]string{"return": p.ret, "count": p.count, "resolution": p.resolution, "missing": p.missing,
		"handling": p.handling, "tx": p.tx}[k]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// FuzzAccept: Accept is read as media ranges ordered by quality, highest
// first (a quality that is not a number orders nothing, as in the
// reference); negotiation either picks a representation or answers 406,
// and a plain application/json in first place is always JSON.
func FuzzAccept(f *testing.F) {
	f.Add("application/json")
	f.Add("text/csv;q=0.5, application/vnd.pgrst.object+json;nulls=stripped")
	f.Add(`application/vnd.pgrst.plan+json; for="text/csv"; options=analyze|verbose`)
	f.Add("a/b;q=NaN, application/json;q=0.1")
	f.Add(";;,,q=1,*/*;q=-1")
	cfg := &Config{PlanEnabled: true}
	f.Fuzz(func(t *testing.T, h string) {
		ranges := parseAcceptHeader(h)
		ordered := true
		for _, m := range ranges {
			ordered = ordered && !math.IsNaN(m.q)
		}
		for i, m := range ranges {
			if ordered && i > 0 && ranges[i-1].q < m.q {
				t.Fatalf("Accept %q: %q (q=%v) after %q (q=%v)", h, m.typ, m.q, ranges[i-1].typ, ranges[i-1].q)
			}
			if m.typ != strings.ToLower(strings.TrimSpace(m.typ)) {
				t.Fatalf("Accept %q: type %q not normalised", h, m.typ)
			}
		}
		for _, root := range []bool{false, true} {
			if _, err := negotiate(cfg, h, root); err != nil {
				if e, ok := err.(*apiError); !ok || e.Status != http.StatusNotAcceptable {
					t.Fatalf("negotiate(%q): %v", h, err)
				}
			}
		}
		if a, err := negotiate(cfg, "application/json,"+h, false); err != nil || a.kind != mediaJSON {
			t.Fatalf("application/json first, then %q: %+v %v", h, a, err)
		}
	})
}

// FuzzParseQuery: parameters encoded the way clients encode them come back
// as they were, in order, whatever their bytes.
func FuzzParseQuery(f *testing.F) {
	f.Add("select", "id,name", "name", "eq.a b&c")
	f.Add("", "", "or", "(a.eq.1,b.eq.=;)")
	f.Add("k%", "%zz", "+", "+")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		raw := url.QueryEscape(k1) + "=" + url.QueryEscape(v1) + "&" + url.QueryEscape(k2) + "=" + url.QueryEscape(v2)
		got := parseQuery(raw)
		if len(got) != 2 || got[0] != (param{k1, v1}) || got[1] != (param{k2, v2}) {
			t.Fatalf("parseQuery(%q) = %q, want [%q=%q %q=%q]", raw, got, k1, v1, k2, v2)
		}
		// Any raw query: every part with '=' is one parameter.
		n := 0
		for _, part := range strings.FieldsFunc(k1+v1, func(r rune) bool { return r == '&' || r == ';' }) {
			if strings.Contains(part, "=") {
				n++
			}
		}
		if got := parseQuery(k1 + v1); len(got) != n {
			t.Fatalf("parseQuery(%q) = %d parameters, want %d", k1+v1, len(got), n)
		}
	})
}

// TestRangeGrammar: the regressions FuzzPageBounds found. Range bounds are
// PostgREST's digits (no sign: "5--3" is ignored, not refused), and a
// bound at the end of int64 asks for every row instead of none.
func TestRangeGrammar(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		h             string
		offset, limit any // "none" when unset, "all" for more rows than any table holds
		err           bool
	}{
		{"0-9", int64(0), int64(10), false},
		{"+1-5", "none", "none", false},
		{"5--3", "none", "none", false},
		{"-5", "none", "none", false},
		{"0-9223372036854775807", int64(0), "all", false},
		{"2-99999999999999999999", int64(2), "all", false},
		{"99999999999999999999-", int64(math.MaxInt64), "none", false},
		{"5-2", "none", "none", true},
	} {
		root := &node{}
		r := httptest.NewRequest(http.MethodGet, "/t", nil)
		r.Header.Set("Range", tc.h)
		err := pageBounds(&reqCtx{r: r}, root)
		limit := show(root.limit)
		if root.limit != nil && *root.limit >= 1<<62 {
			limit = "all"
		}
		if (err != nil) != tc.err || show(root.offset) != tc.offset || limit != tc.limit {
			t.Errorf("Range %q: offset %v limit %v err %v, want %v %v err %v", tc.h, show(root.offset), limit, err,
				tc.offset, tc.limit, tc.err)
		}
	}
}
