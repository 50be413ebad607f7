package auth

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/basaltdev/basalt/internal/pg"
)

// codeFixture is one approved authorization: the client, its user and
// the code with its verifier.
type codeFixture struct {
	o                *oauthEnv
	id, secret       string
	user             map[string]any
	code, verifier   string
	redirect, userAT string
}

func newCodeFixture(t *testing.T, o *oauthEnv, email string) *codeFixture {
	t.Helper()
	c := o.client(map[string]any{"client_name": "Fixture", "redirect_uris": []string{"http://127.0.0.1:9/cb", "https://app.example/cb"}})
	user := o.signUp(email, "secret123")
	f := &codeFixture{o: o, id: c["client_id"].(string), secret: c["client_secret"].(string), user: user,
		verifier: oauth2.GenerateVerifier(), redirect: "http://127.0.0.1:9/cb", userAT: user["access_token"].(string)}
	conf := o.oauthConfig(c, f.redirect, "openid", "email")
	f.code = o.consentedCode(f.userAT, conf.AuthCodeURL("st", oauth2.S256ChallengeOption(f.verifier)))
	return f
}

// exchange posts the authorization_code grant with the fixture's
// client, overriding form fields with extra.
func (f *codeFixture) exchange(extra url.Values) (int, map[string]any) {
	form := url.Values{"grant_type": {"authorization_code"}, "code": {f.code}, "redirect_uri": {f.redirect}, "code_verifier": {f.verifier}}
	for k, v := range extra {
		form[k] = v
	}
	return f.o.postForm("/oauth/token", form, f.id, f.secret)
}

func wantGrantErr(t *testing.T, what string, st int, body map[string]any, code, desc string) {
	t.Helper()
	if st != 400 || body["error"] != code || body["error_description"] != desc {
		t.Fatalf("%s: %d %v, want 400 %s %q", what, st, body, code, desc)
	}
}

// A code is bound to its client, its redirect URI and its PKCE verifier:
// each mismatch is invalid_grant and leaves the code to its rightful
// holder; then it is exchanged once. A second exchange is refused and
// ends the session the first one started (RFC 6749 §4.1.2): whoever
// replays a code, one of the two parties is not the client.
func TestOAuthCodeBindingAndSingleUse(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t, nil)
	f := newCodeFixture(t, o, "bound@backline.test")
	other := o.client(map[string]any{"client_name": "Thief", "redirect_uris": []string{"http://127.0.0.1:9/cb"}})
	thief := func() (int, map[string]any) {
		return o.postForm("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {f.code},
			"redirect_uri": {f.redirect}, "code_verifier": {f.verifier}}, other["client_id"].(string), other["client_secret"].(string))
	}

	st, body := f.exchange(url.Values{"code_verifier": {oauth2.GenerateVerifier()}})
	wantGrantErr(t, "wrong verifier", st, body, "invalid_grant", "PKCE verification failed: code challenge does not match previously saved code verifier")
	st, body = f.exchange(url.Values{"code_verifier": {""}})
	wantGrantErr(t, "no verifier", st, body, "invalid_grant", "PKCE verification failed: code_verifier is required when PKCE challenge is present")
	st, body = f.exchange(url.Values{"redirect_uri": {"https://app.example/cb"}})
	wantGrantErr(t, "other registered redirect URI", st, body, "invalid_grant", "Invalid redirect_uri")
	st, body = thief()
	wantGrantErr(t, "another client", st, body, "invalid_grant", "Authorization code was not issued for this client")
	st, body = f.exchange(url.Values{"code": {f.code + "x"}})
	wantGrantErr(t, "unknown code", st, body, "invalid_grant", "Invalid authorization code")
	if st, body := o.postForm("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {f.code},
		"code_verifier": {f.verifier}}, f.id, "wrong-secret"); st != 400 || body["error_code"] != "invalid_credentials" {
		t.Fatalf("wrong client secret: %d %v", st, body)
	}

	st, tok := f.exchange(nil)
	if st != 200 || tok["access_token"] == nil || tok["id_token"] == nil {
		t.Fatalf("exchange: %d %v", st, tok)
	}
	st, body = f.exchange(nil)
	wantGrantErr(t, "second exchange", st, body, "invalid_grant", "Invalid authorization code")
	// The first exchange's tokens died with the replay.
	if st, body := o.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok["refresh_token"].(string)}},
		f.id, f.secret); st != 400 || body["error_code"] != "refresh_token_not_found" {
		t.Fatalf("refresh after the code's replay: %d %v", st, body)
	}
	wantErr(t, o.req("GET", "/user", nil, tok["access_token"].(string)), 403, "session_not_found", "")
	// The code is stored only as its hash.
	var n int
	if err := o.db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM auth.oauth_authorizations
		WHERE authorization_code = $1 OR authorization_code = $2`, f.code, hashCode(f.code)).Scan(&n); err != nil || n != 1 {
		t.Fatalf("stored code: %d %v", n, err)
	}
	var plain bool
	if err := o.db.Admin.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM auth.oauth_authorizations
		WHERE authorization_code = $1)`, f.code).Scan(&plain); err != nil || plain {
		t.Fatalf("the code itself is in the table: %v %v", plain, err)
	}
}

