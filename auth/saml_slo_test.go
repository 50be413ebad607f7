package auth

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/crewjam/saml"

	"github.com/basaltdev/basalt/gateway"
)

// SAML single logout as the reference has it: its metadata names one
// single logout service (HTTP-POST, at …/sso/saml/slo) and nothing serves
// it. An identity provider that logs the user out there is refused by the
// gateway (no API key) or, given one, answered not found by the auth
// service, and the Basalt session lives on; signing out of Basalt ends only
// Basalt's sessions. With SSO off the path answers saml_provider_disabled,
// like the rest of /sso.
func TestSAMLSingleLogout(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withSAML(t))
	idp := startSAMLIdP(t, e)
	const slo = "http://api.test/auth/v1/sso/saml/slo"
	var services []saml.Endpoint
	for _, d := range idp.sp.SPSSODescriptors {
		services = append(services, d.SingleLogoutServices...)
	}
	if len(services) != 1 || services[0].Binding != saml.HTTPPostBinding || services[0].Location != slo ||
		services[0].ResponseLocation != slo {
		t.Fatalf("single logout services in the metadata: %+v", services)
	}

	id := createSSOProvider(t, e, idp, map[string]any{})["id"].(string)
	idp.signInAs("emp-3", "three@corp.example", "")
	_, form := idp.authenticate(t, startSSO(t, e, map[string]any{"provider_id": id}))
	session := fragment(t, location(t, e.form("POST", "/sso/saml/acs", form)))
	if session.Get("refresh_token") == "" {
		t.Fatalf("no session: %v", session)
	}

	logout := url.Values{"SAMLRequest": {idp.logoutRequest(t, slo, "emp-3")}}
	// Through the gateway, as an identity provider sends it (no API key):
	// like Supabase's gateway, which opens only the ACS and the metadata.
	gw, err := gateway.New(gateway.Config{}, gateway.Services{Auth: e.svc}, e.keys, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("POST", "/auth/v1/sso/saml/slo", strings.NewReader(logout.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	gw.ServeHTTP(w, req)
	if w.Code != 401 || !strings.Contains(w.Body.String(), "No API key found in request") {
		t.Fatalf("logout request through the gateway: %d %s", w.Code, w.Body)
	}
	// At the auth service itself: not found.
	r := e.form("POST", "/sso/saml/slo", logout)
	if m := r.json(t); r.Status != 404 || m["error_code"] != "not_found" {
		t.Fatalf("logout request from the identity provider: %d %s", r.Status, r.Body)
	}
	r = e.req("POST", "/token?grant_type=refresh_token", map[string]any{"refresh_token": session.Get("refresh_token")}, "")
	if r.Status != 200 {
		t.Fatalf("the session ended with the identity provider's logout: %d %s", r.Status, r.Body)
	}
	r = e.req("POST", "/logout", nil, r.json(t)["access_token"].(string))
	if r.Status != 204 || r.Header.Get("Location") != "" {
		t.Fatalf("logout %d %v", r.Status, r.Header)
	}

	off := newEnv(t, nil)
	r = off.form("POST", "/sso/saml/slo", logout)
	if m := r.json(t); r.Status != 404 || m["error_code"] != "saml_provider_disabled" {
		t.Fatalf("single logout with SSO off: %d %s", r.Status, r.Body)
	}
}
