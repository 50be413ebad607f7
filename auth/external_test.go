package auth

import (
	"strings"
	"testing"
	"time"
)

// A provider sign-in without PKCE (the implicit flow) goes to the
// provider with the reference's parameters, comes back to /callback,
// creates the user with the provider's identity, and hands the session
// to the app in the URL fragment.
func TestExternalImplicitSignIn(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, withIdP(idp, "google"))
	idp.next(&idpUser{Sub: "g-1", Email: "Ada@Example.com", Verified: true, Name: "Ada L", Picture: "https://img/ada"})
	b := e.browser(idp.Addr())
	authz, last := b.follow(t, "/authorize?provider=google&redirect_to=http://localhost:3000/welcome&scopes=groups"+
		"&prompt=consent&client_id=evil&redirect_uri=http://evil.test/cb")
	q := authz.Query()
	if authz.Path != "/oidc/authorize" || q.Get("client_id") != idp.ClientID || q.Get("response_type") != "code" ||
		q.Get("redirect_uri") != "http://api.test/auth/v1/callback" || q.Get("scope") != "openid email profile groups" ||
		!isUUID(q.Get("state")) || q.Get("nonce") == "" || q.Get("prompt") != "consent" {
		t.Fatalf("authorization request %s", authz)
	}
	if last.Status != 302 || last.Location.Host != "localhost:3000" || last.Location.Path != "/welcome" {
		t.Fatalf("final redirect %d %v", last.Status, last.Location)
	}
	f := fragment(t, last.Location)
	for _, k := range []string{"access_token", "refresh_token", "expires_in", "expires_at", "provider_token", "provider_refresh_token"} {
		if f.Get(k) == "" {
			t.Fatalf("fragment lacks %s: %v", k, f)
		}
	}
	if f.Get("token_type") != "bearer" || !f.Has("sb") {
		t.Fatalf("fragment %v", f)
	}
	c, err := e.keys.Verify(f.Get("access_token"), e.clock.now())
	if err != nil {
		t.Fatal(err)
	}
	if c.Map["amr"].([]any)[0].(map[string]any)["method"] != "oauth" || c.Map["email"] != "ada@example.com" {
		t.Fatalf("claims %v", c.Map)
	}
	u := e.req("GET", "/user", nil, f.Get("access_token")).json(t)
	app := u["app_metadata"].(map[string]any)
	ids := u["identities"].([]any)
	if app["provider"] != "google" || len(app["providers"].([]any)) != 1 || len(ids) != 1 || u["email_confirmed_at"] == nil {
		t.Fatalf("user %v", u)
	}
	id := ids[0].(map[string]any)
	data := id["identity_data"].(map[string]any)
	if id["provider"] != "google" || id["id"] != "g-1" || id["email"] != "ada@example.com" || data["email_verified"] != true ||
		data["full_name"] != "Ada L" || data["avatar_url"] != "https://img/ada" || data["phone_verified"] != false {
		t.Fatalf("identity %v", id)
	}
	if md := u["user_metadata"].(map[string]any); md["name"] != "Ada L" || md["sub"] != "g-1" {
		t.Fatalf("user_metadata %v", md)
	}

	// The same provider account signs in to the same user next time.
	idp.next(&idpUser{Sub: "g-1", Email: "ada@example.com", Verified: true, Name: "Ada Lovelace"})
	_, again := b.follow(t, "/authorize?provider=google")
	f2 := fragment(t, again.Location)
	u2 := e.req("GET", "/user", nil, f2.Get("access_token")).json(t)
	if u2["id"] != u["id"] || u2["user_metadata"].(map[string]any)["name"] != "Ada Lovelace" {
		t.Fatalf("second sign-in %v", u2)
	}
	// Without redirect_to the flow ends at the site URL.
	if again.Location.Host != "localhost:3000" || again.Location.Path != "" {
		t.Fatalf("default redirect %v", again.Location)
	}
}

