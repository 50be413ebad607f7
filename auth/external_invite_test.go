package auth

import (
	"net/url"
	"testing"
)

// invite invites addr through the admin API and returns the user's id and
// the token of the invitation link.
func (e *env) invite(addr string) (id, token string) {
	e.t.Helper()
	r := e.req("POST", "/invite", map[string]any{"email": addr, "data": map[string]any{"team": "a"}}, e.service())
	if r.Status != 200 {
		e.t.Fatalf("invite %d %s", r.Status, r.Body)
	}
	m := e.mails(addr)
	if len(m) == 0 || m[0].TokenHash == "" {
		e.t.Fatalf("no invitation mail to %s", addr)
	}
	return r.json(e.t)["id"].(string), m[0].TokenHash
}

// An invited user accepts the invitation by signing up with a provider
// (invite_token on /authorize, as the reference takes it): the provider
// identity joins the invited user, even with sign-ups off and an address
// the provider did not verify (the invitation proves it), the address is
// confirmed, the never-proven email identity goes, and the invitation
// cannot be used again.
func TestExternalInviteAccepted(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, func(c *Config) { withIdP(idp, "google")(c); c.DisableSignup = true })
	id, token := e.invite("guest@example.com")
	idp.next(&idpUser{Sub: "g-inv", Email: "Guest@Example.com", Name: "Guest"})
	_, last := e.browser(idp.Addr()).follow(t, "/authorize?provider=google&redirect_to=http://localhost:3000/welcome&invite_token="+
		url.QueryEscape(token))
	f := fragment(t, last.Location)
	if last.Status != 302 || last.Location.Path != "/welcome" || f.Get("access_token") == "" {
		t.Fatalf("callback %d %v", last.Status, last.Location)
	}
	u := e.req("GET", "/user", nil, f.Get("access_token")).json(t)
	ids := u["identities"].([]any)
	app := u["app_metadata"].(map[string]any)
	if u["id"] != id || u["email"] != "guest@example.com" || u["email_confirmed_at"] == nil || len(ids) != 1 ||
		ids[0].(map[string]any)["provider"] != "google" || ids[0].(map[string]any)["id"] != "g-inv" ||
		app["provider"] != "google" || len(app["providers"].([]any)) != 1 {
		t.Fatalf("user %v", u)
	}
	var accepted int
	if err := e.db.Admin.QueryRow(t.Context(), `SELECT count(*) FROM auth.audit_log_entries WHERE payload->>'action' = 'invite_accepted'
		AND payload->>'actor_id' = $1 AND payload->'traits'->>'provider' = 'google'`, id).Scan(&accepted); err != nil || accepted != 1 {
		t.Fatalf("invite_accepted entries %d %v", accepted, err)
	}
	wantErr(t, e.req("GET", "/authorize?provider=google&invite_token="+url.QueryEscape(token), nil, ""),
		404, "user_not_found", "User identified by token not found")
}

// An invitation the provider's addresses do not match, or one used up
// while the user was at the provider, sends the app the reference's error
// and leaves the invited user as it was.
func TestExternalInviteErrors(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, withIdP(idp, "google"))
	wantErr(t, e.req("GET", "/authorize?provider=google&invite_token=deadbeef", nil, ""),
		404, "user_not_found", "User identified by token not found")

	id, token := e.invite("bob@example.com")
	idp.next(&idpUser{Sub: "g-other", Email: "other@example.com", Verified: true})
	b := e.browser(idp.Addr())
	_, last := b.follow(t, "/authorize?provider=google&redirect_to=http://localhost:3000/cb&invite_token="+url.QueryEscape(token))
	q := last.Location.Query()
	if last.Status != 302 || q.Get("error") != "invalid_request" || q.Get("error_code") != "validation_failed" ||
		q.Get("error_description") != "Invited email does not match emails from external provider" {
		t.Fatalf("mismatch %d %v", last.Status, last.Location)
	}
	u := e.req("GET", "/admin/users/"+id, nil, e.service()).json(t)
	if u["email_confirmed_at"] != nil || u["identities"].([]any)[0].(map[string]any)["provider"] != "email" {
		t.Fatalf("invited user after a mismatch %v", u)
	}

	// The invitation link is followed while the user is at the provider.
	authz := b.get(t, "/authorize?provider=google&redirect_to=http://localhost:3000/cb&invite_token="+url.QueryEscape(token)).Location
	if r := e.req("POST", "/verify", map[string]any{"type": "invite", "token_hash": token}, ""); r.Status != 200 {
		t.Fatalf("verify %d %s", r.Status, r.Body)
	}
	idp.next(&idpUser{Sub: "g-bob", Email: "bob@example.com", Verified: true})
	_, last = b.follow(t, authz.String())
	if q := last.Location.Query(); q.Get("error_code") != "invite_not_found" || q.Get("error_description") != "Invite not found" {
		t.Fatalf("used invitation %v", last.Location)
	}
}
