package auth

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// get follows nothing: it returns the recorder of a GET through ServeHTTP.
func (e *env) get(path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	e.svc.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
	return w
}

func linkPath(link string) string { return strings.TrimPrefix(link, "http://api.test/auth/v1") }

func TestMagicLinkOTP(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	e.signUp("m@example.com", "secret123")
	wantErr(t, e.req("POST", "/otp", `{"email":"nobody@example.com","create_user":false}`, ""), 422, "otp_disabled", "Signups not allowed for otp")
	wantErr(t, e.req("POST", "/otp", `{}`, ""), 400, "validation_failed", "One of email or phone must be set")
	r := e.req("POST", "/otp?redirect_to=http://localhost:3000/cb", `{"email":"m@example.com","create_user":true,"data":{},"code_challenge":null,"code_challenge_method":null}`, "")
	if r.Status != 200 || string(r.Body) != "{}\n" {
		t.Fatalf("otp %d %s", r.Status, r.Body)
	}
	msgs := e.mails("m@example.com")
	if len(msgs) != 1 || msgs[0].Type != "magic_link" || !strings.Contains(msgs[0].Link, "type=magiclink") {
		t.Fatalf("mails %+v", msgs)
	}
	// Wrong code, then the right one (type email matches magic links too).
	wantErr(t, e.req("POST", "/verify", map[string]any{"type": "email", "email": "m@example.com", "token": "000000"}, ""),
		403, "otp_expired", "Token has expired or is invalid")
	v := e.req("POST", "/verify", map[string]any{"type": "email", "email": "m@example.com", "token": msgs[0].Token, "options": map[string]any{}}, "")
	if v.Status != 200 {
		t.Fatalf("verify %d %s", v.Status, v.Body)
	}
	c, _ := e.keys.Verify(v.json(t)["access_token"].(string), e.clock.now())
	if c.Map["amr"].([]any)[0].(map[string]any)["method"] != "otp" {
		t.Fatalf("amr %v", c.Map["amr"])
	}
	// Single use.
	wantErr(t, e.req("POST", "/verify", map[string]any{"type": "email", "email": "m@example.com", "token": msgs[0].Token}, ""), 403, "otp_expired", "")
	// The link form after expiry redirects with the error in the fragment.
	e.clock.add(2 * time.Second)
	e.req("POST", "/otp", `{"email":"m@example.com"}`, "")
	link := e.mails("m@example.com")[0].Link
	e.clock.add(25 * time.Hour)
	w := e.get(linkPath(link))
	if w.Code != 303 || w.Header().Get("Location") != "http://localhost:3000/cb#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired&sb=" {
		t.Fatalf("expired link %d %s", w.Code, w.Header().Get("Location"))
	}
}

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

