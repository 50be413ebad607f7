package auth

import (
	"maps"
	"testing"

	"github.com/basaltdev/basalt/auth/testidp"
)

// newCustomEnv is a service with a test provider over HTTPS (the admin
// API takes only https provider URLs): the service trusts the provider's
// certificate and may reach it on loopback.
func newCustomEnv(t *testing.T, mutate func(*Config)) (*env, *testIdP) {
	t.Helper()
	p, err := testidp.StartTLS("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	e := newEnv(t, mutate, WithHTTPClient(p.HTTPClient()))
	e.svc.localProviders = true
	return e, &testIdP{p}
}

// trusting makes the browser trust the provider's certificate.
func (b *browser) trusting(idp *testIdP) *browser {
	b.http.Transport = idp.HTTPClient().Transport
	return b
}

// oidcBody is a custom OIDC provider on idp, with extra fields.
func oidcBody(idp *testIdP, id string, extra map[string]any) map[string]any {
	body := map[string]any{"provider_type": "oidc", "identifier": id, "name": "Corp", "client_id": idp.ClientID,
		"client_secret": idp.ClientSecret, "issuer": idp.Issuer()}
	maps.Copy(body, extra)
	return body
}

// oauth2Body is a custom OAuth 2.0 provider using idp's endpoints.
func oauth2Body(idp *testIdP, id string, extra map[string]any) map[string]any {
	body := map[string]any{"provider_type": "oauth2", "identifier": id, "name": "Plain", "client_id": idp.ClientID,
		"client_secret": idp.ClientSecret, "authorization_url": idp.AuthorizationEndpoint(), "token_url": idp.TokenEndpoint(),
		"userinfo_url": idp.UserinfoEndpoint()}
	maps.Copy(body, extra)
	return body
}

// createCustom registers a provider through the admin API.
func createCustom(t *testing.T, e *env, body map[string]any) map[string]any {
	t.Helper()
	r := e.req("POST", "/admin/custom-providers", body, e.service())
	if r.Status != 201 {
		t.Fatalf("create custom provider %d %s", r.Status, r.Body)
	}
	return r.json(t)
}
