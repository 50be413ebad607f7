package rest

import (
	"net/url"
	"testing"
)

// TestHostileInput sends injection attempts through every place user text
// reaches SQL. Each must be refused or treated as data (never a 5xx), and
// the canary table must survive.
func TestHostileInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	drop := `"; DROP TABLE users; --`
	q := url.QueryEscape
	targets := []string{
		"/users?select=" + q(`username::text); DROP TABLE users; --`),
		"/users?select=" + q(`"`+drop+`"`),
		"/users?select=" + q(`data->>'); DROP TABLE users; --`),
		"/users?select=" + q(`x:data->`+`"a'b"`),
		"/users?username=eq." + q(`'; DROP TABLE users; --`),
		"/users?username=in.(" + q(`"a\"); DROP TABLE users; --"`) + ")",
		"/users?order=" + q(`username; DROP TABLE users`),
		"/users?order=" + q(`"username; DROP TABLE users"`),
		"/users?or=(" + q(`username.eq.a) OR 1=1 --`) + ")",
		"/users?catchphrase=fts(" + q(`english'); DROP TABLE users; --`) + ").cat",
		"/users?select=" + q(`messages!"x; DROP TABLE users"(*)`),
		"/users?limit=" + q(`1; DROP TABLE users`),
		"/" + q(`users"; DROP TABLE users; --`),
		"/rpc/" + q(`add_them"(); DROP TABLE users; --`),
		"/users?" + q(`"a;b"`) + "=eq.1",
		"/users?select=count()::" + q(`int); DROP TABLE users; --`),
	}
	for _, target := range targets {
		w := e.do(t, call{target: target})
		if w.Code >= 500 {
			t.Errorf("%s: status %d %s", target, w.Code, w.Body.String())
		}
	}
	for _, body := range []string{`{"username":"'); DROP TABLE users; --"}`, `{"a\"; DROP TABLE users; --":1}`} {
		w := e.do(t, call{method: "POST", target: "/users", body: body})
		if w.Code >= 500 {
			t.Errorf("POST %s: status %d %s", body, w.Code, w.Body.String())
		}
	}
	w := e.do(t, call{target: "/users?select=count", as: asService})
	if w.Code != 200 || !jsonEqual(t, w.Body.String(), `[{"count":5}]`) {
		t.Fatalf("users table after attacks: %d %s", w.Code, w.Body.String())
	}
}
