package auth

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// A third-party app signs a user in "with Backline" as any OpenID Connect
// relying party would, with golang.org/x/oauth2 and coreos/go-oidc:
// discovery at the issuer, the authorization code flow with PKCE (S256)
// through the app's consent page, the ID token verified against the JWKS
// (signature, issuer, audience, expiry, nonce), userinfo, and a refresh.
// Once with a confidential client (client_secret_basic), once with a
// public one (PKCE only), and once more with an RS256 key set signing.
func TestOAuthCodeFlowWithOIDCClient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		client map[string]any
		rs256  bool
	}{
		{"confidential", map[string]any{"client_name": "Liner Notes", "redirect_uris": []string{"http://127.0.0.1:9/cb"}}, false},
		{"public", map[string]any{"client_name": "Pocket Player", "client_type": "public", "redirect_uris": []string{"http://127.0.0.1:9/cb"}}, false},
		{"confidential_rs256", map[string]any{"client_name": "Tour Dates", "redirect_uris": []string{"http://127.0.0.1:9/cb"},
			"token_endpoint_auth_method": "client_secret_post"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := newOAuthEnv(t, nil)
			if tc.rs256 {
				if err := o.keys.SetKeySet(rsaKeySet(t)); err != nil {
					t.Fatal(err)
				}
			}
			c := o.client(tc.client)
			if tc.client["client_type"] == "public" {
				if _, has := c["client_secret"]; has || c["token_endpoint_auth_method"] != "none" {
					t.Fatalf("public client: %v", c)
				}
			} else if c["client_secret"] == nil || c["client_type"] != "confidential" {
				t.Fatalf("confidential client: %v", c)
			}
			user := o.signUp("fan@backline.test", "secret123")
			o.exec(`UPDATE auth.users SET raw_user_meta_data = '{"name":"Ada Fan","avatar_url":"https://img.test/ada.png"}' WHERE email = 'fan@backline.test'`)
			ctx := o.ctx()

			provider, err := oidc.NewProvider(ctx, o.issuer)
			if err != nil {
				t.Fatal(err)
			}
			conf := o.oauthConfig(c, "http://127.0.0.1:9/cb", oidc.ScopeOpenID, "email", "profile")
			if provider.Endpoint().AuthURL != conf.Endpoint.AuthURL || provider.Endpoint().TokenURL != conf.Endpoint.TokenURL {
				t.Fatalf("discovered endpoints %+v", provider.Endpoint())
			}
			if tc.rs256 {
				conf.Endpoint.AuthStyle = oauth2.AuthStyleInParams
			}
			verifier, nonce, state := oauth2.GenerateVerifier(), "n-"+randomString(8), "s-"+randomString(8)
			authURL := conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier), oidc.Nonce(nonce))

			id := o.authorizationID(authURL)
			details := o.req("GET", "/oauth/authorizations/"+id, nil, user["access_token"].(string)).json(t)
			if details["authorization_id"] != id || details["scope"] != "openid email profile" ||
				details["client"].(map[string]any)["name"] != tc.client["client_name"] ||
				details["user"].(map[string]any)["email"] != "fan@backline.test" || details["redirect_uri"] != "http://127.0.0.1:9/cb" {
				t.Fatalf("details: %v", details)
			}
			back := o.decide(user["access_token"].(string), id, "approve")
			if back.Host != "127.0.0.1:9" || back.Path != "/cb" || back.Query().Get("state") != state {
				t.Fatalf("redirect: %v", back)
			}
			tok, err := conf.Exchange(ctx, back.Query().Get("code"), oauth2.VerifierOption(verifier))
			if err != nil {
				t.Fatal(err)
			}

			raw, _ := tok.Extra("id_token").(string)
			idt, err := provider.Verifier(&oidc.Config{ClientID: c["client_id"].(string)}).Verify(ctx, raw)
			if err != nil {
				t.Fatalf("verify id token: %v", err)
			}
			var claims struct {
				Email         string `json:"email"`
				EmailVerified bool   `json:"email_verified"`
				Name          string `json:"name"`
				Picture       string `json:"picture"`
				Phone         string `json:"phone_number"`
			}
			if err := idt.Claims(&claims); err != nil {
				t.Fatal(err)
			}
			if idt.Nonce != nonce || idt.Subject != user["user"].(map[string]any)["id"] || claims.Email != "fan@backline.test" ||
				!claims.EmailVerified || claims.Name != "Ada Fan" || claims.Picture != "https://img.test/ada.png" || claims.Phone != "" {
				t.Fatalf("id token: nonce %q sub %q claims %+v", idt.Nonce, idt.Subject, claims)
			}
			wantAlg := "ES256"
			if tc.rs256 {
				wantAlg = "RS256"
			}
			if hdr := strings.SplitN(raw, ".", 2)[0]; !strings.Contains(decodeSegment(t, hdr), `"alg":"`+wantAlg+`"`) {
				t.Fatalf("id token header %s", decodeSegment(t, hdr))
			}

			// The access token is a project JWT for this client and these scopes.
			at, err := o.keys.Verify(tok.AccessToken, time.Now())
			if err != nil || at.Map["client_id"] != c["client_id"] || at.Map["scope"] != "openid email profile" || at.Role != "authenticated" {
				t.Fatalf("access token: %v %v", err, at)
			}
			info, err := provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
			if err != nil || info.Email != "fan@backline.test" || !info.EmailVerified || info.Subject != idt.Subject {
				t.Fatalf("userinfo: %v %+v", err, info)
			}

			// A refresh rotates the refresh token and keeps the grant.
			old := tok.RefreshToken
			tok.Expiry = time.Now().Add(-time.Minute)
			fresh, err := conf.TokenSource(ctx, tok).Token()
			if err != nil || fresh.RefreshToken == old {
				t.Fatalf("refresh: %v %+v", err, fresh)
			}
			if at, err := o.keys.Verify(fresh.AccessToken, time.Now()); err != nil || at.Map["client_id"] != c["client_id"] || at.Map["scope"] != "openid email profile" {
				t.Fatalf("refreshed access token: %v %v", err, at)
			}
		})
	}
}

