package auth

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"
)

// createSSOProvider registers the identity provider through the admin API.
func createSSOProvider(t *testing.T, e *env, idp *samlIdP, body map[string]any) map[string]any {
	t.Helper()
	body["type"] = "saml"
	body["metadata_xml"] = idp.metadataXML(t)
	r := e.req("POST", "/admin/sso/providers", body, e.service())
	if r.Status != 201 {
		t.Fatalf("create provider %d %s", r.Status, r.Body)
	}
	return r.json(t)
}

// startSSO asks /sso for the identity provider's URL.
func startSSO(t *testing.T, e *env, body map[string]any) string {
	t.Helper()
	body["skip_http_redirect"] = true
	r := e.req("POST", "/sso", body, "")
	var out struct{ URL string }
	if err := json.Unmarshal(r.Body, &out); r.Status != 200 || err != nil || out.URL == "" {
		t.Fatalf("sso %d %s", r.Status, r.Body)
	}
	return out.URL
}

// signInWithSSO: POST /sso by domain sends the browser to the identity
// provider with a signed AuthnRequest; the provider's signed response at
// the ACS signs the user in, in a user of that connection (apart from the
// non-SSO user with the same address), with amr sso/saml naming the
// provider; the response cannot be posted twice, nor altered.
func TestSAMLSignIn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { withSAML(t)(c); c.MailerAutoconfirm = true })
	idp := startSAMLIdP(t, e)
	prov := createSSOProvider(t, e, idp, map[string]any{"domains": []string{"Corp.Example"},
		"attribute_mapping": map[string]any{"keys": map[string]any{"name": map[string]any{"name": "cn"}, "team": map[string]any{"default": "core"}}}})
	id := prov["id"].(string)
	plain := e.signUp("em@corp.example", "secret123")

	idp.signInAs("emp-1", "Em@Corp.Example", "Em Ployee")
	ssoURL := startSSO(t, e, map[string]any{"domain": "corp.example", "redirect_to": "http://localhost:3000/sso-done"})
	if u, _ := url.Parse(ssoURL); u.Query().Get("SAMLRequest") == "" || !isUUID(u.Query().Get("RelayState")) || u.Query().Get("Signature") == "" {
		t.Fatalf("sso url %s", ssoURL)
	}
	action, form := idp.authenticate(t, ssoURL)
	if action != "http://api.test/auth/v1/sso/saml/acs" {
		t.Fatalf("form posts to %s", action)
	}
	r := e.form("POST", "/sso/saml/acs", form)
	loc, _ := url.Parse(r.Header.Get("Location"))
	f := fragment(t, loc)
	if r.Status != 302 || loc.Path != "/sso-done" || f.Get("access_token") == "" {
		t.Fatalf("acs %d %v", r.Status, loc)
	}
	c, _ := e.keys.Verify(f.Get("access_token"), e.clock.now())
	amr := c.Map["amr"].([]any)[0].(map[string]any)
	if amr["method"] != "sso/saml" || amr["provider"] != id {
		t.Fatalf("amr %v", amr)
	}
	u := e.req("GET", "/user", nil, f.Get("access_token")).json(t)
	ident := u["identities"].([]any)[0].(map[string]any)
	md := u["user_metadata"].(map[string]any)
	if ident["provider"] != "sso:"+id || ident["id"] != "emp-1" || u["email"] != "em@corp.example" || u["email_confirmed_at"] == nil ||
		md["name"] != "Em Ployee" || md["custom_claims"].(map[string]any)["team"] != "core" {
		t.Fatalf("user %v", u)
	}
	if u["id"] == plain["user"].(map[string]any)["id"] {
		t.Fatal("the SSO sign-in joined the non-SSO account with the same address")
	}

	// The same response again: its relay state was used.
	r = e.form("POST", "/sso/saml/acs", form)
	if q := location(t, r).Query(); r.Status != 303 || q.Get("error_code") != "saml_relay_state_not_found" {
		t.Fatalf("replay %d %v", r.Status, q)
	}
	// An altered response fails its signature.
	idp.signInAs("emp-1", "em@corp.example", "Em Ployee")
	_, form = idp.authenticate(t, startSSO(t, e, map[string]any{"provider_id": id}))
	doc, _ := base64.StdEncoding.DecodeString(form.Get("SAMLResponse"))
	form.Set("SAMLResponse", base64.StdEncoding.EncodeToString([]byte(strings.ReplaceAll(string(doc), "em@corp.example", "ceo@corp.example"))))
	r = e.form("POST", "/sso/saml/acs", form)
	if q := location(t, r).Query(); r.Status != 303 || q.Get("error_code") != "validation_failed" ||
		!strings.HasPrefix(q.Get("error_description"), "SAML Assertion is not valid") {
		t.Fatalf("altered response %d %v", r.Status, q)
	}
	// A sign-in that takes longer than the relay state lives.
	idp.signInAs("emp-1", "em@corp.example", "Em Ployee")
	_, form = idp.authenticate(t, startSSO(t, e, map[string]any{"provider_id": id}))
	e.clock.add(3 * time.Minute)
	r = e.form("POST", "/sso/saml/acs", form)
	if q := location(t, r).Query(); q.Get("error_code") != "saml_relay_state_expired" {
		t.Fatalf("late response %v", q)
	}
}