// With a code challenge the callback hands the app a code, which only the
// holder of the verifier can exchange, once, for the session and the
// provider's tokens; the state cannot be used twice.
func TestExternalPKCE(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, withIdP(idp, "google"))
	verifier, challenge := pkcePair()
	b := e.browser(idp.Addr())
	authz := b.get(t, "/authorize?provider=google&redirect_to=http://localhost:3000/cb?keep=1&code_challenge="+challenge+
		"&code_challenge_method=s256").Location
	back := b.get(t, authz.String()).Location
	h := b.get(t, back.String())
	code := h.Location.Query().Get("code")
	if h.Status != 302 || h.Location.Path != "/cb" || h.Location.Query().Get("keep") != "1" || !isUUID(code) || h.Location.Fragment != "" {
		t.Fatalf("callback %d %v", h.Status, h.Location)
	}
	// The provider's redirect replayed: the state was used.
	replay := b.get(t, back.String())
	if replay.Status != 303 || replay.Location.Host != "localhost:3000" || replay.Location.Query().Get("error_code") != "flow_state_already_used" {
		t.Fatalf("replayed callback %d %v", replay.Status, replay.Location)
	}
	wantErr(t, e.req("POST", "/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": verifier + "x"}, ""),
		400, "bad_code_verifier", "code challenge does not match previously saved code verifier")
	r := e.req("POST", "/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": verifier}, "")
	s := r.json(t)
	if r.Status != 200 || s["provider_token"] == nil || s["provider_token"] == "" || s["access_token"] == nil {
		t.Fatalf("exchange %d %s", r.Status, r.Body)
	}
	if s["user"].(map[string]any)["identities"].([]any)[0].(map[string]any)["provider"] != "google" {
		t.Fatalf("user %v", s["user"])
	}
	wantErr(t, e.req("POST", "/token?grant_type=pkce", map[string]any{"auth_code": code, "code_verifier": verifier}, ""),
		404, "flow_state_not_found", "invalid flow state, no valid flow state found")
}

// Requests Basalt cannot start, and callbacks it cannot finish, answer as
// the reference does: a bad start is a JSON error, a bad state sends the
// browser to the site URL, and anything after that back to the app with
// error, error_code and error_description (in the query and, with sb,
// in the fragment).
func TestExternalErrors(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, withIdP(idp, "google"))
	wantErr(t, e.req("GET", "/authorize?provider=nope", nil, ""), 400, "validation_failed",
		"Unsupported provider: Provider nope could not be found")
	wantErr(t, e.req("GET", "/authorize?provider=github", nil, ""), 400, "validation_failed",
		"Unsupported provider: provider is not enabled")
	wantErr(t, e.req("GET", "/authorize?provider=google&code_challenge=short&code_challenge_method=s256", nil, ""), 400,
		"validation_failed", "")

	b := e.browser(idp.Addr())
	siteErr := func(raw, code, msg string) {
		t.Helper()
		h := b.get(t, raw)
		q := h.Location.Query()
		if h.Status != 303 || h.Location.Host != "localhost:3000" || q.Get("error") != "invalid_request" ||
			q.Get("error_code") != code || q.Get("error_description") != msg {
			t.Fatalf("%s: %d %v", raw, h.Status, h.Location)
		}
	}
	siteErr("/callback?code=x", "bad_oauth_callback", "OAuth state parameter missing")
	siteErr("/callback?code=x&state=nope", "bad_oauth_state", "OAuth state parameter is invalid")
	siteErr("/callback?code=x&state="+newUUID(), "bad_oauth_state", "OAuth state not found or expired")

	// A redirect_to outside the allow-list is ignored: the flow ends at
	// the site URL.
	authz := b.get(t, "/authorize?provider=google&redirect_to=https://evil.example/steal").Location
	state := authz.Query().Get("state")
	e.clock.add(301 * time.Second)
	siteErr("/callback?code=x&state="+state, "bad_oauth_state", "OAuth state has expired")
	e.clock.add(-301 * time.Second)

	appErr := func(h hop, errName, code, msg string) {
		t.Helper()
		q, f := h.Location.Query(), fragment(t, h.Location)
		if h.Status != 302 || h.Location.Host != "localhost:3000" || q.Get("error") != errName || q.Get("error_code") != code ||
			q.Get("error_description") != msg || f.Get("error") != errName || f.Get("error_description") != msg || !f.Has("sb") {
			t.Fatalf("%d %v", h.Status, h.Location)
		}
	}
	// The user refuses at the provider.
	idp.refuseNext()
	_, h := b.follow(t, "/authorize?provider=google&redirect_to=https://evil.example/steal")
	appErr(h, "access_denied", "", "The user denied the request")
	// No code.
	appErr(b.get(t, "/callback?state="+state), "invalid_request", "bad_oauth_callback",
		"OAuth callback with missing authorization code missing")
	// A code the provider never issued.
	appErr(b.get(t, "/callback?code=forged&state="+state), "server_error", "unexpected_failure",
		"Unable to exchange external code: forg")

	// An ID token that does not carry the nonce this flow sent (a token
	// from another sign-in) is refused.
	authz = b.get(t, "/authorize?provider=google").Location
	e.exec(`UPDATE auth.flow_state SET provider_nonce = 'other' WHERE id = $1`, authz.Query().Get("state"))
	back := b.get(t, authz.String()).Location
	appErr(b.get(t, back.String()), "server_error", "unexpected_failure", "Error getting user profile from external provider")
}

