package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// oauthAPI plays GitHub Enterprise and Facebook's Graph API for one test:
// their authorization pages (which sign the user straight in), token
// endpoints (checking the client secret and the code) and the profile
// endpoints Basalt reads, in those services' JSON shapes.
func oauthAPI(t *testing.T, clientID, secret string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	authorize := func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("client_id") != clientID {
			http.Error(w, "bad client", http.StatusBadRequest)
			return
		}
		to, _ := url.Parse(r.URL.Query().Get("redirect_uri"))
		to.RawQuery = url.Values{"code": {"code-123"}, "state": {r.URL.Query().Get("state")}}.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	}
	token := func(w http.ResponseWriter, r *http.Request) {
		id, pw, ok := r.BasicAuth()
		if !ok {
			id, pw = r.FormValue("client_id"), r.FormValue("client_secret")
		}
		if id != clientID || pw != secret || r.FormValue("code") != "code-123" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"gho_token","token_type":"bearer","scope":"user:email"}`))
	}
	bearer := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer gho_token" {
				http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET /login/oauth/authorize", authorize)
	mux.HandleFunc("POST /login/oauth/access_token", token)
	mux.HandleFunc("GET /api/v3/user", bearer(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id":4242,"login":"octo","name":"Octo Cat","avatar_url":"https://avatars/octo"}`))
	}))
	mux.HandleFunc("GET /api/v3/user/emails", bearer(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`[{"email":"old@example.com","primary":false,"verified":false},
			{"email":"Octo@Example.com","primary":true,"verified":true}]`))
	}))
	mux.HandleFunc("GET /dialog/oauth", authorize)
	mux.HandleFunc("POST /oauth/access_token", token)
	mux.HandleFunc("GET /me", bearer(func(w http.ResponseWriter, r *http.Request) {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte("gho_token"))
		if r.URL.Query().Get("appsecret_proof") != hex.EncodeToString(mac.Sum(nil)) {
			http.Error(w, `{"error":{"message":"Invalid appsecret_proof"}}`, http.StatusBadRequest)
			return
		}
		_, _ = w.Write([]byte(`{"id":"fb-77","email":"fb@example.com","first_name":"Face","last_name":"Book","name":"facey",
			"picture":{"data":{"url":"https://fb/pic"}}}`))
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// GitHub signs in with the primary address of /user/emails and the
// profile of /user; Facebook with /me, asked with an appsecret_proof.
func TestExternalGitHubAndFacebook(t *testing.T) {
	t.Parallel()
	api := oauthAPI(t, "client-gh", "secret-gh")
	conf := ProviderConfig{Enabled: true, ClientIDs: []string{"client-gh"}, Secret: "secret-gh", URL: api.URL}
	e := newEnv(t, func(c *Config) { c.External = map[string]ProviderConfig{"github": conf, "facebook": conf} })
	b := e.browser(api.URL)

	authz, h := b.follow(t, "/authorize?provider=github&scopes=read:org")
	if authz.Path != "/login/oauth/authorize" || authz.Query().Get("scope") != "user:email read:org" {
		t.Fatalf("authorization request %v", authz)
	}
	u := e.req("GET", "/user", nil, fragment(t, h.Location).Get("access_token")).json(t)
	id := u["identities"].([]any)[0].(map[string]any)
	data := id["identity_data"].(map[string]any)
	if u["email"] != "octo@example.com" || u["email_confirmed_at"] == nil || id["provider"] != "github" || id["id"] != "4242" ||
		data["user_name"] != "octo" || data["preferred_username"] != "octo" || data["full_name"] != "Octo Cat" ||
		data["iss"] != api.URL+"/api/v3" || data["email_verified"] != true {
		t.Fatalf("github user %v", u)
	}

	authz, h = b.follow(t, "/authorize?provider=facebook")
	if authz.Path != "/dialog/oauth" || authz.Query().Get("scope") != "email" {
		t.Fatalf("authorization request %v", authz)
	}
	u = e.req("GET", "/user", nil, fragment(t, h.Location).Get("access_token")).json(t)
	data = u["identities"].([]any)[0].(map[string]any)["identity_data"].(map[string]any)
	if u["email"] != "fb@example.com" || data["sub"] != "fb-77" || data["name"] != "Face Book" || data["nickname"] != "facey" ||
		data["avatar_url"] != "https://fb/pic" {
		t.Fatalf("facebook user %v", u)
	}

	// A wrong client secret: the code exchange fails.
	e.svc.cfg.External["github"] = ProviderConfig{Enabled: true, ClientIDs: []string{"client-gh"}, Secret: "wrong", URL: api.URL}
	_, h = b.follow(t, "/authorize?provider=github&redirect_to=http://localhost:3000/x")
	if q := h.Location.Query(); h.Location.Path != "/x" || q.Get("error") != "server_error" ||
		q.Get("error_description") != "Unable to exchange external code: code" {
		t.Fatalf("bad secret %v", h.Location)
	}
}

// Apple: the callback arrives as a form POST (response_mode=form_post),
// with the user's name in a "user" field on the first sign-in only, and
// the app's extra query parameters are not passed to Apple.
func TestExternalApple(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, withIdP(idp, "apple"))
	idp.next(&idpUser{Sub: "apple-1", Email: "relay@privaterelay.example"})
	b := e.browser(idp.Addr())
	authz := b.get(t, "/authorize?provider=apple&prompt=login").Location
	q := authz.Query()
	if q.Get("response_mode") != "form_post" || q.Get("scope") != "email name" || q.Has("prompt") || q.Get("nonce") == "" {
		t.Fatalf("authorization request %v", authz)
	}
	back := b.get(t, authz.String()).Location
	form := back.Query()
	form.Set("user", `{"name":{"firstName":"Tim","lastName":"Apple"},"email":"relay@privaterelay.example"}`)
	h := b.do(t, "POST", "/callback", form)
	f := fragment(t, h.Location)
	if f.Get("access_token") == "" {
		t.Fatalf("apple callback %d %v", h.Status, h.Location)
	}
	u := e.req("GET", "/user", nil, f.Get("access_token")).json(t)
	md := u["user_metadata"].(map[string]any)
	// Apple only sends addresses it verified, whatever the token says.
	if h.Status != 302 || u["email"] != "relay@privaterelay.example" || u["email_confirmed_at"] == nil || md["full_name"] != "Tim Apple" {
		t.Fatalf("apple sign-in %d %v %v", h.Status, h.Location, u)
	}
}

// A custom OIDC provider found by discovery, with PKCE between Basalt and
// the provider: the provider refuses the code without Basalt's verifier.
func TestExternalCustomOIDCWithPKCE(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, func(c *Config) {
		pc := idp.providerConfig()
		pc.PKCE, pc.Scopes = true, []string{"email", "groups"}
		pc.DiscoveryURL = idp.DiscoveryEndpoint()
		c.External = map[string]ProviderConfig{"custom:corp": pc}
	})
	idp.next(&idpUser{Sub: "emp-9", Email: "emp@corp.example", Verified: true, Name: "Em Ployee"})
	b := e.browser(idp.Addr())
	authz := b.get(t, "/authorize?provider=custom:corp").Location
	q := authz.Query()
	if q.Get("scope") != "openid email groups" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		t.Fatalf("authorization request %v", authz)
	}
	back := b.get(t, authz.String()).Location
	var saved string
	if err := e.db.Admin.QueryRow(t.Context(), `SELECT oauth_client_state_id::text FROM auth.flow_state WHERE id = $1`,
		back.Query().Get("state")).Scan(&saved); err != nil {
		t.Fatal(err)
	}
	h := b.get(t, back.String())
	u := e.req("GET", "/user", nil, fragment(t, h.Location).Get("access_token")).json(t)
	if id := u["identities"].([]any)[0].(map[string]any); id["provider"] != "custom:corp" || id["id"] != "emp-9" {
		t.Fatalf("custom provider user %v", u)
	}
	// The verifier is used once.
	var left int
	if err := e.db.Admin.QueryRow(t.Context(), `SELECT count(*) FROM auth.oauth_client_states WHERE id = $1`, saved).Scan(&left); err != nil || left != 0 {
		t.Fatalf("verifier kept: %d %v", left, err)
	}
	// A flow whose verifier is gone cannot finish.
	back = b.get(t, b.get(t, "/authorize?provider=custom:corp").Location.String()).Location
	e.exec(`DELETE FROM auth.oauth_client_states`)
	h = b.get(t, back.String())
	if q := h.Location.Query(); q.Get("error_code") != "oauth_client_state_not_found" || q.Get("error") != "server_error" {
		t.Fatalf("missing verifier %v", h.Location)
	}
	// An unknown custom provider is looked for among the admin API's, as in
	// the reference.
	wantErr(t, e.req("GET", "/authorize?provider=custom:other", nil, ""), 400, "validation_failed",
		"Unsupported provider: custom provider custom:other not found")
}

