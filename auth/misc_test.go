package auth

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestWellKnownSettingsHealth(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	j := e.req("GET", "/.well-known/jwks.json", nil, "")
	keys := j.json(t)["keys"].([]any)
	k := keys[0].(map[string]any)
	if j.Status != 200 || len(keys) != 1 || k["kty"] != "EC" || k["alg"] != "ES256" || k["kid"] != e.keys.KID ||
		j.Header.Get("Cache-Control") != "public, max-age=600" {
		t.Fatalf("jwks %d %s %v", j.Status, j.Body, j.Header)
	}
	st := e.req("GET", "/settings", nil, "").json(t)
	if st["mailer_autoconfirm"] != false || st["external"].(map[string]any)["email"] != true || st["disable_signup"] != false {
		t.Fatalf("settings %v", st)
	}
	if h := e.req("GET", "/health", nil, "").json(t); h["name"] != "GoTrue" {
		t.Fatalf("health %v", h)
	}
	wantErr(t, e.req("POST", "/sso", `{}`, ""), 404, "saml_provider_disabled", "SAML 2.0 is disabled")
}

// Without X-Supabase-Api-Version the legacy error body is used.
func TestLegacyErrorFormat(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	r := httptest.NewRequest("POST", "/signup", strings.NewReader(`{"email":"a@b.co"}`))
	w := httptest.NewRecorder()
	e.svc.ServeHTTP(w, r)
	if w.Code != 400 || w.Header().Get(apiVersionHeader) != "" || w.Header().Get("x-sb-error-code") != "validation_failed" ||
		strings.TrimSpace(w.Body.String()) != `{"code":400,"error_code":"validation_failed","msg":"Signup requires a valid password"}` {
		t.Fatalf("%d %v %s", w.Code, w.Header(), w.Body)
	}
}

func TestMethodNotAllowedAndNotFound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	r := e.req("GET", "/signup", nil, "")
	if r.Status != 405 || r.Header.Get("Allow") != "POST" || len(r.Body) != 0 {
		t.Fatalf("GET /signup: %d %v %q", r.Status, r.Header, r.Body)
	}
	if r := e.req("PATCH", "/user", nil, ""); r.Status != 405 || r.Header.Get("Allow") != "GET, PUT" {
		t.Fatalf("PATCH /user: %d %v", r.Status, r.Header)
	}
	wantErr(t, e.req("GET", "/nope", nil, ""), 404, "not_found", "")
}

// While the OAuth 2.1 server is off (the default), each of its paths answers, whatever
// the method, as a reference server with the feature off: 404
// feature_disabled, the admin API and the user's grants only after their
// usual authentication, in both error formats.
func TestOAuthServerDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	const msg = "OAuth server is disabled"
	for _, c := range [][2]string{
		{"GET", "/oauth/authorize?client_id=x&response_type=code"}, {"POST", "/oauth/token"},
		{"POST", "/oauth/clients/register"}, {"GET", "/oauth/userinfo"}, {"GET", "/oauth/authorizations/abc"},
		{"POST", "/oauth/authorizations/abc/consent"}, {"PATCH", "/oauth"}, {"GET", "/.well-known/oauth-authorization-server"},
	} {
		wantErr(t, e.req(c[0], c[1], nil, ""), 404, "feature_disabled", msg)
	}
	user := e.signUp("oauth@example.com", "secret123")["access_token"].(string)
	for _, c := range [][2]string{
		{"GET", "/admin/oauth/clients"}, {"POST", "/admin/oauth/clients"}, {"GET", "/admin/oauth/clients/abc"},
		{"PUT", "/admin/oauth/clients/abc"}, {"DELETE", "/admin/oauth/clients/abc"},
		{"POST", "/admin/oauth/clients/abc/regenerate_secret"},
	} {
		wantErr(t, e.req(c[0], c[1], `{"client_name":"x"}`, ""), 401, "no_authorization", "")
		wantErr(t, e.req(c[0], c[1], `{"client_name":"x"}`, user), 403, "not_admin", "User not allowed")
		wantErr(t, e.req(c[0], c[1], `{"client_name":"x"}`, e.service()), 404, "feature_disabled", msg)
	}
	for _, method := range []string{"GET", "DELETE"} {
		wantErr(t, e.req(method, "/user/oauth/grants", nil, ""), 401, "no_authorization", "")
		wantErr(t, e.req(method, "/user/oauth/grants?client_id=abc", nil, user), 404, "feature_disabled", msg)
	}
	if r := e.req("POST", "/.well-known/oauth-authorization-server", nil, ""); r.Status != 405 || r.Header.Get("Allow") != "GET" {
		t.Errorf("POST to the metadata document: %d %v", r.Status, r.Header)
	}
	r := httptest.NewRequest("GET", "/admin/oauth/clients", nil)
	r.Header.Set("Authorization", "Bearer "+e.service())
	w := httptest.NewRecorder()
	e.svc.ServeHTTP(w, r)
	if w.Code != 404 || strings.TrimSpace(w.Body.String()) != `{"code":404,"error_code":"feature_disabled","msg":"OAuth server is disabled"}` {
		t.Errorf("legacy format: %d %s", w.Code, w.Body)
	}
}