// Signing in with a provider address that the provider verified joins the
// account that already has it; one it did not verify never does, even
// with autoconfirm on, so creating a provider account with someone's
// address does not open theirs.
func TestExternalLinksOnlyVerifiedEmail(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, func(c *Config) { withIdP(idp, "google")(c); c.MailerAutoconfirm = true })
	owner := e.signUp("owner@example.com", "secret123")
	ownerID := owner["user"].(map[string]any)["id"]
	b := e.browser(idp.Addr())

	idp.next(&idpUser{Sub: "attacker", Email: "owner@example.com", Verified: false})
	_, h := b.follow(t, "/authorize?provider=google")
	if q := h.Location.Query(); q.Get("error") != "access_denied" || q.Get("error_code") != "provider_email_needs_verification" ||
		q.Get("error_description") != "Unverified email with google. Verify the email with google in order to sign in" {
		t.Fatalf("unverified sign-in %v", h.Location)
	}
	got := e.req("GET", "/user", nil, owner["access_token"].(string)).json(t)
	if len(got["identities"].([]any)) != 1 {
		t.Fatalf("the owner's account changed: %v", got["identities"])
	}

	idp.next(&idpUser{Sub: "owner-g", Email: "owner@example.com", Verified: true})
	_, h = b.follow(t, "/authorize?provider=google")
	f := fragment(t, h.Location)
	if f.Get("access_token") == "" {
		t.Fatalf("verified link: %v", h.Location)
	}
	u := e.req("GET", "/user", nil, f.Get("access_token")).json(t)
	ps := u["app_metadata"].(map[string]any)["providers"].([]any)
	if u["id"] != ownerID || len(u["identities"].([]any)) != 2 || len(ps) != 2 || ps[0] != "email" || ps[1] != "google" {
		t.Fatalf("linked user %v", u)
	}
	// A new unverified address signs up when autoconfirm is on.
	idp.next(&idpUser{Sub: "new", Email: "new@example.com"})
	_, h = b.follow(t, "/authorize?provider=google")
	if fragment(t, h.Location).Get("access_token") == "" {
		t.Fatalf("new unverified address with autoconfirm: %v", h.Location)
	}
}

