package auth

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

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
	c, _ := e.keys.Verify(s.json(t)["access_token"].(string), e.clock.now())
	if c.Map["amr"].([]any)[0].(map[string]any)["method"] != "recovery" {
		t.Fatalf("amr = %v", c.Map["amr"])
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
