package auth

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The custom providers admin API, as the reference has it: list (newest
// first, ?type=), create (201, the OIDC discovery document checked and
// kept, the secret never shown, the reference's defaults), get, update
// (given fields only, openid kept in OIDC scopes), delete (204).
func TestCustomProvidersAdmin(t *testing.T) {
	t.Parallel()
	e, idp := newCustomEnv(t, nil)
	svc := e.service()
	if r := e.req("GET", "/admin/custom-providers", nil, svc); r.Status != 200 || strings.TrimSpace(string(r.Body)) != `{"providers":[]}` {
		t.Fatalf("empty list %d %s", r.Status, r.Body)
	}
	corp := createCustom(t, e, oidcBody(idp, "custom:corp", map[string]any{"scopes": []string{"email"},
		"acceptable_client_ids": []string{"ios-app"}, "authorization_params": map[string]any{"prompt": "login"}}))
	doc, _ := corp["discovery_document"].(map[string]any)
	want := map[string]any{"provider_type": "oidc", "identifier": "custom:corp", "name": "Corp", "client_id": idp.ClientID,
		"acceptable_client_ids": []any{"ios-app"}, "scopes": []any{"openid", "email"}, "pkce_enabled": true,
		"attribute_mapping": map[string]any{}, "custom_claims_allowlist": []any{}, "authorization_params": map[string]any{"prompt": "login"},
		"enabled": true, "email_optional": false, "issuer": idp.Issuer(), "skip_nonce_check": false}
	for k, v := range want {
		if !reflect.DeepEqual(corp[k], v) {
			t.Fatalf("%s = %#v, want %#v (%v)", k, corp[k], v, corp)
		}
	}
	for _, k := range []string{"client_secret", "authorization_url", "token_url", "userinfo_url", "discovery_url"} {
		if _, ok := corp[k]; ok {
			t.Fatalf("OIDC provider shows %s: %v", k, corp)
		}
	}
	if !isUUID(corp["id"].(string)) || doc["issuer"] != idp.Issuer() || doc["jwks_uri"] != idp.JWKSEndpoint() ||
		doc["token_endpoint"] != idp.TokenEndpoint() {
		t.Fatalf("provider %v", corp)
	}
	if _, err := time.Parse(time.RFC3339Nano, corp["created_at"].(string)); err != nil {
		t.Fatal(err)
	}

	e.clock.add(time.Second)
	plain := createCustom(t, e, oauth2Body(idp, "custom:plain", nil))
	if plain["authorization_url"] != idp.AuthorizationEndpoint() || plain["userinfo_url"] != idp.UserinfoEndpoint() ||
		plain["issuer"] != nil || plain["discovery_document"] != nil || !reflect.DeepEqual(plain["scopes"], []any{}) {
		t.Fatalf("oauth2 provider %v", plain)
	}
	wantErr(t, e.req("POST", "/admin/custom-providers", oauth2Body(idp, "custom:plain", nil), svc),
		400, "conflict", "A custom OAuth provider with this identifier already exists")

	if r := e.req("GET", "/admin/custom-providers/custom:corp", nil, svc); r.Status != 200 || !reflect.DeepEqual(r.json(t), corp) {
		t.Fatalf("get %d %s", r.Status, r.Body)
	}
	wantErr(t, e.req("GET", "/admin/custom-providers/custom:nope", nil, svc), 404, "custom_provider_not_found", "Custom OAuth provider not found")
	wantErr(t, e.req("GET", "/admin/custom-providers/corp", nil, svc), 400, "validation_failed",
		"identifier must start with 'custom:' prefix, e.g. 'custom:corp'")
	ids := func(query string) []string {
		r := e.req("GET", "/admin/custom-providers"+query, nil, svc)
		var out []string
		for _, p := range r.json(t)["providers"].([]any) {
			out = append(out, p.(map[string]any)["identifier"].(string))
		}
		return out
	}
	if got := fmt.Sprint(ids(""), ids("?type=oidc"), ids("?type=oauth2")); got != "[custom:plain custom:corp] [custom:corp] [custom:plain]" {
		t.Fatalf("lists %s", got)
	}
	wantErr(t, e.req("GET", "/admin/custom-providers?type=saml", nil, svc), 400, "validation_failed", "type must be either 'oauth2' or 'oidc'")

	r := e.req("PUT", "/admin/custom-providers/custom:corp", map[string]any{"name": "Corp SSO", "scopes": []string{"profile"},
		"enabled": false, "client_secret": "rotated"}, svc)
	u := r.json(t)
	if r.Status != 200 || u["name"] != "Corp SSO" || !reflect.DeepEqual(u["scopes"], []any{"openid", "profile"}) || u["enabled"] != false ||
		u["client_id"] != idp.ClientID || !reflect.DeepEqual(u["acceptable_client_ids"], []any{"ios-app"}) {
		t.Fatalf("update %d %s", r.Status, r.Body)
	}
	var secret string
	if err := e.db.Admin.QueryRow(t.Context(), `SELECT client_secret FROM auth.custom_oauth_providers WHERE identifier = 'custom:corp'`).
		Scan(&secret); err != nil || secret != "rotated" {
		t.Fatalf("stored secret %q %v", secret, err)
	}
	wantErr(t, e.req("PUT", "/admin/custom-providers/custom:corp", map[string]any{"issuer": "http://corp.example"}, svc),
		400, "validation_failed", "URL must use HTTPS")
	wantErr(t, e.req("PUT", "/admin/custom-providers/custom:nope", map[string]any{"name": "x"}, svc),
		404, "custom_provider_not_found", "Custom OAuth provider not found")

	if r := e.req("DELETE", "/admin/custom-providers/custom:plain", nil, svc); r.Status != 204 || len(r.Body) != 0 {
		t.Fatalf("delete %d %s", r.Status, r.Body)
	}
	wantErr(t, e.req("GET", "/admin/custom-providers/custom:plain", nil, svc), 404, "custom_provider_not_found", "")
	wantErr(t, e.req("DELETE", "/admin/custom-providers/custom:plain", nil, svc), 404, "custom_provider_not_found", "")

	off := newEnv(t, func(c *Config) { c.CustomOAuth.Enabled = false })
	wantErr(t, off.req("GET", "/admin/custom-providers", nil, off.service()), 404, "feature_disabled", "Custom OAuth providers are disabled")
}

// What the admin API refuses to store, with the reference's errors: each
// missing field, plain http, reserved authorization parameters, protected
// mapping targets, empty allow-list entries, a discovery document that is
// not there, addresses of this machine or its network, and providers
// over the quota.
func TestCustomProvidersAdminRefusals(t *testing.T) {
	t.Parallel()
	e, idp := newCustomEnv(t, nil)
	oidc := func(extra map[string]any) map[string]any { return oidcBody(idp, "custom:x", extra) }
	oauth2 := func(extra map[string]any) map[string]any { return oauth2Body(idp, "custom:x", extra) }
	for _, c := range []struct {
		body map[string]any
		msg  string
	}{
		{map[string]any{"identifier": "custom:x"}, "provider_type must be either 'oauth2' or 'oidc'"},
		{oidc(map[string]any{"issuer": ""}), "issuer is required for OIDC providers"},
		{oidc(map[string]any{"identifier": "x"}), "identifier must start with 'custom:' prefix, e.g. 'custom:x'"},
		{oidc(map[string]any{"client_secret": ""}), "client_secret is required"},
		{oauth2(map[string]any{"token_url": ""}), "token_url is required for OAuth2 providers"},
		{oauth2(map[string]any{"authorization_url": "http://corp.example/authorize"}), "URL must use HTTPS"},
		{oidc(map[string]any{"authorization_params": map[string]any{"state": "fixed"}}), "Cannot override reserved OAuth parameter: state"},
		{oidc(map[string]any{"authorization_params": map[string]any{"prompt": 1}}), `Authorization parameter "prompt" must be a string`},
		{oidc(map[string]any{"attribute_mapping": map[string]any{"role": "groups"}}), "Cannot map to protected system field: role"},
		{oidc(map[string]any{"custom_claims_allowlist": []string{" "}}), "custom_claims_allowlist entries must be non-empty strings"},
	} {
		wantErr(t, e.req("POST", "/admin/custom-providers", c.body, e.service()), 400, "validation_failed", c.msg)
	}
	r := e.req("POST", "/admin/custom-providers", oidc(map[string]any{"issuer": idp.Issuer() + "/elsewhere"}), e.service())
	if m := r.json(t); r.Status != 400 || m["code"] != "validation_failed" ||
		!strings.HasPrefix(m["message"].(string), `OIDC discovery from "`+idp.Issuer()+`/elsewhere/.well-known/openid-configuration" failed`) {
		t.Fatalf("missing discovery document %d %s", r.Status, r.Body)
	}

	e.svc.localProviders = false
	on := func(origin string) map[string]any {
		return map[string]any{"authorization_url": origin + "/authorize", "token_url": origin + "/token", "userinfo_url": origin + "/userinfo"}
	}
	for _, c := range []struct {
		body map[string]any
		msg  string
	}{
		{oidc(nil), "URL cannot point to localhost or loopback addresses"},
		{oauth2(on("https://localhost")), "URL cannot point to localhost or loopback addresses"},
		{oauth2(on("https://10.0.0.1")), "URL cannot resolve to private network addresses"},
		{oauth2(on("https://169.254.169.254")), "URL cannot resolve to link-local addresses"},
	} {
		wantErr(t, e.req("POST", "/admin/custom-providers", c.body, e.service()), 400, "validation_failed", c.msg)
	}
	e.svc.localProviders = true

	e.svc.cfg.CustomOAuth.MaxProviders = 1
	createCustom(t, e, oidc(nil))
	wantErr(t, e.req("POST", "/admin/custom-providers", oidcBody(idp, "custom:y", nil), e.service()),
		400, "over_custom_provider_quota", "Maximum number of custom OAuth/OIDC providers reached")
}