// Someone who signed up first with another person's address (never
// confirmed) loses that foothold when the owner signs in with a provider
// that verified it: the password and other identities are dropped.
func TestExternalPreAccountTakeover(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, withIdP(idp, "google"))
	r := e.req("POST", "/signup", map[string]any{"email": "victim@example.com", "password": "attacker-pw"}, "")
	if r.Status != 200 || r.json(t)["email_confirmed_at"] != nil {
		t.Fatalf("signup %d %s", r.Status, r.Body)
	}
	squatter := r.json(t)["id"]
	idp.next(&idpUser{Sub: "victim-g", Email: "victim@example.com", Verified: true})
	_, h := e.browser(idp.Addr()).follow(t, "/authorize?provider=google")
	u := e.req("GET", "/user", nil, fragment(t, h.Location).Get("access_token")).json(t)
	ids := u["identities"].([]any)
	if u["id"] != squatter || len(ids) != 1 || ids[0].(map[string]any)["provider"] != "google" || u["email_confirmed_at"] == nil {
		t.Fatalf("user %v", u)
	}
	if ps := u["app_metadata"].(map[string]any)["providers"].([]any); len(ps) != 1 || ps[0] != "google" {
		t.Fatalf("providers %v", ps)
	}
	wantErr(t, e.req("POST", "/token?grant_type=password", map[string]any{"email": "victim@example.com", "password": "attacker-pw"}, ""),
		400, "invalid_credentials", "Invalid login credentials")
}

// An unverified provider address without autoconfirm gets a confirmation
// mail and the sign-in is refused until it is followed; banned users and
// sign-ups when they are off are refused as access_denied.
func TestExternalRefusals(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, withIdP(idp, "google"))
	b := e.browser(idp.Addr())
	idp.next(&idpUser{Sub: "u-1", Email: "unverified@example.com"})
	_, h := b.follow(t, "/authorize?provider=google&redirect_to=http://localhost:3000/in")
	if q := h.Location.Query(); q.Get("error_code") != "provider_email_needs_verification" ||
		!strings.Contains(q.Get("error_description"), "A confirmation email has been sent") {
		t.Fatalf("unverified %v", h.Location)
	}
	if m := e.mails("unverified@example.com"); len(m) != 1 || m[0].Type != "confirmation" {
		t.Fatalf("mails %+v", m)
	}

	idp.next(&idpUser{Sub: "b-1", Email: "banned@example.com", Verified: true})
	_, h = b.follow(t, "/authorize?provider=google")
	id := e.req("GET", "/user", nil, fragment(t, h.Location).Get("access_token")).json(t)["id"]
	e.exec(`UPDATE auth.users SET banned_until = now() + interval '1 day' WHERE id = $1`, id)
	idp.next(&idpUser{Sub: "b-1", Email: "banned@example.com", Verified: true})
	_, h = b.follow(t, "/authorize?provider=google")
	if q := h.Location.Query(); q.Get("error") != "access_denied" || q.Get("error_code") != "user_banned" {
		t.Fatalf("banned %v", h.Location)
	}

	e.svc.cfg.DisableSignup = true
	idp.next(&idpUser{Sub: "n-1", Email: "newcomer@example.com", Verified: true})
	_, h = b.follow(t, "/authorize?provider=google")
	if q := h.Location.Query(); q.Get("error") != "access_denied" || q.Get("error_code") != "signup_disabled" {
		t.Fatalf("signup disabled %v", h.Location)
	}
}

// Flows nobody came back from are swept a day later, a batch at a time,
// as new flows start; recent ones stay.
func TestExternalFlowSweep(t *testing.T) {
	t.Parallel()
	idp := startIdP(t)
	e := newEnv(t, withIdP(idp, "google"))
	old := e.browser().get(t, "/authorize?provider=google").Location.Query().Get("state")
	recent := e.browser().get(t, "/authorize?provider=google").Location.Query().Get("state")
	e.exec(`UPDATE auth.flow_state SET created_at = created_at - interval '25 hours' WHERE id = $1`, old)
	e.browser().get(t, "/authorize?provider=google")
	var left []string
	rows, err := e.db.Admin.Query(t.Context(), `SELECT id::text FROM auth.flow_state WHERE id = any($1)`, []string{old, recent})
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		_ = rows.Scan(&id)
		left = append(left, id)
	}
	if len(left) != 1 || left[0] != recent {
		t.Fatalf("flows left %v, want only %s", left, recent)
	}
}