// A code lives CodeTTL after the approval; an authorization the user
// never answers lives AuthorizationTTL.
func TestOAuthCodeAndAuthorizationExpire(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t, nil)
	f := newCodeFixture(t, o, "late@backline.test")
	o.clock.add(o.svc.cfg.OAuthServer.CodeTTL + 1)
	st, body := f.exchange(nil)
	wantGrantErr(t, "expired code", st, body, "invalid_grant", "Authorization code has expired")

	c := o.client(map[string]any{"client_name": "Slow", "redirect_uris": []string{"http://127.0.0.1:9/cb"}})
	conf := o.oauthConfig(c, "http://127.0.0.1:9/cb", "email")
	id := o.authorizationID(conf.AuthCodeURL("st", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	o.clock.add(o.svc.cfg.OAuthServer.AuthorizationTTL + 1)
	wantErr(t, o.req("GET", "/oauth/authorizations/"+id, nil, f.userAT), 404, "oauth_authorization_not_found", "authorization not found")
	wantErr(t, o.req("POST", "/oauth/authorizations/"+id+"/consent", `{"action":"approve"}`, f.userAT), 404,
		"oauth_authorization_not_found", "authorization not found")
	var status string
	if err := o.db.Admin.QueryRow(context.Background(), `SELECT status::text FROM auth.oauth_authorizations WHERE authorization_id = $1`, id).Scan(&status); err != nil || status != "expired" {
		t.Fatalf("status: %q %v", status, err)
	}
}

// /oauth/authorize can send a browser only to a URI the client
// registered, compared as a whole string: anything else is answered where
// the request was made, with no Location. Errors after that check go back
// to the registered URI with the state. Registration refuses addresses
// that could run code or leave the machine over plain http.
func TestOAuthNoOpenRedirect(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t, nil)
	c := o.client(map[string]any{"client_name": "Strict", "redirect_uris": []string{"https://app.example/cb"}})
	id := c["client_id"].(string)
	challenge := oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier())
	q := func(kv ...string) url.Values {
		v := url.Values{"client_id": {id}, "redirect_uri": {"https://app.example/cb"}, "response_type": {"code"},
			"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "state": {"xyz"}}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				v.Del(kv[i])
			} else {
				v.Set(kv[i], kv[i+1])
			}
		}
		return v
	}
	for _, target := range []string{"https://evil.example/cb", "https://app.example/cb/../../evil", "https://app.example/cb?next=https://evil.example",
		"https://app.example/cb/", "https://app.example.evil.example/cb", "HTTPS://APP.EXAMPLE/cb", "https://app.example/cb#x", "//evil.example/cb"} {
		res := o.authorize(q("redirect_uri", target))
		if res.StatusCode != 400 || res.Header.Get("Location") != "" {
			t.Fatalf("redirect_uri %q: %d to %q", target, res.StatusCode, res.Header.Get("Location"))
		}
	}
	for _, bad := range []url.Values{q("client_id", "00000000-0000-0000-0000-000000000000"), q("client_id", "nope"), q("client_id", ""), q("redirect_uri", "")} {
		if res := o.authorize(bad); res.StatusCode != 400 || res.Header.Get("Location") != "" {
			t.Fatalf("%v: %d to %q", bad, res.StatusCode, res.Header.Get("Location"))
		}
	}
	for _, tc := range []struct {
		q    url.Values
		desc string
	}{
		{q("code_challenge_method", "plain"), "code_challenge_method must be 'S256'"},
		{q("code_challenge", ""), "PKCE flow requires both code_challenge and code_challenge_method"},
		{q("code_challenge", "short"), "code_challenge must be between 43 and 128 characters"},
		{q("scope", "openid admin"), "unsupported scope: admin"},
		{q("response_type", "token"), "only response_type=code is supported"},
	} {
		res := o.authorize(tc.q)
		loc, _ := url.Parse(res.Header.Get("Location"))
		if res.StatusCode != 302 || loc == nil || loc.Scheme+"://"+loc.Host+loc.Path != "https://app.example/cb" ||
			loc.Query().Get("error") != "invalid_request" || loc.Query().Get("error_description") != tc.desc || loc.Query().Get("state") != "xyz" {
			t.Fatalf("%v: %d to %q", tc.q, res.StatusCode, res.Header.Get("Location"))
		}
	}
	// The consent page's own calls come from the app's origin only.
	user := o.signUp("origin@backline.test", "secret123")["access_token"].(string)
	aid := o.authorizationID(o.issuer + "/oauth/authorize?" + q().Encode())
	r := o.reqWithOrigin("GET", "/oauth/authorizations/"+aid, "", user, "https://evil.example")
	wantErr(t, r, 400, "validation_failed", "unauthorized request origin")
	if r := o.reqWithOrigin("GET", "/oauth/authorizations/"+aid, "", user, "http://localhost:3000"); r.Status != 200 {
		t.Fatalf("from the site: %d %s", r.Status, r.Body)
	}

	for _, uri := range []string{"javascript:alert(1)//x", "data://text/html,x", "http://app.example/cb", "https://app.example/cb#frag",
		"https://app.example/a,https://evil.example/b", "/relative/cb", ""} {
		r := o.req("POST", "/admin/oauth/clients", map[string]any{"redirect_uris": []string{uri}}, o.service())
		if r.Status != 400 || r.json(t)["code"] != "validation_failed" || !strings.Contains(r.json(t)["message"].(string), "redirect") {
			t.Fatalf("registering %q: %d %s", uri, r.Status, r.Body)
		}
	}
	for _, uri := range []string{"http://localhost:8080/cb", "http://127.0.0.1/cb", "com.example.app://callback", "https://app.example/cb?x=1"} {
		if r := o.req("POST", "/admin/oauth/clients", map[string]any{"redirect_uris": []string{uri}}, o.service()); r.Status != 201 {
			t.Fatalf("registering %q: %d %s", uri, r.Status, r.Body)
		}
	}
}

