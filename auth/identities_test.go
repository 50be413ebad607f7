package auth

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
)

// linkIdentity: a signed-in user gets the provider's URL as JSON, and the
// callback adds the identity to that user (not to whoever owns the
// address); linking an identity twice, or one another user has, fails.
func TestLinkIdentity(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, func(c *Config) { withIdP(idp, "google")(c); c.MailerAutoconfirm = true })
	me := e.signUp("me@example.com", "secret123")
	at := me["access_token"].(string)
	myID := me["user"].(map[string]any)["id"]
	b := e.browser(idp.Addr())
	link := func(bearer string) hop {
		t.Helper()
		r := e.req("GET", "/user/identities/authorize?provider=google&skip_http_redirect=true&redirect_to=http://localhost:3000/settings", nil, bearer)
		var body struct {
			URL string `json:"url"`
		}
		if err := json.Unmarshal(r.Body, &body); r.Status != 200 || err != nil || body.URL == "" {
			t.Fatalf("link start %d %s", r.Status, r.Body)
		}
		_, last := b.follow(t, body.URL)
		return last
	}
	// The provider account has another address than mine.
	idp.next(&idpUser{Sub: "g-me", Email: "me.elsewhere@example.com", Verified: true})
	h := link(at)
	f := fragment(t, h.Location)
	u := e.req("GET", "/user", nil, f.Get("access_token")).json(t)
	ids := u["identities"].([]any)
	if h.Location.Path != "/settings" || u["id"] != myID || len(ids) != 2 || u["email"] != "me@example.com" {
		t.Fatalf("linked %v %v", h.Location, u)
	}
	if ps := u["app_metadata"].(map[string]any)["providers"].([]any); len(ps) != 2 || ps[1] != "google" {
		t.Fatalf("providers %v", ps)
	}

	idp.next(&idpUser{Sub: "g-me", Email: "me.elsewhere@example.com", Verified: true})
	if q := link(at).Location.Query(); q.Get("error_code") != "identity_already_exists" || q.Get("error_description") != "Identity is already linked" {
		t.Fatalf("second link %v", q)
	}
	other := e.signUp("other@example.com", "secret123")["access_token"].(string)
	idp.next(&idpUser{Sub: "g-me", Email: "me.elsewhere@example.com", Verified: true})
	if q := link(other).Location.Query(); q.Get("error_description") != "Identity is already linked to another user" {
		t.Fatalf("link of another's identity %v", q)
	}

	// Without skip_http_redirect the start is a redirect.
	if r := e.req("GET", "/user/identities/authorize?provider=google", nil, at); r.Status != 302 {
		t.Fatalf("redirect start %d", r.Status)
	}
	wantErr(t, e.req("GET", "/user/identities/authorize?provider=nope", nil, at), 400, "validation_failed",
		"Unsupported provider: Provider nope could not be found")
	wantErr(t, e.req("GET", "/user/identities/authorize?provider=google", nil, ""), 401, "no_authorization", "")
	e.svc.cfg.ManualLinking = false
	wantErr(t, e.req("GET", "/user/identities/authorize?provider=google", nil, at), 404, "manual_linking_disabled", "Manual linking is disabled")
}

// unlinkIdentity keeps at least one identity, refuses unknown ones with
// the reference's errors, and moves the address to a remaining identity
// when the one it came from goes.
func TestUnlinkIdentity(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	api := oauthAPI(t, "client-gh", "secret-gh")
	e := newEnv(t, func(c *Config) {
		withIdP(idp, "google")(c)
		c.External["github"] = ProviderConfig{Enabled: true, ClientIDs: []string{"client-gh"}, Secret: "secret-gh", URL: api.URL}
	})
	b := e.browser(idp.Addr(), api.URL)
	idp.next(&idpUser{Sub: "g-1", Email: "first@example.com", Verified: true})
	_, h := b.follow(t, "/authorize?provider=google")
	at := fragment(t, h.Location).Get("access_token")
	del := func(id, bearer string) *resp { return e.req("DELETE", "/user/identities/"+id, nil, bearer) }

	u := e.req("GET", "/user", nil, at).json(t)
	gid := u["identities"].([]any)[0].(map[string]any)["identity_id"].(string)
	wantErr(t, del(gid, at), 422, "single_identity_not_deletable", "User must have at least 1 identity after unlinking")

	r := e.req("GET", "/user/identities/authorize?provider=github&skip_http_redirect=true", nil, at)
	var start struct{ URL string }
	_ = json.Unmarshal(r.Body, &start)
	b.follow(t, start.URL)

	wantErr(t, del("not-a-uuid", at), 404, "validation_failed", "identity_id must be an UUID")
	wantErr(t, del(newUUID(), at), 422, "identity_not_found", "Identity doesn't exist")
	// A token for another audience may not unlink.
	req := httptest.NewRequest("DELETE", "/user/identities/"+gid, nil)
	req.Header.Set("Authorization", "Bearer "+at)
	req.Header.Set("X-JWT-AUD", "elsewhere")
	req.Header.Set(apiVersionHeader, "2024-01-01")
	w := httptest.NewRecorder()
	e.svc.ServeHTTP(w, req)
	wantErr(t, &resp{Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}, 403, "unexpected_audience",
		"Token audience doesn't match request audience")

	r = del(gid, at)
	if r.Status != 200 || string(r.Body) != "{}\n" {
		t.Fatalf("unlink %d %s", r.Status, r.Body)
	}
	u = e.req("GET", "/user", nil, at).json(t)
	ids := u["identities"].([]any)
	app := u["app_metadata"].(map[string]any)
	// The address came from Google; GitHub's verified primary takes over.
	if len(ids) != 1 || ids[0].(map[string]any)["provider"] != "github" || u["email"] != "octo@example.com" ||
		app["provider"] != "github" || len(app["providers"].([]any)) != 1 {
		t.Fatalf("after unlink %v", u)
	}
	e.svc.cfg.ManualLinking = false
	wantErr(t, del(gid, at), 404, "manual_linking_disabled", "Manual linking is disabled")
}
