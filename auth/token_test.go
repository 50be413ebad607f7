package auth

import (
	"fmt"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
)

func TestTokenPassword(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.MailerAutoconfirm = true })
	e.signUp("pat@example.com", "secret123")
	for _, tc := range []struct {
		name, query, body string
		status            int
		code, msg         string
	}{
		{"wrong password", "password", `{"email":"pat@example.com","password":"nope1234"}`, 400, "invalid_credentials", "Invalid login credentials"},
		{"unknown user", "password", `{"email":"who@example.com","password":"secret123"}`, 400, "invalid_credentials", "Invalid login credentials"},
		{"neither", "password", `{"password":"secret123"}`, 400, "validation_failed", "missing email or phone"},
		{"both", "password", `{"email":"pat@example.com","phone":"15551234567","password":"x"}`, 400, "validation_failed", ""},
		{"phone disabled", "password", `{"phone":"15551234567","password":"x"}`, 422, "phone_provider_disabled", "Phone logins are disabled"},
		{"bad grant", "nope", `{}`, 400, "invalid_credentials", "unsupported_grant_type"},
		{"web3", "web3", `{}`, 422, "web3_provider_disabled", "Web3 provider is disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantErr(t, e.req("POST", "/token?grant_type="+tc.query, tc.body, e.keys.AnonKey), tc.status, tc.code, tc.msg)
		})
	}
	r := e.req("POST", "/token?grant_type=password", `{"email":"PAT@example.com","password":"secret123","gotrue_meta_security":{}}`, e.keys.AnonKey)
	if r.Status != 200 {
		t.Fatalf("sign in %d %s", r.Status, r.Body)
	}
	m := r.json(t)
	if _, ok := m["weak_password"]; ok {
		t.Fatal("weak_password must be omitted for a good password")
	}
	if m["user"].(map[string]any)["last_sign_in_at"] == nil {
		t.Fatal("last_sign_in_at not set")
	}
	// Banned users cannot sign in.
	e.exec(`UPDATE auth.users SET banned_until = now() + interval '1 day'`)
	wantErr(t, e.req("POST", "/token?grant_type=password", `{"email":"pat@example.com","password":"secret123"}`, ""), 400, "user_banned", "User is banned")
}

// A correct password that no longer meets the policy signs in with a
// weak_password notice.
func TestTokenPasswordWeakNotice(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	e.signUp("w@example.com", "abcdef")
	e.svc.cfg.PasswordMinLength = 10
	r := e.req("POST", "/token?grant_type=password", `{"email":"w@example.com","password":"abcdef"}`, "")
	wp, ok := r.json(t)["weak_password"].(map[string]any)
	if r.Status != 200 || !ok || wp["reasons"].([]any)[0] != "length" || wp["message"] == "" {
		t.Fatalf("response %d %s", r.Status, r.Body)
	}
}

func TestIDTokenGrantRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	r := e.req("POST", "/token?grant_type=id_token", `{"id_token":"garbage"}`, "")
	if r.Status != 400 || !strings.Contains(string(r.Body), `"error_description":"provider or client_id and issuer required"`) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	// A provider that is not enabled is refused before its token is read.
	wantErr(t, e.req("POST", "/token?grant_type=id_token", `{"provider":"google","id_token":"garbage"}`, ""),
		400, "provider_disabled", `Provider (issuer "https://accounts.google.com") is not enabled`)
	tok, _ := e.keys.SignHS256(gojwt.MapClaims{"iss": "https://accounts.google.com"})
	wantErr(t, e.req("POST", "/token?grant_type=id_token", map[string]any{"provider": "google", "id_token": tok}, ""),
		400, "provider_disabled", `Provider (issuer "https://accounts.google.com") is not enabled`)
}

// A wrong password for an existing account and any password for an
// unknown address cost the same bcrypt work, so response time does not
// tell which addresses have accounts. The fastest of a few samples of each
// is compared, which scheduling noise can only slow down.
func TestTokenPasswordUnknownEmailTiming(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.MailerAutoconfirm = true; c.BcryptCost = 10 })
	e.signUp("known@example.com", "secret123")
	took := func(email string) time.Duration {
		start := time.Now()
		r := e.req("POST", "/token?grant_type=password", map[string]any{"email": email, "password": "wrong-one"}, "")
		d := time.Since(start)
		wantErr(t, r, 400, "invalid_credentials", "Invalid login credentials")
		return d
	}
	wrong, unknown := time.Hour, time.Hour
	for i := range 4 {
		wrong = min(wrong, took("known@example.com"))
		unknown = min(unknown, took(fmt.Sprintf("nobody%d@example.com", i)))
	}
	if unknown < wrong/2 {
		t.Fatalf("unknown address answered in %v, wrong password in %v: timing reveals which addresses have accounts", unknown, wrong)
	}
}
