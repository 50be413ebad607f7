package auth

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// The clients admin API answers in the reference's shapes and with its
// validation messages, the registration's wrapped in its status as the
// reference words them ("400: redirect_uris is required").
func TestOAuthAdminClients(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t, func(c *Config) { c.OAuthServer.AllowDynamicRegistration = false })
	svc := o.service()
	for _, tc := range []struct {
		body any
		msg  string
	}{
		{map[string]any{"client_name": "x", "redirect_uris": []string{}}, "400: redirect_uris is required"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "grant_types": []string{"password"}},
			"400: grant_types must only contain 'authorization_code' and/or 'refresh_token'"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "client_type": "robot"}, "400: client_type must be 'public' or 'confidential'"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "client_type": "public", "token_endpoint_auth_method": "client_secret_basic"},
			"400: client_type 'public' is inconsistent with token_endpoint_auth_method 'client_secret_basic' (expected client_type 'confidential')"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "token_endpoint_auth_method": "private_key_jwt"},
			"400: token_endpoint_auth_method must be one of: [none client_secret_basic client_secret_post]"},
		{map[string]any{"redirect_uris": []string{"https://a.example/cb"}, "logo_uri": "not a url"}, "400: logo_uri must be a valid URL"},
		{map[string]any{"redirect_uris": []string{"http://a.example/cb"}}, "400: invalid redirect_uri 'http://a.example/cb': HTTP scheme only allowed for localhost"},
	} {
		wantErr(t, o.req("POST", "/admin/oauth/clients", tc.body, svc), 400, "validation_failed", tc.msg)
	}
	wantErr(t, o.req("POST", "/admin/oauth/clients", `{"redirect_uris":"x"}`, svc), 400, "bad_json", "Invalid JSON body")

	c := o.client(map[string]any{"client_name": "Minimal", "redirect_uris": []string{"https://a.example/cb"}})
	for k, want := range map[string]any{"client_type": "confidential", "token_endpoint_auth_method": "client_secret_basic",
		"registration_type": "manual", "client_name": "Minimal"} {
		if c[k] != want {
			t.Fatalf("%s = %v, want %v (%v)", k, c[k], want, c)
		}
	}
	if len(c["grant_types"].([]any)) != 2 || c["response_types"].([]any)[0] != "code" || c["client_secret"] == "" {
		t.Fatalf("client: %v", c)
	}
	id := c["client_id"].(string)
	got := o.req("GET", "/admin/oauth/clients/"+id, nil, svc).json(t)
	if got["client_id"] != id || got["client_secret"] != nil || got["created_at"] == nil {
		t.Fatalf("get: %v", got)
	}
	wantErr(t, o.req("GET", "/admin/oauth/clients/00000000-0000-0000-0000-000000000000", nil, svc), 404, "oauth_client_not_found", "OAuth client not found")
	wantErr(t, o.req("GET", "/admin/oauth/clients/nope", nil, svc), 400, "validation_failed", "invalid client_id format")

	wantErr(t, o.req("PUT", "/admin/oauth/clients/"+id, `{}`, svc), 400, "validation_failed", "No fields provided for update")
	wantErr(t, o.req("PUT", "/admin/oauth/clients/"+id, `{"token_endpoint_auth_method":"none"}`, svc), 400, "validation_failed",
		"token_endpoint_auth_method 'none' is not valid for client_type 'confidential'; valid methods: [client_secret_basic client_secret_post]")
	wantErr(t, o.req("PUT", "/admin/oauth/clients/"+id, `{"redirect_uris":[]}`, svc), 400, "validation_failed", "redirect_uris cannot be empty")
	up := o.req("PUT", "/admin/oauth/clients/"+id, `{"logo_uri":"https://a.example/logo.png","token_endpoint_auth_method":"client_secret_post"}`, svc).json(t)
	if up["logo_uri"] != "https://a.example/logo.png" || up["client_name"] != "Minimal" || up["token_endpoint_auth_method"] != "client_secret_post" {
		t.Fatalf("update: %v", up)
	}

	o.clock.add(time.Second)
	pub := o.client(map[string]any{"client_name": "Pub", "token_endpoint_auth_method": "none", "redirect_uris": []string{"myapp://cb"}})
	if pub["client_type"] != "public" || pub["client_secret"] != nil {
		t.Fatalf("public client: %v", pub)
	}
	wantErr(t, o.req("POST", "/admin/oauth/clients/"+pub["client_id"].(string)+"/regenerate_secret", nil, svc), 400, "validation_failed",
		"Cannot regenerate secret for public client")
	o.clock.add(time.Second)
	o.client(map[string]any{"redirect_uris": []string{"https://b.example/cb"}})

	// Every client without paging, newest first; a page with the users
	// list's headers when asked.
	r := o.req("GET", "/admin/oauth/clients", nil, svc)
	list := r.json(t)["clients"].([]any)
	if len(list) != 3 || list[2].(map[string]any)["client_id"] != id || r.Header.Get("X-Total-Count") != "" {
		t.Fatalf("list: %v %v", list, r.Header)
	}
	r = o.req("GET", "/admin/oauth/clients?page=1&per_page=2", nil, svc)
	if len(r.json(t)["clients"].([]any)) != 2 || r.Header.Get("X-Total-Count") != "3" ||
		r.Header.Get("Link") != `</admin/oauth/clients?page=2&per_page=2>; rel="next", </admin/oauth/clients?page=2&per_page=2>; rel="last"` {
		t.Fatalf("page: %s %v", r.Body, r.Header)
	}

	if r := o.req("DELETE", "/admin/oauth/clients/"+id, nil, svc); r.Status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	wantErr(t, o.req("GET", "/admin/oauth/clients/"+id, nil, svc), 404, "oauth_client_not_found", "")
	wantErr(t, o.req("DELETE", "/admin/oauth/clients/"+id, nil, svc), 404, "oauth_client_not_found", "")
	if r := o.req("PATCH", "/admin/oauth/clients/"+id, nil, svc); r.Status != 405 || r.Header.Get("Allow") != "GET, PUT, DELETE" {
		t.Fatalf("PATCH: %d %v", r.Status, r.Header)
	}

	// Dynamic registration is off here.
	wantErr(t, o.req("POST", "/oauth/clients/register", map[string]any{"redirect_uris": []string{"https://a.example/cb"}}, ""), 403,
		"oauth_dynamic_client_registration_disabled", "Dynamic client registration is not enabled")
}

