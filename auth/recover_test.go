package auth

import (
	"strings"
	"testing"
	"time"
)

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
	e.clock.add(25 * time.Hour)
	at := e.refresh(s["refresh_token"].(string)).json(t)["access_token"].(string)
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
