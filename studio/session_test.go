package studio

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSignIn: a wrong password is refused with one message whatever was
// wrong; the right one opens a session whose cookie scripts cannot read
// and other sites cannot send, and which another node accepts.
func TestSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	anon := &client{e: e, base: e.srv.URL}
	for _, creds := range [][2]string{{testEmail, "wrong password!!"}, {"nobody@example.com", testPassword}} {
		res := anon.do("POST", "/api/session", map[string]string{"email": creds[0], "password": creds[1]})
		if body := readAll(t, res); res.StatusCode != 400 || !strings.Contains(body, "invalid email or password") {
			t.Fatalf("sign in with %v: %d %s", creds, res.StatusCode, body)
		}
		if len(res.Cookies()) != 0 {
			t.Fatal("a refused sign-in set a cookie")
		}
	}
	res := anon.do("POST", "/api/session", map[string]string{"email": strings.ToUpper(testEmail), "password": testPassword})
	readAll(t, res)
	if res.StatusCode != 200 {
		t.Fatalf("sign in: %d", res.StatusCode)
	}
	raw := res.Header.Get("Set-Cookie")
	for _, want := range []string{sessionCookie + "=", "HttpOnly", "SameSite=Strict", "Secure", "Path=/", "Max-Age=3600"} {
		if !strings.Contains(raw, want) {
			t.Errorf("session cookie %q lacks %s", raw, want)
		}
	}
	c := e.signIn(testEmail, testPassword)
	var got sessionBody
	c.json("GET", "/api/session", nil, 200, &got)
	if got.Operator.Email != testEmail || got.CSRFToken != c.csrf || got.Open {
		t.Fatalf("session %+v", got)
	}
	// Another node on the same database accepts the session.
	other := httptest.NewServer(e.newService())
	defer other.Close()
	c2 := *c
	c2.base = other.URL
	c2.json("GET", "/pg/schemas", nil, 200, nil)

	// The token is stored hashed: the table holds no cookie value.
	var n int
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM basalt.studio_sessions WHERE encode(token_hash, 'escape') LIKE '%' || $1 || '%'`, c.cookie[:16]).Scan(&n); err != nil || n != 0 {
		t.Fatalf("cookie value found in the sessions table (%d, %v)", n, err)
	}
	// Sign-in and failures are in the audit log.
	var ok, failed int
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE action = 'studio.sign_in'), count(*) FILTER (WHERE action = 'studio.sign_in_failed') FROM basalt.studio_audit`).Scan(&ok, &failed); err != nil || ok != 2 || failed != 2 {
		t.Fatalf("audit: %d sign-ins, %d failures, %v", ok, failed, err)
	}

	// Signing out ends the session everywhere.
	c.json("DELETE", "/api/session", nil, http.StatusNoContent, nil)
	if res := c2.do("GET", "/pg/schemas", nil); res.StatusCode != 401 {
		t.Fatalf("after sign-out: %d", res.StatusCode)
	}
	if res := c.do("GET", "/api/session", nil); res.StatusCode != 401 {
		t.Fatalf("session after sign-out: %d", res.StatusCode)
	}
}

// TestSignInIsRateLimited: past the budget of the client's address, even
// the right password is refused with 429 and Retry-After.
func TestSignInIsRateLimited(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.SignInMax = 4 })
	anon := &client{e: e, base: e.srv.URL}
	// The email's own budget is max(3, 4/4) = 3 attempts.
	for i := range 3 {
		res := anon.do("POST", "/api/session", map[string]string{"email": testEmail, "password": "wrong password!!"})
		if readAll(t, res); res.StatusCode != 400 {
			t.Fatalf("attempt %d: %d", i, res.StatusCode)
		}
	}
	res := anon.do("POST", "/api/session", map[string]string{"email": testEmail, "password": testPassword})
	body := readAll(t, res)
	if res.StatusCode != 429 || res.Header.Get("Retry-After") == "" || !strings.Contains(body, "too many sign-in attempts") {
		t.Fatalf("over the email's budget: %d %q %s", res.StatusCode, res.Header.Get("Retry-After"), body)
	}
	// Another email from the same address: the address's budget (4) is spent too.
	if _, err := AddOperator(context.Background(), e.db.Admin, "second@example.com", testPassword); err != nil {
		t.Fatal(err)
	}
	res = anon.do("POST", "/api/session", map[string]string{"email": "second@example.com", "password": testPassword})
	if readAll(t, res); res.StatusCode != 429 {
		t.Fatalf("over the address's budget: %d", res.StatusCode)
	}
}

