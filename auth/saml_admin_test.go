package auth

import (
	"crypto/x509"
	"encoding/base64"
	"strings"
	"testing"
	"time"
)

// The SSO admin API: providers from IdP metadata, with domains, attribute
// mapping and resource ids; list (without metadata), get by id or
// resource_<id>, update, delete; the reference's refusals.
func TestSSOAdminProviders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withSAML(t))
	idp := startSAMLIdP(t, e)
	md := idp.metadataXML(t)
	admin := func(method, path string, body any) *resp { return e.req(method, path, body, e.service()) }

	wantErr(t, admin("POST", "/admin/sso/providers", map[string]any{"type": "oidc", "metadata_xml": md}), 400, "validation_failed",
		"Only 'saml' supported for SSO provider type")
	wantErr(t, admin("POST", "/admin/sso/providers", map[string]any{"type": "saml"}), 400, "validation_failed",
		"Either metadata_xml or metadata_url must be set")
	wantErr(t, admin("POST", "/admin/sso/providers", map[string]any{"type": "saml", "metadata_xml": md, "metadata_url": "https://x"}),
		400, "validation_failed", "Only one of metadata_xml or metadata_url needs to be set")
	wantErr(t, admin("POST", "/admin/sso/providers", map[string]any{"type": "saml", "metadata_url": "http://idp.example/md"}),
		400, "validation_failed", "metadata_url is not a HTTPS URL")
	wantErr(t, admin("POST", "/admin/sso/providers", map[string]any{"type": "saml", "metadata_xml": "<nope/>"}),
		400, "validation_failed", "")
	wantErr(t, admin("POST", "/admin/sso/providers", map[string]any{"type": "saml", "metadata_xml": md, "name_id_format": "weird"}),
		400, "validation_failed", "")
	wantErr(t, e.req("POST", "/admin/sso/providers", map[string]any{"type": "saml", "metadata_xml": md}, ""), 401, "no_authorization", "")

	r := admin("POST", "/admin/sso/providers", map[string]any{"type": "saml", "metadata_xml": md, "domains": []string{"a.example", "b.example"},
		"resource_id": "corp", "name_id_format": "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"})
	if r.Status != 201 {
		t.Fatalf("create %d %s", r.Status, r.Body)
	}
	p := r.json(t)
	id := p["id"].(string)
	saml := p["saml"].(map[string]any)
	if saml["entity_id"] != idp.idp.Metadata().EntityID || saml["metadata_xml"] != md || len(p["domains"].([]any)) != 2 ||
		p["resource_id"] != "corp" || p["disabled"] != nil {
		t.Fatalf("created %v", p)
	}
	wantErr(t, admin("POST", "/admin/sso/providers", map[string]any{"type": "saml", "metadata_xml": md}), 422, "saml_idp_already_exists", "")

	list := admin("GET", "/admin/sso/providers", nil).json(t)["items"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["saml"].(map[string]any)["metadata_xml"] != nil {
		t.Fatalf("list %v", list)
	}
	if got := admin("GET", "/admin/sso/providers/resource_corp", nil).json(t); got["id"] != id {
		t.Fatalf("by resource id %v", got)
	}
	wantErr(t, admin("GET", "/admin/sso/providers/"+newUUID(), nil), 404, "sso_provider_not_found", "SSO Identity Provider not found")
	wantErr(t, admin("GET", "/admin/sso/providers/nope", nil), 404, "sso_provider_not_found", "SSO Identity Provider not found")

	r = admin("PUT", "/admin/sso/providers/"+id, map[string]any{"domains": []string{"b.example", "c.example"}, "disabled": true,
		"attribute_mapping": map[string]any{"keys": map[string]any{"name": map[string]any{"name": "cn"}}}})
	u := r.json(t)
	var domains []string
	for _, d := range u["domains"].([]any) {
		domains = append(domains, d.(map[string]any)["domain"].(string))
	}
	if r.Status != 200 || strings.Join(domains, ",") != "b.example,c.example" || u["disabled"] != true ||
		u["saml"].(map[string]any)["attribute_mapping"].(map[string]any)["keys"] == nil {
		t.Fatalf("update %d %s", r.Status, r.Body)
	}
	other := strings.Replace(md, idp.idp.Metadata().EntityID, "https://other.example/idp", 1)
	wantErr(t, admin("PUT", "/admin/sso/providers/"+id, map[string]any{"metadata_xml": other}), 400, "saml_entity_id_mismatch", "")
	r = admin("POST", "/admin/sso/providers", map[string]any{"type": "saml", "metadata_xml": other, "domains": []string{"C.example"}})
	wantErr(t, r, 400, "sso_domain_already_exists", "")

	if r := admin("DELETE", "/admin/sso/providers/"+id, nil); r.Status != 200 || r.json(t)["id"] != id {
		t.Fatalf("delete %d %s", r.Status, r.Body)
	}
	wantErr(t, admin("GET", "/admin/sso/providers/"+id, nil), 404, "sso_provider_not_found", "")
}

// SSO off: /sso and the SAML endpoints answer as the reference's do, and
// /settings says so.
func TestSAMLDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wantErr(t, e.req("GET", "/sso/saml/metadata", nil, ""), 404, "saml_provider_disabled", "SAML 2.0 is disabled")
	wantErr(t, e.req("POST", "/sso/saml/acs", nil, ""), 404, "saml_provider_disabled", "SAML 2.0 is disabled")
	if e.req("GET", "/settings", nil, "").json(t)["saml_enabled"] != false {
		t.Fatal("saml_enabled")
	}
	on := newEnv(t, withSAML(t))
	if on.req("GET", "/settings", nil, "").json(t)["saml_enabled"] != true {
		t.Fatal("saml_enabled with SSO on")
	}
}

// SAML settings come from SAML_* in the reference's formats.
func TestSAMLConfigFromEnv(t *testing.T) {
	t.Parallel()
	k, _ := samlKeys(t)
	env := map[string]string{"GOTRUE_SAML_ENABLED": "true"}
	get := func(name string) string { return env[name] }
	if _, err := ConfigFromEnv(get); err == nil || !strings.Contains(err.Error(), "SAML_PRIVATE_KEY") {
		t.Fatalf("SSO on without a key: %v", err)
	}
	env["GOTRUE_SAML_PRIVATE_KEY"] = "bm90IGEga2V5"
	if _, err := ConfigFromEnv(get); err == nil || !strings.Contains(err.Error(), "PKCS#1") {
		t.Fatalf("bad key: %v", err)
	}
	env["GOTRUE_SAML_PRIVATE_KEY"] = base64.StdEncoding.EncodeToString(x509.MarshalPKCS1PrivateKey(k))
	env["BASALT_AUTH_SAML_RELAY_STATE_VALIDITY_PERIOD"] = "5m"
	c, err := ConfigFromEnv(get)
	if err != nil {
		t.Fatal(err)
	}
	if !c.SAML.Enabled || !c.SAML.PrivateKey.Equal(k) || c.SAML.RelayStateValidity != 5*time.Minute ||
		c.SAML.ExternalURL != "http://localhost:54321/auth/v1" {
		t.Fatalf("saml config %+v", c.SAML)
	}
}
