package auth

import (
	"testing"
)

// A custom OIDC provider registered through the admin API signs users in
// as custom:<id>: its authorization_params win over the app's, Basalt uses
// PKCE with it (the reference's default), allow-listed raw claims land in
// custom_claims and the attribute mapping fills identity_data. A new
// issuer is discovered again; disabled or unknown, it is an unsupported
// provider.
func TestCustomProviderSignIn(t *testing.T) {
	t.Parallel()
	e, idp := newCustomEnv(t, nil)
	createCustom(t, e, oidcBody(idp, "custom:corp", map[string]any{"authorization_params": map[string]any{"prompt": "login"},
		"custom_claims_allowlist": []string{"picture"}, "attribute_mapping": map[string]any{"nickname": "name"}}))
	idp.next(&idpUser{Sub: "c-1", Email: "Cy@Corp.Example", Verified: true, Name: "Cy", Picture: "https://img/cy"})
	b := e.browser(idp.Addr()).trusting(idp)
	authz, last := b.follow(t, "/authorize?provider=custom:corp&redirect_to=http://localhost:3000/in&prompt=none")
	q := authz.Query()
	if q.Get("prompt") != "login" || q.Get("code_challenge") == "" || q.Get("scope") != "openid" || q.Get("nonce") == "" ||
		q.Get("client_id") != idp.ClientID || q.Get("redirect_uri") != "http://api.test/auth/v1/callback" {
		t.Fatalf("authorization request %s", authz)
	}
	f := fragment(t, last.Location)
	if last.Status != 302 || last.Location.Path != "/in" || f.Get("access_token") == "" {
		t.Fatalf("callback %d %v", last.Status, last.Location)
	}
	u := e.req("GET", "/user", nil, f.Get("access_token")).json(t)
	id := u["identities"].([]any)[0].(map[string]any)
	data := id["identity_data"].(map[string]any)
	custom, _ := data["custom_claims"].(map[string]any)
	if id["provider"] != "custom:corp" || id["id"] != "c-1" || u["email"] != "cy@corp.example" || u["email_confirmed_at"] == nil ||
		data["nickname"] != "Cy" || custom["picture"] != "https://img/cy" {
		t.Fatalf("user %v", u)
	}

	// Saving the issuer again makes the next sign-in discover it again.
	cached := func() int {
		e.svc.oidc.mu.Lock()
		defer e.svc.oidc.mu.Unlock()
		return len(e.svc.oidc.entries)
	}
	if n := cached(); n != 1 {
		t.Fatalf("%d discovery documents cached", n)
	}
	r := e.req("PUT", "/admin/custom-providers/custom:corp", map[string]any{"issuer": idp.Issuer(), "enabled": false}, e.service())
	if r.Status != 200 {
		t.Fatalf("disable %d %s", r.Status, r.Body)
	}
	if n := cached(); n != 0 {
		t.Fatalf("%d discovery documents still cached after the issuer was saved", n)
	}
	wantErr(t, e.req("GET", "/authorize?provider=custom:corp", nil, ""), 400, "validation_failed",
		"Unsupported provider: custom provider custom:corp is disabled")
	wantErr(t, e.req("GET", "/authorize?provider=custom:nope", nil, ""), 400, "validation_failed",
		"Unsupported provider: custom provider custom:nope not found")
	off := newEnv(t, func(c *Config) { c.CustomOAuth.Enabled = false })
	wantErr(t, off.req("GET", "/authorize?provider=custom:corp", nil, ""), 400, "validation_failed",
		"Unsupported provider: custom OAuth providers are disabled")
}

// A plain OAuth 2.0 provider of the admin API: no nonce, no PKCE when it
// is off, and the user is what its userinfo URL says, mapped. The
// callback it is given follows CUSTOM_OAUTH_EXTERNAL_URL.
func TestCustomProviderOAuth2SignIn(t *testing.T) {
	t.Parallel()
	e, idp := newCustomEnv(t, nil)
	createCustom(t, e, oauth2Body(idp, "custom:plain", map[string]any{"pkce_enabled": false, "scopes": []string{"openid", "email"},
		"attribute_mapping": map[string]any{"preferred_username": "email"}}))
	idp.next(&idpUser{Sub: "p-1", Email: "pat@example.com", Verified: true, Name: "Pat"})
	b := e.browser(idp.Addr()).trusting(idp)
	authz, last := b.follow(t, "/authorize?provider=custom:plain&redirect_to=http://localhost:3000/in")
	q := authz.Query()
	if q.Get("code_challenge") != "" || q.Get("nonce") != "" || q.Get("scope") != "openid email" {
		t.Fatalf("authorization request %s", authz)
	}
	f := fragment(t, last.Location)
	u := e.req("GET", "/user", nil, f.Get("access_token")).json(t)
	id := u["identities"].([]any)[0].(map[string]any)
	data := id["identity_data"].(map[string]any)
	if id["provider"] != "custom:plain" || id["id"] != "p-1" || data["preferred_username"] != "pat@example.com" ||
		data["name"] != "Pat" || u["email"] != "pat@example.com" || u["email_confirmed_at"] == nil {
		t.Fatalf("user %v", u)
	}

	e.svc.cfg.CustomOAuth.ExternalURL = "https://login.example.com/auth/v1/"
	to := b.get(t, "/authorize?provider=custom:plain").Location
	if to.Query().Get("redirect_uri") != "https://login.example.com/auth/v1/callback" {
		t.Fatalf("authorization request %s", to)
	}
}

// signInWithIdToken with a custom OIDC provider of the admin API: tokens
// issued to one of its acceptable client ids (a native app's), with the
// app's nonce; disabled, OAuth 2.0-only or unknown providers are refused with
// the reference's errors.
func TestCustomProviderIDToken(t *testing.T) {
	t.Parallel()
	e, idp := newCustomEnv(t, nil)
	createCustom(t, e, oidcBody(idp, "custom:corp", map[string]any{"client_id": "web-app", "acceptable_client_ids": []string{idp.ClientID}}))
	createCustom(t, e, oauth2Body(idp, "custom:plain", nil))
	tok := idp.idToken(t, &idpUser{Sub: "c-2", Email: "dee@corp.example", Verified: true}, sha256Hex("n-1"))
	r := e.req("POST", "/token?grant_type=id_token", map[string]any{"provider": "custom:corp", "id_token": tok, "nonce": "n-1"}, "")
	if r.Status != 200 {
		t.Fatalf("id_token grant %d %s", r.Status, r.Body)
	}
	if id := r.json(t)["user"].(map[string]any)["identities"].([]any)[0].(map[string]any); id["provider"] != "custom:corp" || id["id"] != "c-2" {
		t.Fatalf("identity %v", id)
	}
	grant := func(provider string) *resp {
		return e.req("POST", "/token?grant_type=id_token", map[string]any{"provider": provider, "id_token": tok, "nonce": "n-1"}, "")
	}
	wantErr(t, grant("custom:plain"), 400, "validation_failed", `Provider "custom:plain" is not an OIDC provider`)
	wantErr(t, grant("custom:nope"), 400, "validation_failed", `Custom provider "custom:nope" not found`)
	if r := e.req("PUT", "/admin/custom-providers/custom:corp", map[string]any{"enabled": false}, e.service()); r.Status != 200 {
		t.Fatalf("disable %d %s", r.Status, r.Body)
	}
	wantErr(t, grant("custom:corp"), 400, "provider_disabled", `Custom provider "custom:corp" is disabled`)
}