// TestExpiredSessionIsRefused: a session past its end opens nothing.
func TestExpiredSessionIsRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.signIn(testEmail, testPassword)
	e.exec(`UPDATE basalt.studio_sessions SET expires_at = now() - interval '1 second'`)
	if res := c.do("GET", "/pg/schemas", nil); res.StatusCode != 401 {
		t.Fatalf("expired session: %d", res.StatusCode)
	}
}

// TestOpenStudio: under basalt dev every request from this machine gets the
// dev operator's session without signing in, and a request naming another
// host (DNS rebinding) is refused.
func TestOpenStudio(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Open = true; c.SecureCookie = false })
	anon := &client{e: e, base: e.srv.URL}
	res := anon.do("GET", "/api/session", nil)
	body := readAll(t, res)
	if res.StatusCode != 200 || !strings.Contains(body, devOperator) || !strings.Contains(body, `"open":true`) {
		t.Fatalf("open session: %d %s", res.StatusCode, body)
	}
	if strings.Contains(res.Header.Get("Set-Cookie"), "Secure") {
		t.Fatal("dev cookie is Secure: browsers would drop it over http")
	}
	req, _ := http.NewRequest("GET", e.srv.URL+"/api/session", nil)
	req.Host = "rebind.example:54323"
	if res := send(t, req); res.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("foreign host: %d", res.StatusCode)
	}
	// Signed-in mode gives nothing without a session.
	closed := newEnv(t, nil)
	if res := (&client{e: closed, base: closed.srv.URL}).do("GET", "/api/session", nil); res.StatusCode != 401 {
		t.Fatalf("closed studio without session: %d", res.StatusCode)
	}
}

// TestBootstrapOperator: the environment's operator is created once and
// can sign in; a second start changes nothing.
func TestBootstrapOperator(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.BootstrapEmail = "boot@example.com"; c.BootstrapPassword = "bootstrap password 1" })
	e.newService() // a second start, or a second node
	e.signIn("boot@example.com", "bootstrap password 1")
	ops, err := ListOperators(context.Background(), e.db.Admin)
	if err != nil || len(ops) != 2 {
		t.Fatalf("operators %v, %v", ops, err)
	}
}

// TestConfigFromEnv: defaults per command, and the settings refused.
func TestConfigFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	dev, err := ConfigFromEnv(env(nil), true)
	if err != nil || !dev.Enabled || !dev.Open || dev.Port != DefaultPort || dev.Host != "127.0.0.1" || dev.SecureCookie {
		t.Fatalf("dev defaults %+v, %v", dev, err)
	}
	serve, err := ConfigFromEnv(env(nil), false)
	if err != nil || serve.Enabled || serve.Open || !serve.SecureCookie {
		t.Fatalf("serve defaults %+v, %v", serve, err)
	}
	on, err := ConfigFromEnv(env(map[string]string{"BASALT_STUDIO_PORT": "8000"}), false)
	if err != nil || !on.Enabled || on.Port != 8000 || on.Open {
		t.Fatalf("serve with a port %+v, %v", on, err)
	}
	off, _ := ConfigFromEnv(env(map[string]string{"BASALT_STUDIO_ENABLED": "false"}), true)
	if off.Enabled {
		t.Fatal("BASALT_STUDIO_ENABLED=false left Studio on")
	}
	_, err = ConfigFromEnv(env(map[string]string{"BASALT_STUDIO_HOST": "0.0.0.0", "BASALT_STUDIO_OPERATOR_EMAIL": "a@b.c",
		"BASALT_STUDIO_OPERATOR_PASSWORD": "short", "BASALT_STUDIO_URL": "studio.example.com"}), true)
	for _, want := range []string{"BASALT_STUDIO_HOST", "at least 12 characters", "BASALT_STUDIO_URL"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want a problem about %s, got %v", want, err)
		}
	}
	if err != nil && strings.Contains(err.Error(), "short") {
		t.Error("the problem repeats the password")
	}
	_, err = ConfigFromEnv(env(map[string]string{"BASALT_STUDIO_OPERATOR_EMAIL": "a@b.c"}), false)
	if err == nil || !strings.Contains(err.Error(), "go together") {
		t.Errorf("email without password: %v", err)
	}
}
