package auth

import (
	"encoding/json"
	"testing"
	"time"
)

// passkeyOptions asks for ceremony options at path and returns the
// challenge id and the options.
func (e *env) passkeyOptions(path, at string) (string, map[string]any) {
	e.t.Helper()
	r := e.req("POST", path, map[string]any{}, at)
	if r.Status != 200 {
		e.t.Fatalf("%s %d %s", path, r.Status, r.Body)
	}
	m := r.json(e.t)
	if m["expires_at"].(float64) <= float64(e.clock.now().Unix()) || !isUUID(str(m, "challenge_id")) {
		e.t.Fatalf("%s %s", path, r.Body)
	}
	return str(m, "challenge_id"), m["options"].(map[string]any)
}

func passkeyBody(ch string, cred map[string]any) map[string]any {
	return map[string]any{"challenge_id": ch, "credential": cred}
}

// registerPasskey registers key for the user of at and returns the passkey.
func (e *env) registerPasskey(key *softKey, at string) map[string]any {
	e.t.Helper()
	ch, opts := e.passkeyOptions("/passkeys/registration/options", at)
	r := e.req("POST", "/passkeys/registration/verify", passkeyBody(ch, key.create(opts)), at)
	if r.Status != 200 {
		e.t.Fatalf("register passkey %d %s", r.Status, r.Body)
	}
	return r.json(e.t)
}

func TestPasskeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webAuthnOn)
	s := e.signUp("passkey@example.com", "secret123")
	at := s["access_token"].(string)
	uid := s["user"].(map[string]any)["id"].(string)
	if st := e.req("GET", "/settings", nil, "").json(t); st["passkeys_enabled"] != true {
		t.Fatalf("settings %v", st)
	}
	wantErr(t, e.req("POST", "/passkeys/registration/options", `{}`, ""), 401, "no_authorization", "")

	// Registration: discoverable ES256 credentials for this relying party.
	ch, opts := e.passkeyOptions("/passkeys/registration/options", at)
	sel, _ := opts["authenticatorSelection"].(map[string]any)
	if str(opts, "rp", "id") != testRPID || str(opts, "user", "id") == "" || sel["residentKey"] != "required" ||
		opts["pubKeyCredParams"].([]any)[0].(map[string]any)["alg"] != float64(-7) {
		t.Fatalf("registration options %v", opts)
	}
	key := newSoftKey(t, testRPID, testOrigin)
	wantErr(t, e.req("POST", "/passkeys/registration/verify", passkeyBody(nilUUID, key.create(opts)), at),
		400, "webauthn_challenge_not_found", "Challenge not found or already used")
	wantErr(t, e.req("POST", "/passkeys/registration/verify", map[string]any{"challenge_id": ch}, at), 400, "validation_failed", "credential is required")
	r := e.req("POST", "/passkeys/registration/verify", passkeyBody(ch, key.create(opts)), at)
	pk := r.json(t)
	if r.Status != 200 || !isUUID(str(pk, "id")) || pk["friendly_name"] != "Passkey" || str(pk, "created_at") == "" {
		t.Fatalf("register %d %s", r.Status, r.Body)
	}
	pid := str(pk, "id")
	wantErr(t, e.req("POST", "/passkeys/registration/verify", passkeyBody(ch, key.create(opts)), at), 400, "webauthn_challenge_not_found", "")
	// A response from another origin or for another relying party id is
	// refused, and spends its challenge.
	for _, liar := range []*softKey{newSoftKey(t, testRPID, "https://evil.example"), newSoftKey(t, "evil.example", testOrigin)} {
		ch, opts := e.passkeyOptions("/passkeys/registration/options", at)
		wantErr(t, e.req("POST", "/passkeys/registration/verify", passkeyBody(ch, liar.create(opts)), at), 400, "webauthn_verification_failed", "")
		wantErr(t, e.req("POST", "/passkeys/registration/verify", passkeyBody(ch, newSoftKey(t, testRPID, testOrigin).create(opts)), at),
			400, "webauthn_challenge_not_found", "")
	}

	// Sign-in names no user; the key's user handle does.
	signIn := func(k *softKey) (*resp, map[string]any) {
		ch, opts := e.passkeyOptions("/passkeys/authentication/options", "")
		if allow, _ := opts["allowCredentials"].([]any); len(allow) != 0 {
			t.Fatalf("discoverable sign-in lists credentials: %v", opts)
		}
		a := k.get(opts)
		return e.req("POST", "/passkeys/authentication/verify", passkeyBody(ch, a), ""), passkeyBody(ch, a)
	}
	r, body := signIn(key)
	if r.Status != 200 {
		t.Fatalf("sign in %d %s", r.Status, r.Body)
	}
	sm := r.json(t)
	c, _ := e.keys.Verify(str(sm, "access_token"), e.clock.now())
	if c.Subject != uid || c.Map["aal"] != "aal1" || c.Map["amr"].([]any)[0].(map[string]any)["method"] != "passkey" {
		t.Fatalf("claims %v", c.Map)
	}
	if g := e.req("GET", "/user", nil, str(sm, "access_token")); g.Status != 200 {
		t.Fatalf("session unusable %d %s", g.Status, g.Body)
	}
	wantErr(t, e.req("POST", "/passkeys/authentication/verify", body, ""), 400, "webauthn_challenge_not_found", "")

	// Wrong signature, origin, relying party, or a key never registered.
	ch, opts = e.passkeyOptions("/passkeys/authentication/options", "")
	wantErr(t, e.req("POST", "/passkeys/authentication/verify", passkeyBody(ch, badSignature(key.get(opts))), ""), 400, "webauthn_verification_failed", "")
	wantErr(t, e.req("POST", "/passkeys/authentication/verify", passkeyBody(ch, key.get(opts)), ""), 400, "webauthn_challenge_not_found", "")
	stranger := newSoftKey(t, testRPID, testOrigin)
	stranger.userHandle = key.userHandle
	for _, liar := range []*softKey{key.clone(testRPID, "https://evil.example"), key.clone("evil.example", testOrigin), stranger} {
		r, _ := signIn(liar)
		wantErr(t, r, 400, "webauthn_verification_failed", "Credential verification failed")
	}
	// Challenges expire.
	ch, opts = e.passkeyOptions("/passkeys/authentication/options", "")
	e.clock.add(6 * time.Minute)
	wantErr(t, e.req("POST", "/passkeys/authentication/verify", passkeyBody(ch, key.get(opts)), ""), 400, "webauthn_challenge_expired", "Challenge has expired")

	// Rename, list, admin list; delete ends sign-ins with the key.
	wantErr(t, e.req("PATCH", "/passkeys/"+nilUUID, `{"friendly_name":"x"}`, at), 404, "validation_failed", "Passkey not found")
	wantErr(t, e.req("PATCH", "/passkeys/"+pid, `{"friendly_name":""}`, at), 400, "validation_failed", "friendly_name is required")
	if u := e.req("PATCH", "/passkeys/"+pid, `{"friendly_name":"laptop"}`, at); u.Status != 200 || u.json(t)["friendly_name"] != "laptop" {
		t.Fatalf("rename %d %s", u.Status, u.Body)
	}
	for _, l := range []*resp{e.req("GET", "/passkeys", nil, at), e.req("GET", "/admin/users/"+uid+"/passkeys", nil, e.service())} {
		var items []map[string]any
		if err := json.Unmarshal(l.Body, &items); err != nil || l.Status != 200 || len(items) != 1 || items[0]["id"] != pid ||
			items[0]["friendly_name"] != "laptop" || str(items[0], "last_used_at") == "" {
			t.Fatalf("list %d %s", l.Status, l.Body)
		}
	}
	if d := e.req("DELETE", "/passkeys/"+pid, nil, at); d.Status != 204 {
		t.Fatalf("delete %d %s", d.Status, d.Body)
	}
	wantErr(t, e.req("DELETE", "/passkeys/"+pid, nil, at), 404, "validation_failed", "Passkey not found")
	r, _ = signIn(key)
	wantErr(t, r, 400, "webauthn_verification_failed", "")
	second := newSoftKey(t, testRPID, testOrigin)
	pid2 := str(e.registerPasskey(second, at), "id")
	if d := e.req("DELETE", "/admin/users/"+uid+"/passkeys/"+pid2, nil, e.service()); d.Status != 204 {
		t.Fatalf("admin delete %d %s", d.Status, d.Body)
	}
	if l := e.req("GET", "/admin/users/"+uid+"/passkeys", nil, e.service()); string(l.Body) != "[]\n" {
		t.Fatalf("admin list after delete %s", l.Body)
	}
}

func TestPasskeysNeedAAL2OnceMFAIsOn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webAuthnOn)
	at := e.signUp("aal@example.com", "secret123")["access_token"].(string)
	e.exec(`INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
		SELECT gen_random_uuid(), id, 'app', 'totp', 'verified', now(), now(), 'JBSWY3DPEHPK3PXP' FROM auth.users WHERE email = 'aal@example.com'`)
	wantErr(t, e.req("POST", "/passkeys/registration/options", `{}`, at), 403, "insufficient_aal",
		"AAL2 session is required to manage passkeys when MFA is enabled")
}

func TestPasskeysDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	wantErr(t, e.req("POST", "/passkeys/authentication/options", `{}`, ""), 404, "passkey_disabled", "Passkeys are disabled")
	if st := e.req("GET", "/settings", nil, "").json(t); st["passkeys_enabled"] != false {
		t.Fatalf("settings %v", st)
	}
}
