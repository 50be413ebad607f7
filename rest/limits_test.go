package rest

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// TestQueryLimits: hostile query strings are the client's error (400
// PGRST100), caught by the parser before any SQL is built.
func TestQueryLimits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var statements int
	e.svc.trace = func(string, []any) { statements++ }
	q := url.QueryEscape
	deepOr := func(n int) string {
		return strings.Repeat("or(", n) + "username.eq.x" + strings.Repeat(")", n)
	}
	cols := strings.TrimSuffix(strings.Repeat("username,", 10000), ",")
	cases := []struct{ name, target string }{
		{"json path of 5000 arrows in a filter", "/users?" + q("data"+strings.Repeat("->a", 5000)) + "=eq.1"},
		{"json path of 5000 arrows in select", "/users?select=" + q("data"+strings.Repeat("->a", 5000))},
		{"json path of 5000 arrows in order", "/users?order=" + q("data"+strings.Repeat("->a", 5000))},
		{"select of 10000 columns", "/users?select=" + cols},
		{"or nested 65 deep", "/users?or=(" + q(deepOr(64)) + ")"},
		{"or nested 10000 deep", "/users?or=(" + q(deepOr(9999)) + ")"},
		{"select nested 65 deep", "/users?select=" + strings.Repeat("a(", 65) + "b" + strings.Repeat(")", 65)},
		{"or of 5000 terms", "/users?or=(" + strings.TrimSuffix(strings.Repeat("username.eq.x,", 5000), ",") + ")"},
		{"query string over 64 KiB", "/users?username=in.(" + strings.Repeat("x,", 40<<10) + "x)"},
		{"path over 64 KiB", "/" + strings.Repeat("users", 14000)},
		{"function name over 64 KiB", "/rpc/" + strings.Repeat("add_them", 9000)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			statements = 0
			w := e.do(t, call{target: tc.target})
			if w.Code != 400 {
				t.Fatalf("status %d, want 400: %.300s", w.Code, w.Body.String())
			}
			if code, _ := errorBody(t, w); code != "PGRST100" {
				t.Fatalf("code %q: %.300s", code, w.Body.String())
			}
			if statements != 0 {
				t.Fatal("SQL was built and sent")
			}
		})
	}
	// At the limits, requests still work.
	for _, target := range []string{
		"/users?select=username&or=(" + q(deepOr(63)) + ")",
		"/users?select=username&" + q("data"+strings.Repeat("->a", 64)) + "=eq.1",
		"/users?select=" + strings.TrimSuffix(strings.Repeat("username,", 1000), ","),
	} {
		if w := e.do(t, call{target: target}); w.Code != 200 {
			t.Fatalf("%.80s: status %d %.300s", target, w.Code, w.Body.String())
		}
	}
}

// TestDeepInputRejectedEarly: the parsers stop at the depth limit instead
// of walking (and recursing into) the whole input.
func TestDeepInputRejectedEarly(t *testing.T) {
	t.Parallel()
	deep := 1 << 20
	check := func(name string, err error) {
		t.Helper()
		var pe *parseError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: want a parse error, got %v", name, err)
		}
		if pe.col > 4*maxDepth {
			t.Fatalf("%s: failed at column %d, past the depth limit", name, pe.col)
		}
	}
	_, err := parseLogicTree("or", false, "("+strings.Repeat("or(", deep))
	check("logic tree", err)
	_, err = parseSelect(strings.Repeat("a(", deep))
	check("select", err)
	_, err = parseFieldString("filter", "a"+strings.Repeat("->a", deep))
	check("json path", err)
}

// TestContentLocationBounded: Content-Location repeats the query string
// as PostgREST does, but a long one is left out rather than sent as a
// header that HTTP clients refuse to read.
func TestContentLocationBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	long := "/users?select=username&username=in.(" + strings.Repeat("someone,", 1000) + "supabot)"
	w := e.do(t, call{target: long})
	if w.Code != 200 {
		t.Fatalf("status %d %s", w.Code, w.Body.String())
	}
	if loc, ok := w.Header()["Content-Location"]; ok {
		t.Fatalf("Content-Location of %d bytes sent", len(loc[0]))
	}
	w = e.do(t, call{target: "/users?select=username&username=eq.supabot"})
	if got := w.Header().Get("Content-Location"); got != "/users?select=username&username=eq.supabot" {
		t.Fatalf("Content-Location %q", got)
	}
}