func location(t *testing.T, r *resp) *url.URL {
	t.Helper()
	u, err := url.Parse(r.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// With a code challenge the ACS hands the app a code for
// exchangeCodeForSession instead of the session.
func TestSAMLPKCE(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withSAML(t))
	idp := startSAMLIdP(t, e)
	id := createSSOProvider(t, e, idp, map[string]any{})["id"].(string)
	verifier, challenge := pkcePair()
	idp.signInAs("emp-2", "two@corp.example", "")
	_, form := idp.authenticate(t, startSSO(t, e, map[string]any{"provider_id": id, "redirect_to": "http://localhost:3000/cb",
		"code_challenge": challenge, "code_challenge_method": "s256"}))
	r := e.form("POST", "/sso/saml/acs", form)
	code := location(t, r).Query().Get("code")
	if r.Status != 302 || !isUUID(code) {
		t.Fatalf("acs %d %s", r.Status, r.Header.Get("Location"))
	}
	s := e.req("POST", "/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": verifier}, "")
	if s.Status != 200 {
		t.Fatalf("exchange %d %s", s.Status, s.Body)
	}
	c, _ := e.keys.Verify(s.json(t)["access_token"].(string), e.clock.now())
	if m := c.Map["amr"].([]any)[0].(map[string]any); m["method"] != "sso/saml" || m["provider"] != id {
		t.Fatalf("amr %v", m)
	}
}

// POST /sso refuses what it cannot start, with the reference's errors.
func TestSAMLStartErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withSAML(t))
	idp := startSAMLIdP(t, e)
	id := createSSOProvider(t, e, idp, map[string]any{"domains": []string{"corp.example"}})["id"].(string)
	wantErr(t, e.req("POST", "/sso", `{}`, ""), 400, "validation_failed", "A provider_id or domain needs to be provided")
	wantErr(t, e.req("POST", "/sso", map[string]any{"domain": "corp.example", "provider_id": id}, ""), 400, "validation_failed",
		"Only one of provider_id or domain supported")
	wantErr(t, e.req("POST", "/sso", map[string]any{"domain": "other.example"}, ""), 404, "sso_provider_not_found",
		"No SSO provider assigned for this domain")
	wantErr(t, e.req("POST", "/sso", map[string]any{"provider_id": newUUID()}, ""), 404, "sso_provider_not_found", "No such SSO provider")
	if r := e.req("PUT", "/admin/sso/providers/"+id, map[string]any{"disabled": true}, e.service()); r.Status != 200 {
		t.Fatalf("disable %d %s", r.Status, r.Body)
	}
	wantErr(t, e.req("POST", "/sso", map[string]any{"provider_id": id}, ""), 404, "sso_provider_disabled", "SSO Provider is currently disabled")

	// An IdP-initiated response from an unknown identity provider.
	r := e.form("POST", "/sso/saml/acs", url.Values{"SAMLResponse": {base64.StdEncoding.EncodeToString(
		[]byte(`<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"><saml:Issuer>https://stranger.example</saml:Issuer></samlp:Response>`))}})
	if q := location(t, r).Query(); r.Status != 303 || q.Get("error_code") != "saml_idp_not_found" {
		t.Fatalf("unknown idp %d %v", r.Status, q)
	}
	r = e.form("POST", "/sso/saml/acs", url.Values{"RelayState": {"not a url"}})
	if q := location(t, r).Query(); q.Get("error_description") != "SAML RelayState is not a valid UUID or URL" {
		t.Fatalf("bad relay state %v", q)
	}
}