// Provider settings come from EXTERNAL_<NAME>_* (BASALT_AUTH_ or GOTRUE_)
// and custom providers from the list in EXTERNAL_CUSTOM_PROVIDERS; the
// enabled ones show in /settings.
func TestExternalConfigFromEnv(t *testing.T) {
	env := map[string]string{
		"GOTRUE_API_EXTERNAL_URL":                     "https://api.example.com/auth/v1",
		"GOTRUE_EXTERNAL_GOOGLE_ENABLED":              "true",
		"GOTRUE_EXTERNAL_GOOGLE_CLIENT_ID":            "web-id,ios-id",
		"BASALT_AUTH_EXTERNAL_GOOGLE_SECRET":          "g-secret",
		"BASALT_AUTH_EXTERNAL_GITHUB_ENABLED":         "false",
		"BASALT_AUTH_EXTERNAL_CUSTOM_PROVIDERS":       "corp-sso",
		"BASALT_AUTH_EXTERNAL_CORP_SSO_CLIENT_ID":     "corp",
		"BASALT_AUTH_EXTERNAL_CORP_SSO_SECRET":        "corp-secret",
		"BASALT_AUTH_EXTERNAL_CORP_SSO_ISSUER":        "https://id.corp.example",
		"BASALT_AUTH_EXTERNAL_CORP_SSO_PKCE_ENABLED":  "true",
		"BASALT_AUTH_SECURITY_MANUAL_LINKING_ENABLED": "true",
	}
	c, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	g := c.External["google"]
	if !g.Enabled || len(g.ClientIDs) != 2 || g.Secret != "g-secret" || g.RedirectURI != "https://api.example.com/auth/v1/callback" {
		t.Fatalf("google %+v", g)
	}
	corp := c.External["custom:corp-sso"]
	if !corp.Enabled || corp.Issuer != "https://id.corp.example" || !corp.PKCE || c.External["github"].Enabled || !c.ManualLinking {
		t.Fatalf("config %+v", c.External)
	}
	env["BASALT_AUTH_EXTERNAL_CORP_SSO_ISSUER"] = ""
	if _, err := ConfigFromEnv(func(k string) string { return env[k] }); err == nil {
		t.Fatal("a custom provider without an issuer must be refused")
	}

	e := newEnv(t, func(c *Config) { c.External = map[string]ProviderConfig{"google": g} })
	var s struct {
		External map[string]bool `json:"external"`
	}
	if err := json.Unmarshal(e.req("GET", "/settings", nil, "").Body, &s); err != nil {
		t.Fatal(err)
	}
	if !s.External["google"] || s.External["github"] || s.External["apple"] {
		t.Fatalf("settings %v", s.External)
	}
}
