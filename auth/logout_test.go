package auth

import "testing"

func TestLogoutScopes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	e.signUp("l@example.com", "secret123")
	signIn := func() string {
		r := e.req("POST", "/token?grant_type=password", `{"email":"l@example.com","password":"secret123"}`, "")
		return r.json(t)["access_token"].(string)
	}
	a, b, c := signIn(), signIn(), signIn()
	wantErr(t, e.req("POST", "/logout?scope=bogus", nil, a), 400, "validation_failed", `Unsupported logout scope "bogus"`)
	// others: a survives, b and c are gone.
	if r := e.req("POST", "/logout?scope=others", nil, a); r.Status != 204 || len(r.Body) != 0 {
		t.Fatalf("logout others %d %s", r.Status, r.Body)
	}
	wantErr(t, e.req("GET", "/user", nil, b), 403, "session_not_found", "Session from session_id claim in JWT does not exist")
	wantErr(t, e.req("GET", "/user", nil, c), 403, "session_not_found", "")
	if r := e.req("GET", "/user", nil, a); r.Status != 200 {
		t.Fatalf("a after others: %d", r.Status)
	}
	// local: only the caller's session.
	d := signIn()
	if r := e.req("POST", "/logout?scope=local", nil, a); r.Status != 204 {
		t.Fatal(r.Status)
	}
	wantErr(t, e.req("GET", "/user", nil, a), 403, "session_not_found", "")
	if r := e.req("GET", "/user", nil, d); r.Status != 200 {
		t.Fatalf("d after local: %d", r.Status)
	}
	// global (default): everything.
	f := signIn()
	if r := e.req("POST", "/logout", nil, d); r.Status != 204 {
		t.Fatal(r.Status)
	}
	wantErr(t, e.req("GET", "/user", nil, f), 403, "session_not_found", "")
}