// reqWithOrigin is req with an Origin header, as a browser page sends.
func (o *oauthEnv) reqWithOrigin(method, path, body, bearer, origin string) *resp {
	o.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(apiVersionHeader, "2024-01-01")
	req.Header.Set("Origin", origin)
	req.Header.Set("Authorization", "Bearer "+bearer)
	w := httptest.NewRecorder()
	o.svc.ServeHTTP(w, req)
	return &resp{Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}
}

// The consent step: an authorization belongs to the first user who opens
// it; a decision is final; deny sends access_denied back with the state;
// a consent that covers the scopes skips the page next time; the user's
// grants list every app allowed, and revoking one ends its sessions at
// once.
func TestOAuthConsentAndGrants(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t, nil)
	c := o.client(map[string]any{"client_name": "Gig Finder", "client_uri": "https://gigs.example", "logo_uri": "https://gigs.example/logo.png",
		"redirect_uris": []string{"http://127.0.0.1:9/cb"}})
	conf := o.oauthConfig(c, "http://127.0.0.1:9/cb", "openid", "email")
	fan := o.signUp("owner@backline.test", "secret123")["access_token"].(string)
	stranger := o.signUp("stranger@backline.test", "secret123")["access_token"].(string)

	// Deny.
	id := o.authorizationID(conf.AuthCodeURL("deny-state", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	if r := o.req("GET", "/oauth/authorizations/"+id, nil, fan); r.Status != 200 {
		t.Fatalf("details: %d %s", r.Status, r.Body)
	}
	wantErr(t, o.req("GET", "/oauth/authorizations/"+id, nil, stranger), 404, "oauth_authorization_not_found", "")
	wantErr(t, o.req("POST", "/oauth/authorizations/"+id+"/consent", `{"action":"approve"}`, stranger), 404, "oauth_authorization_not_found", "")
	wantErr(t, o.req("POST", "/oauth/authorizations/"+id+"/consent", `{"action":"maybe"}`, fan), 400, "validation_failed", "action must be 'approve' or 'deny'")
	back := o.decide(fan, id, "deny")
	if back.Query().Get("error") != "access_denied" || back.Query().Get("error_description") != "User denied the request" ||
		back.Query().Get("state") != "deny-state" || back.Query().Get("code") != "" {
		t.Fatalf("deny: %v", back)
	}
	wantErr(t, o.req("POST", "/oauth/authorizations/"+id+"/consent", `{"action":"approve"}`, fan), 400, "validation_failed",
		"authorization request is no longer pending")
	if r := o.req("GET", "/user/oauth/grants", nil, fan); string(r.Body) != "[]\n" {
		t.Fatalf("grants after a denial: %s", r.Body)
	}

	// Approve, then the same scopes again: no page.
	verifier := oauth2.GenerateVerifier()
	code := o.consentedCode(fan, conf.AuthCodeURL("a", oauth2.S256ChallengeOption(verifier)))
	tok, err := conf.Exchange(o.ctx(), code, oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	id = o.authorizationID(conf.AuthCodeURL("again", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	r := o.req("GET", "/oauth/authorizations/"+id, nil, fan)
	if m := r.json(t); r.Status != 200 || m["authorization_id"] != nil || !strings.HasPrefix(m["redirect_url"].(string), "http://127.0.0.1:9/cb?code=") {
		t.Fatalf("covered consent: %d %s", r.Status, r.Body)
	}
	// More scopes than granted: the page again.
	wider := o.oauthConfig(c, "http://127.0.0.1:9/cb", "openid", "email", "phone")
	id = o.authorizationID(wider.AuthCodeURL("w", oauth2.S256ChallengeOption(oauth2.GenerateVerifier())))
	if m := o.req("GET", "/oauth/authorizations/"+id, nil, fan).json(t); m["authorization_id"] != id || m["scope"] != "openid email phone" {
		t.Fatalf("wider scopes: %v", m)
	}

	r = o.req("GET", "/user/oauth/grants", nil, fan)
	var grants []map[string]any
	if err := json.Unmarshal(r.Body, &grants); err != nil || len(grants) != 1 {
		t.Fatalf("grants: %s", r.Body)
	}
	g := grants[0]
	client := g["client"].(map[string]any)
	if client["id"] != c["client_id"] || client["name"] != "Gig Finder" || client["uri"] != "https://gigs.example" ||
		client["logo_uri"] != "https://gigs.example/logo.png" || len(g["scopes"].([]any)) != 2 || g["granted_at"] == nil {
		t.Fatalf("grant: %v", g)
	}
	if r := o.req("GET", "/user/oauth/grants", nil, stranger); string(r.Body) != "[]\n" {
		t.Fatalf("a stranger's grants: %s", r.Body)
	}

	wantErr(t, o.req("DELETE", "/user/oauth/grants", nil, fan), 400, "validation_failed", "client_id query parameter is required")
	wantErr(t, o.req("DELETE", "/user/oauth/grants?client_id=x", nil, fan), 400, "validation_failed", "invalid client_id format")
	wantErr(t, o.req("DELETE", "/user/oauth/grants?client_id="+c["client_id"].(string), nil, stranger), 404, "oauth_consent_not_found",
		"No active grant found for this client")
	if r := o.req("DELETE", "/user/oauth/grants?client_id="+c["client_id"].(string), nil, fan); r.Status != 204 {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	wantErr(t, o.req("GET", "/oauth/userinfo", nil, tok.AccessToken), 403, "session_not_found", "")
	if st, body := o.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}},
		c["client_id"].(string), c["client_secret"].(string)); st != 400 || body["error_code"] != "refresh_token_not_found" {
		t.Fatalf("refresh after the revocation: %d %v", st, body)
	}
	if r := o.req("GET", "/user/oauth/grants", nil, fan); string(r.Body) != "[]\n" {
		t.Fatalf("grants after the revocation: %s", r.Body)
	}
	// The user's own session is untouched.
	if r := o.req("GET", "/user", nil, fan); r.Status != 200 {
		t.Fatalf("the user's own session: %d", r.Status)
	}
}

// Client secrets are stored as their hash only, a regenerated secret
// replaces the old one at once, and RFC 7009 revocation ends a session
// of the revoking client only.
func TestOAuthSecretsAndRevocation(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t, nil)
	f := newCodeFixture(t, o, "secret@backline.test")
	var stored string
	if err := o.db.Admin.QueryRow(context.Background(), `SELECT client_secret_hash FROM auth.oauth_clients WHERE id = $1`, f.id).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored == f.secret || stored != hashClientSecret(f.secret) {
		t.Fatalf("stored %q for secret %q", stored, f.secret)
	}
	r := o.req("POST", "/admin/oauth/clients/"+f.id+"/regenerate_secret", nil, o.service())
	fresh, _ := r.json(t)["client_secret"].(string)
	if r.Status != 200 || fresh == "" || fresh == f.secret {
		t.Fatalf("regenerate: %d %s", r.Status, r.Body)
	}
	if st, body := f.exchange(nil); st != 400 || body["error_code"] != "invalid_credentials" || body["msg"] != "invalid client credentials" {
		t.Fatalf("old secret: %d %v", st, body)
	}
	f.secret = fresh
	st, tok := f.exchange(nil)
	if st != 200 {
		t.Fatalf("new secret: %d %v", st, tok)
	}
	other := o.client(map[string]any{"client_name": "Other", "redirect_uris": []string{"http://127.0.0.1:9/cb"}})
	rt := tok["refresh_token"].(string)
	revoke := func(token, id, secret string) {
		t.Helper()
		if st, body := o.postForm("/oauth/revoke", url.Values{"token": {token}}, id, secret); st != 200 {
			t.Fatalf("revoke: %d %v", st, body)
		}
	}
	revoke(rt, other["client_id"].(string), other["client_secret"].(string))
	if r := o.req("GET", "/oauth/userinfo", nil, tok["access_token"].(string)); r.Status != 200 {
		t.Fatalf("another client's revocation took effect: %d %s", r.Status, r.Body)
	}
	revoke("not-a-token", f.id, f.secret)
	revoke(tok["access_token"].(string), f.id, f.secret)
	wantErr(t, o.req("GET", "/oauth/userinfo", nil, tok["access_token"].(string)), 403, "session_not_found", "")
	if st, body := o.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}}, f.id, f.secret); st != 400 ||
		body["error_code"] != "refresh_token_not_found" {
		t.Fatalf("refresh after revocation: %d %v", st, body)
	}
}