func TestPKCERecovery(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	e.signUp("p@example.com", "secret123")
	verifier, challenge := pkcePair()
	wantErr(t, e.req("POST", "/recover", `{}`, ""), 400, "validation_failed", "Password recovery requires an email")
	if r := e.req("POST", "/recover", `{"email":"ghost@example.com"}`, ""); r.Status != 200 {
		t.Fatalf("unknown email must look like success: %d", r.Status)
	}
	r := e.req("POST", "/recover?redirect_to=http://localhost:3000/reset", map[string]any{"email": "p@example.com",
		"code_challenge": challenge, "code_challenge_method": "s256"}, "")
	if r.Status != 200 {
		t.Fatalf("recover %d %s", r.Status, r.Body)
	}
	m := e.mails("p@example.com")[0]
	if m.Type != "recovery" || !strings.HasPrefix(m.TokenHash, "pkce_") {
		t.Fatalf("mail %+v", m)
	}
	w := e.get(linkPath(m.Link))
	loc, _ := url.Parse(w.Header().Get("Location"))
	code := loc.Query().Get("code")
	if w.Code != 303 || loc.Path != "/reset" || code == "" || loc.Fragment != "" {
		t.Fatalf("pkce verify %d %s", w.Code, loc)
	}
	wantErr(t, e.req("POST", "/token?grant_type=pkce", map[string]any{"auth_code": code}, ""), 400, "validation_failed",
		"invalid request: both auth code and code verifier should be non-empty")
	wantErr(t, e.req("POST", "/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": verifier + "x"}, ""),
		400, "bad_code_verifier", "code challenge does not match previously saved code verifier")
	s := e.req("POST", "/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": verifier}, "")
	if s.Status != 200 {
		t.Fatalf("exchange %d %s", s.Status, s.Body)
	}
	// Single use.
	wantErr(t, e.req("POST", "/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": verifier}, ""),
		404, "flow_state_not_found", "invalid flow state, no valid flow state found")
	// A code older than the flow-state expiry is refused.
	e.clock.add(61 * time.Second)
	e.req("POST", "/recover", map[string]any{"email": "p@example.com", "code_challenge": challenge, "code_challenge_method": "S256"}, "")
	loc, _ = url.Parse(e.get(linkPath(e.mails("p@example.com")[0].Link)).Header().Get("Location"))
	e.clock.add(301 * time.Second)
	wantErr(t, e.req("POST", "/token?grant_type=pkce", map[string]any{"auth_code": loc.Query().Get("code"), "code_verifier": verifier}, ""),
		422, "flow_state_expired", "invalid flow state, flow state has expired")
}

func TestResendAndReauthenticate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.MaxEmailFrequency = time.Second; c.UpdatePasswordRequireReauth = true })
	e.req("POST", "/signup", `{"email":"rs@example.com","password":"secret123"}`, "")
	wantErr(t, e.req("POST", "/resend", `{"type":"nope","email":"rs@example.com"}`, ""), 400, "validation_failed",
		"Missing one of these types: signup, email_change, sms, phone_change")
	e.clock.add(2 * time.Second)
	if r := e.req("POST", "/resend", `{"type":"signup","email":"rs@example.com"}`, ""); r.Status != 200 {
		t.Fatalf("resend %d %s", r.Status, r.Body)
	}
	msgs := e.mails("rs@example.com")
	if len(msgs) != 2 {
		t.Fatalf("want 2 mails, got %d", len(msgs))
	}
	// Only the newest code works.
	wantErr(t, e.req("POST", "/verify", map[string]any{"type": "signup", "email": "rs@example.com", "token": msgs[1].Token}, ""), 403, "otp_expired", "")
	s := e.req("POST", "/verify", map[string]any{"type": "signup", "email": "rs@example.com", "token": msgs[0].Token}, "").json(t)
	// Nothing pending any more: silent success, no mail.
	if r := e.req("POST", "/resend", `{"type":"signup","email":"rs@example.com"}`, ""); r.Status != 200 || len(e.mails("rs@example.com")) != 2 {
		t.Fatal("resend of a confirmed signup must be silent")
	}
	// Reauthentication nonce for a password change on an old session.
	at := s["access_token"].(string)
	e.clock.add(25 * time.Hour)
	at = e.refresh(s["refresh_token"].(string)).json(t)["access_token"].(string)
	wantErr(t, e.req("PUT", "/user", `{"password":"another1"}`, at), 400, "reauthentication_needed", "Password update requires reauthentication")
	if r := e.req("GET", "/reauthenticate", nil, at); r.Status != 200 {
		t.Fatalf("reauthenticate %d %s", r.Status, r.Body)
	}
	nonce := e.mails("rs@example.com")[0]
	if nonce.Type != "reauthentication" || !strings.Contains(nonce.Subject, nonce.Token) {
		t.Fatalf("nonce mail %+v", nonce)
	}
	wantErr(t, e.req("PUT", "/user", `{"password":"another1","nonce":"999999"}`, at), 422, "reauthentication_not_valid", "Nonce has expired or is invalid")
	if r := e.req("PUT", "/user", map[string]any{"password": "another1", "nonce": nonce.Token}, at); r.Status != 200 {
		t.Fatalf("password with nonce %d %s", r.Status, r.Body)
	}
}
