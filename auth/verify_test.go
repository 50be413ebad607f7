package auth

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// get follows nothing: it returns the recorder of a GET through ServeHTTP.
func (e *env) get(path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.svc.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	return w
}

func linkPath(link string) string { return strings.TrimPrefix(link, "http://api.test/auth/v1") }

func TestVerifyGetImplicit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.req("POST", "/signup?redirect_to=http://evil.example/steal", `{"email":"v@example.com","password":"secret123"}`, "")
	m := e.mails("v@example.com")[0]
	if strings.Contains(m.Link, "evil") {
		t.Fatalf("disallowed redirect kept: %s", m.Link)
	}
	w := e.get(linkPath(m.Link))
	loc, _ := url.Parse(w.Header().Get("Location"))
	frag, _ := url.ParseQuery(loc.Fragment)
	if w.Code != 303 || loc.Host != "localhost:3000" || frag.Get("type") != "signup" || frag.Get("token_type") != "bearer" ||
		frag.Get("refresh_token") == "" || frag.Get("expires_in") != "3600" || !frag.Has("sb") {
		t.Fatalf("verify GET %d %s", w.Code, loc)
	}
	if !strings.HasPrefix(loc.Fragment, "access_token=") {
		t.Fatalf("fragment keys must be sorted: %s", loc.Fragment)
	}
	if u := e.req("GET", "/user", nil, frag.Get("access_token")).json(t); u["email_confirmed_at"] == nil {
		t.Fatal("not confirmed")
	}
	// The same link again fails.
	if w := e.get(linkPath(m.Link)); !strings.Contains(w.Header().Get("Location"), "error_code=otp_expired") {
		t.Fatalf("reused link: %s", w.Header().Get("Location"))
	}
	// token_hash in POST /verify; extra fields are refused.
	wantErr(t, e.req("POST", "/verify", map[string]any{"type": "signup", "token_hash": m.TokenHash, "email": "v@example.com"}, ""),
		400, "validation_failed", "Only the token_hash and type should be provided")
	wantErr(t, e.req("POST", "/verify", map[string]any{"type": "signup", "token_hash": m.TokenHash}, ""),
		403, "otp_expired", "Email link is invalid or has expired")
	wantErr(t, e.req("POST", "/verify", map[string]any{"token": "1"}, ""), 400, "validation_failed", "Verify requires a verification type")
	wantErr(t, e.req("POST", "/verify", map[string]any{"type": "signup"}, ""), 400, "validation_failed", "Verify requires either a token or a token hash")
	wantErr(t, e.req("POST", "/verify", map[string]any{"type": "signup", "token": "1", "email": "bad"}, ""), 422, "validation_failed", "Invalid email format")
}

func pkcePair() (verifier, challenge string) {
	verifier = strings.Repeat("abcdef0123456789", 7)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// A PKCE link that fails carries the error in the query too, without the
// target's own query.
func TestVerifyGetPKCEError(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	w := e.get("/verify?token=pkce_deadbeef&type=magiclink&redirect_to=" + url.QueryEscape("http://localhost:3000/cb?keep=1"))
	loc, _ := url.Parse(w.Header().Get("Location"))
	if w.Code != 303 || loc.Query().Get("error_code") != "otp_expired" || loc.Query().Get("keep") != "" ||
		!strings.Contains(loc.Fragment, "error=access_denied") || loc.Path != "/cb" {
		t.Fatalf("%d %s", w.Code, loc)
	}
}
