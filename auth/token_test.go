package auth

import (
	"strings"
	"testing"

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
	r := e.req("POST", "/token?grant_type=id_token", `{"provider":"google","id_token":"garbage"}`, "")
	if r.Status != 400 || !strings.Contains(string(r.Body), `"error_description":"Bad ID token"`) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	tok, _ := e.keys.SignHS256(gojwt.MapClaims{"iss": "https://accounts.google.com"})
	wantErr(t, e.req("POST", "/token?grant_type=id_token", map[string]any{"provider": "google", "id_token": tok}, ""),
		400, "provider_disabled", `Provider (issuer "https://accounts.google.com") is not enabled`)
}
