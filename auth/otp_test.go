package auth

import (
	"strings"
	"testing"
	"time"
)

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
	dashed := msgs[0].Token[:3] + "-" + msgs[0].Token[3:]
	v := e.req("POST", "/verify", map[string]any{"type": "email", "email": "m@example.com", "token": dashed, "options": map[string]any{}}, "")
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