// decodeSegment decodes one base64url part of a JWT.
func decodeSegment(t *testing.T, s string) string {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The refresh-token reuse attack: a refresh token that was already
// rotated comes back after the reuse interval (someone copied it). The
// whole family is revoked: the attacker's replay fails, and so does the
// legitimate client's current token, so neither keeps access; the user
// grants again. A session's refresh tokens also refresh only for their
// own client, never at /token or for another client.
func TestOAuthRefreshReuseRevokesFamily(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t, nil)
	c := o.client(map[string]any{"client_name": "Setlist", "redirect_uris": []string{"http://127.0.0.1:9/cb"}})
	other := o.client(map[string]any{"client_name": "Other", "redirect_uris": []string{"http://127.0.0.1:9/cb"}})
	user := o.signUp("reuse@backline.test", "secret123")
	conf := o.oauthConfig(c, "http://127.0.0.1:9/cb", "openid")
	ctx := o.ctx()
	verifier := oauth2.GenerateVerifier()
	code := o.consentedCode(user["access_token"].(string), conf.AuthCodeURL("st", oauth2.S256ChallengeOption(verifier)))
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	id, secret := c["client_id"].(string), c["client_secret"].(string)
	refresh := func(rt, user, pass string) (int, map[string]any) {
		return o.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}, user, pass)
	}

	// Bound to the client: not at /token, not for another client.
	r := o.req("POST", "/token?grant_type=refresh_token", map[string]string{"refresh_token": tok.RefreshToken}, "")
	if r.Status != 400 || r.json(t)["error"] != "invalid_client" {
		t.Fatalf("first-party refresh of a client's token: %d %s", r.Status, r.Body)
	}
	if st, body := refresh(tok.RefreshToken, other["client_id"].(string), other["client_secret"].(string)); st != 400 ||
		body["error"] != "invalid_client" || body["error_description"] != "Client does not match the session's OAuth client" {
		t.Fatalf("another client: %d %v", st, body)
	}

	// The client refreshes as usual: rt1 → rt2 → rt3. A retry of rt2
	// (the client lost the answer) hands back rt3 again.
	rt1 := tok.RefreshToken
	rotate := func(rt string) string {
		t.Helper()
		st, body := refresh(rt, id, secret)
		if st != 200 {
			t.Fatalf("rotate: %d %v", st, body)
		}
		if _, has := body["user"]; has || body["token_type"] != "bearer" {
			t.Fatalf("an OAuth token answer carries tokens only: %v", body)
		}
		return body["refresh_token"].(string)
	}
	rt2 := rotate(rt1)
	rt3 := rotate(rt2)
	if again := rotate(rt2); again != rt3 {
		t.Fatalf("retry of the active token's parent: %s, want %s", again, rt3)
	}
	o.clock.add(o.svc.cfg.RefreshTokenReuseInterval + time.Second)
	// Later, the stolen rt1 comes back: the attack.
	if st, body := refresh(rt1, id, secret); st != 400 || body["error_code"] != "refresh_token_already_used" {
		t.Fatalf("replayed refresh token: %d %v", st, body)
	}
	// The family is dead: the client's current token fails too.
	if st, body := refresh(rt3, id, secret); st != 400 || body["error_code"] != "refresh_token_already_used" {
		t.Fatalf("family member after the replay: %d %v", st, body)
	}
	var live int
	if err := o.db.Admin.QueryRow(ctx, `SELECT count(*) FROM auth.refresh_tokens t JOIN auth.sessions s ON s.id = t.session_id
		WHERE s.oauth_client_id = $1 AND NOT t.revoked`, id).Scan(&live); err != nil || live != 0 {
		t.Fatalf("live refresh tokens of the family: %d %v", live, err)
	}
}