// PostgreSQL itself holds the rules the service relies on, so no other
// writer (a migration, an admin's SQL) can store a client or an
// authorization the server would treat unsafely.
func TestOAuthRulesInPostgres(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t, nil)
	c := o.client(map[string]any{"client_name": "Rules", "redirect_uris": []string{"https://a.example/cb"}})
	ctx := context.Background()
	for _, tc := range []struct{ what, sql string }{
		{"a confidential client without a secret", `INSERT INTO auth.oauth_clients (id, registration_type, client_type, token_endpoint_auth_method,
			redirect_uris, grant_types) VALUES (gen_random_uuid(), 'manual', 'confidential', 'client_secret_basic', 'https://a.example/cb', 'authorization_code')`},
		{"a public client with a secret", `INSERT INTO auth.oauth_clients (id, client_secret_hash, registration_type, client_type, token_endpoint_auth_method,
			redirect_uris, grant_types) VALUES (gen_random_uuid(), 'h', 'manual', 'public', 'none', 'https://a.example/cb', 'authorization_code')`},
		{"a public client authenticating with a secret", `INSERT INTO auth.oauth_clients (id, registration_type, client_type, token_endpoint_auth_method,
			redirect_uris, grant_types) VALUES (gen_random_uuid(), 'manual', 'public', 'client_secret_post', 'https://a.example/cb', 'authorization_code')`},
		{"a plain PKCE challenge", `INSERT INTO auth.oauth_authorizations (id, authorization_id, client_id, redirect_uri, scope, code_challenge,
			code_challenge_method) VALUES (gen_random_uuid(), 'p1', '` + c["client_id"].(string) + `', 'https://a.example/cb', 'email', repeat('a', 43), 'plain')`},
		{"no PKCE challenge", `INSERT INTO auth.oauth_authorizations (id, authorization_id, client_id, redirect_uri, scope)
			VALUES (gen_random_uuid(), 'p2', '` + c["client_id"].(string) + `', 'https://a.example/cb', 'email')`},
		{"an approval without a code", `INSERT INTO auth.oauth_authorizations (id, authorization_id, client_id, redirect_uri, scope, code_challenge,
			code_challenge_method, status, approved_at) VALUES (gen_random_uuid(), 'p3', '` + c["client_id"].(string) + `', 'https://a.example/cb', 'email',
			repeat('a', 43), 's256', 'approved', now())`},
	} {
		if _, err := o.db.Admin.Exec(ctx, tc.sql); !pg.Is(err, "23514") {
			t.Errorf("%s: %v, want a check violation", tc.what, err)
		}
	}
}
