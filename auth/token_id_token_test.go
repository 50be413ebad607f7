package auth

import (
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
)

// wantOAuthErr asserts the OAuth-shaped 400 the id_token grant answers with.
func wantOAuthErr(t *testing.T, r *resp, errName, desc string) {
	t.Helper()
	m := r.json(t)
	if r.Status != 400 || m["error"] != errName || m["error_description"] != desc {
		t.Fatalf("got %d %s, want %q %q", r.Status, r.Body, errName, desc)
	}
}

// signInWithIdToken: the token is checked against the provider's keys,
// issuer, expiry, audience and the app's nonce (hashed as the app gave it
// to the provider), and works once.
func TestIDTokenGrant(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, withIdP(idp, "google"))
	grant := func(body map[string]any) *resp { return e.req("POST", "/token?grant_type=id_token", body, "") }
	ada := &idpUser{Sub: "g-ada", Email: "ada@example.com", Verified: true, Name: "Ada"}
	tok := idp.idToken(t, ada, sha256Hex("raw-nonce"))

	wantOAuthErr(t, grant(map[string]any{"provider": "google", "id_token": tok}), "invalid request",
		"Passed nonce and nonce in id_token should either both exist or not.")
	wantOAuthErr(t, grant(map[string]any{"provider": "google", "id_token": tok, "nonce": "other"}), "invalid nonce", "Nonces mismatch")
	r := grant(map[string]any{"provider": "google", "id_token": tok, "nonce": "raw-nonce"})
	if r.Status != 200 {
		t.Fatalf("grant %d %s", r.Status, r.Body)
	}
	s := r.json(t)
	c, _ := e.keys.Verify(s["access_token"].(string), e.clock.now())
	u := s["user"].(map[string]any)
	if c.Map["amr"].([]any)[0].(map[string]any)["method"] != "oauth" || u["email"] != "ada@example.com" ||
		u["identities"].([]any)[0].(map[string]any)["provider"] != "google" || u["email_confirmed_at"] == nil {
		t.Fatalf("session %s", r.Body)
	}
	// The same token again (captured, or replayed): refused.
	wantOAuthErr(t, grant(map[string]any{"provider": "google", "id_token": tok, "nonce": "raw-nonce"}), "invalid request",
		"ID token has already been used")

	// Without a nonce on either side (the provider's SDK sent none).
	r = grant(map[string]any{"provider": "google", "id_token": idp.idToken(t, ada, "")})
	if r.Status != 200 || r.json(t)["user"].(map[string]any)["id"] != u["id"] {
		t.Fatalf("no-nonce grant %d %s", r.Status, r.Body)
	}

	now := e.clock.now()
	claims := func(mut func(gojwt.MapClaims)) gojwt.MapClaims {
		m := gojwt.MapClaims{"iss": idp.Issuer(), "sub": "g-ada", "aud": idp.ClientID, "exp": now.Add(time.Hour).Unix(),
			"iat": now.Unix(), "email": "ada@example.com", "email_verified": true}
		mut(m)
		return m
	}
	wantOAuthErr(t, grant(map[string]any{"provider": "google", "id_token": idp.sign(t, claims(func(m gojwt.MapClaims) { m["aud"] = "someone-else" }))}),
		"invalid request", "Unacceptable audience in id_token: [someone-else]")
	for name, tok := range map[string]string{
		"expired":     idp.sign(t, claims(func(m gojwt.MapClaims) { m["exp"] = now.Add(-time.Minute).Unix() })),
		"other iss":   idp.sign(t, claims(func(m gojwt.MapClaims) { m["iss"] = "https://evil.example" })),
		"forged":      mustSign(t, e, claims(func(gojwt.MapClaims) {})),
		"not a token": "garbage",
	} {
		r := grant(map[string]any{"provider": "google", "id_token": tok})
		if m := r.json(t); r.Status != 400 || m["error_description"] != "Bad ID token" {
			t.Fatalf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	wantOAuthErr(t, grant(map[string]any{"provider": "google", "id_token": idp.sign(t, claims(func(m gojwt.MapClaims) { delete(m, "sub") }))}),
		"invalid request", "Missing sub claim in id_token")
	wantErr(t, grant(map[string]any{"provider": "custom:nope", "id_token": tok}), 400, "validation_failed", `Custom provider "custom:nope" not found`)
	wantErr(t, grant(map[string]any{"provider": "keycloak", "id_token": tok}), 400, "validation_failed", `Custom OIDC provider "keycloak" not allowed`)
}

func mustSign(t *testing.T, e *env, c gojwt.MapClaims) string {
	t.Helper()
	tok, err := e.keys.SignHS256(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// link_identity with the caller's session adds the token's identity to
// the caller; an unverified address in a token does not open another
// user's account.
func TestIDTokenGrantLinkAndNoTakeover(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, func(c *Config) { withIdP(idp, "custom:corp")(c); c.MailerAutoconfirm = true })
	grant := func(body map[string]any, bearer string) *resp {
		return e.req("POST", "/token?grant_type=id_token", body, bearer)
	}
	s := e.signUp("me@example.com", "secret123")
	at := s["access_token"].(string)
	tok := idp.idToken(t, &idpUser{Sub: "corp-me", Email: "me@corp.example", Verified: true}, "")
	wantOAuthErr(t, grant(map[string]any{"provider": "custom:corp", "id_token": tok, "link_identity": true}, ""),
		"invalid request", "Linking requires a valid user access token in Authorization")
	r := grant(map[string]any{"provider": "custom:corp", "id_token": tok, "link_identity": true}, at)
	u := r.json(t)["user"].(map[string]any)
	if r.Status != 200 || u["id"] != s["user"].(map[string]any)["id"] || len(u["identities"].([]any)) != 2 || u["email"] != "me@example.com" {
		t.Fatalf("link %d %s", r.Status, r.Body)
	}
	wantErr(t, grant(map[string]any{"provider": "custom:corp", "link_identity": true,
		"id_token": idp.idToken(t, &idpUser{Sub: "corp-me", Email: "me@corp.example", Verified: true}, "")}, at),
		422, "identity_already_exists", "Identity is already linked")

	// Someone else's unverified token naming my address: no way in.
	r = grant(map[string]any{"provider": "custom:corp",
		"id_token": idp.idToken(t, &idpUser{Sub: "intruder", Email: "me@example.com"}, "")}, "")
	wantErr(t, r, 422, "provider_email_needs_verification", "Unverified email with custom:corp. Verify the email with custom:corp in order to sign in")
	if ids := e.req("GET", "/user", nil, at).json(t)["identities"].([]any); len(ids) != 2 {
		t.Fatalf("identities %v", ids)
	}
}