// With dynamic registration on, anyone registers a client (RFC 7591)
// within the per-address budget, and discovery names the endpoint.
func TestOAuthDynamicRegistrationAndDiscovery(t *testing.T) {
	t.Parallel()
	o := newOAuthEnv(t, func(c *Config) { c.RateLimits.OAuthClientRegister = 2 })
	for i := range 3 {
		r := o.req("POST", "/oauth/clients/register", map[string]any{"client_name": "MCP", "redirect_uris": []string{"http://localhost:33418/callback"},
			"token_endpoint_auth_method": "none"}, "")
		if i == 2 {
			wantErr(t, r, 429, "over_request_rate_limit", "")
			break
		}
		if c := r.json(t); r.Status != 201 || c["registration_type"] != "dynamic" || c["client_type"] != "public" {
			t.Fatalf("register: %d %s", r.Status, r.Body)
		}
	}
	res, err := o.http.Get(o.issuer + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc map[string]any
	if err := jsonDecode(res, &doc); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"issuer": o.issuer, "authorization_endpoint": o.issuer + "/oauth/authorize",
		"token_endpoint": o.issuer + "/oauth/token", "jwks_uri": o.issuer + "/.well-known/jwks.json",
		"userinfo_endpoint": o.issuer + "/oauth/userinfo", "registration_endpoint": o.issuer + "/oauth/clients/register",
		"revocation_endpoint": o.issuer + "/oauth/revoke"} {
		if doc[k] != want {
			t.Fatalf("%s = %v, want %s", k, doc[k], want)
		}
	}
	if strings.Join(anyStrings(doc["code_challenge_methods_supported"]), ",") != "S256" || res.Header.Get("Cache-Control") != "public, max-age=600" {
		t.Fatalf("discovery: %v %v", doc, res.Header)
	}
	// Off, discovery still answers (as the reference's does), without
	// the registration endpoint; the RFC 8414 document does not.
	off := newEnv(t, nil)
	if r := off.req("GET", "/.well-known/openid-configuration", nil, ""); r.Status != 200 || r.json(t)["registration_endpoint"] != nil {
		t.Fatalf("discovery while off: %d %s", r.Status, r.Body)
	}
	wantErr(t, off.req("GET", "/.well-known/oauth-authorization-server", nil, ""), 404, "feature_disabled", "OAuth server is disabled")
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// The server's settings come from the reference's names (GOTRUE_ or
// BASALT_AUTH_), and values it cannot use are refused at start, by name.
func TestOAuthServerSettings(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := ConfigFromEnv(env(map[string]string{"GOTRUE_OAUTH_SERVER_ENABLED": "true", "GOTRUE_OAUTH_SERVER_AUTHORIZATION_PATH": "/oauth/consent",
		"GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION": "true", "BASALT_AUTH_OAUTH_SERVER_AUTHORIZATION_TTL": "300",
		"GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER": "3"}))
	o := c.OAuthServer
	if err != nil || !o.Enabled || !o.AllowDynamicRegistration || o.AuthorizationPath != "/oauth/consent" || o.AuthorizationTTL != 5*time.Minute ||
		o.CodeTTL != time.Minute || o.DefaultScope != "email" || c.RateLimits.OAuthClientRegister != 3 {
		t.Fatalf("%v %+v", err, o)
	}
	if c, _ := ConfigFromEnv(env(nil)); c.OAuthServer.Enabled {
		t.Fatal("on by default")
	}
	_, err = ConfigFromEnv(env(map[string]string{"BASALT_AUTH_OAUTH_SERVER_CODE_TTL": "1h", "GOTRUE_OAUTH_SERVER_DEFAULT_SCOPE": "email admin"}))
	if err == nil || !strings.Contains(err.Error(), "BASALT_AUTH_OAUTH_SERVER_CODE_TTL") || !strings.Contains(err.Error(), `GOTRUE_OAUTH_SERVER_DEFAULT_SCOPE: unsupported scope "admin"`) {
		t.Fatalf("bad settings: %v", err)
	}
}
