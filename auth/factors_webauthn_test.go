package auth

import (
	"context"
	"testing"
)

// mfaWebAuthnChallenge asks for a challenge of factor fid and returns its
// id, its webauthn type and the publicKey options.
func (e *env) mfaWebAuthnChallenge(fid, at string) (string, string, map[string]any) {
	e.t.Helper()
	r := e.req("POST", "/factors/"+fid+"/challenge", map[string]any{"factorId": fid,
		"webauthn": map[string]any{"rpId": "evil.example", "rpOrigins": []string{"https://evil.example"}}}, at)
	if r.Status != 200 {
		e.t.Fatalf("challenge %d %s", r.Status, r.Body)
	}
	m := r.json(e.t)
	if m["type"] != "webauthn" || m["expires_at"].(float64) <= float64(e.clock.now().Unix()) {
		e.t.Fatalf("challenge %s", r.Body)
	}
	w := m["webauthn"].(map[string]any)
	return m["id"].(string), w["type"].(string), w["credential_options"].(map[string]any)["publicKey"].(map[string]any)
}

// mfaWebAuthnVerify posts a verification of challenge ch of factor fid.
func (e *env) mfaWebAuthnVerify(fid, ch, typ string, cred map[string]any, at string) *resp {
	e.t.Helper()
	return e.req("POST", "/factors/"+fid+"/verify", map[string]any{"challenge_id": ch,
		"webauthn": map[string]any{"type": typ, "rpId": testRPID, "rpOrigins": []string{testOrigin}, "credential_response": cred}}, at)
}

func TestMFAWebAuthn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, webAuthnOn)
	at := e.signUp("webauthn@example.com", "secret123")["access_token"].(string)
	login := func() string {
		return e.req("POST", "/token?grant_type=password", `{"email":"webauthn@example.com","password":"secret123"}`, "").json(t)["access_token"].(string)
	}
	other := login()
	en := e.req("POST", "/factors", `{"factor_type":"webauthn","friendly_name":"yubikey"}`, at)
	f := en.json(t)
	if en.Status != 200 || f["type"] != "webauthn" || f["friendly_name"] != "yubikey" {
		t.Fatalf("enroll %d %s", en.Status, en.Body)
	}
	fid := f["id"].(string)

	// Unverified: a registration, whatever relying party the caller names.
	ch, typ, opts := e.mfaWebAuthnChallenge(fid, at)
	if typ != "create" || str(opts, "rp", "id") != testRPID || str(opts, "user", "id") == "" {
		t.Fatalf("registration options %s %v", typ, opts)
	}
	key := newSoftKey(t, testRPID, testOrigin)
	wantErr(t, e.mfaWebAuthnVerify(fid, ch, "request", key.create(opts), at), 400, "validation_failed", "WebAuthn type must be create for this factor")
	wantErr(t, e.req("POST", "/factors/"+fid+"/verify", map[string]any{"challenge_id": ch}, at), 400, "validation_failed", "WebAuthn config required")
	// The page's origin and the key's relying party are checked.
	wantErr(t, e.mfaWebAuthnVerify(fid, ch, "create", key.clone(testRPID, "https://evil.example").create(opts), at),
		400, "webauthn_verification_failed", "Credential verification failed")
	wantErr(t, e.mfaWebAuthnVerify(fid, ch, "create", key.clone("evil.example", testOrigin).create(opts), at),
		400, "webauthn_verification_failed", "Credential verification failed")
	v := e.mfaWebAuthnVerify(fid, ch, "create", key.create(opts), at)
	if v.Status != 200 {
		t.Fatalf("verify registration %d %s", v.Status, v.Body)
	}
	vm := v.json(t)
	c, _ := e.keys.Verify(vm["access_token"].(string), e.clock.now())
	if c.Map["aal"] != "aal2" || c.Map["amr"].([]any)[0].(map[string]any)["method"] != "mfa/webauthn" {
		t.Fatalf("claims %v", c.Map)
	}
	if vm["user"].(map[string]any)["factors"].([]any)[0].(map[string]any)["status"] != "verified" {
		t.Fatalf("factor not verified: %s", v.Body)
	}
	// Other aal1 sessions are signed out; the answered challenge is spent.
	wantErr(t, e.req("GET", "/user", nil, other), 403, "session_not_found", "")
	wantErr(t, e.mfaWebAuthnVerify(fid, ch, "create", key.create(opts), at), 422, "mfa_factor_not_found", "")

	// Verified: an assertion by this factor's key.
	aal1 := login()
	ch, typ, opts = e.mfaWebAuthnChallenge(fid, aal1)
	allow, _ := opts["allowCredentials"].([]any)
	if typ != "request" || len(allow) != 1 || str(allow[0].(map[string]any), "id") != b64.EncodeToString(key.id) {
		t.Fatalf("request options %s %v", typ, opts)
	}
	wantErr(t, e.mfaWebAuthnVerify(fid, ch, "create", newSoftKey(t, testRPID, testOrigin).create(opts), aal1),
		400, "validation_failed", "WebAuthn type must be request for this factor")
	wantErr(t, e.mfaWebAuthnVerify(fid, ch, "request", badSignature(key.get(opts)), aal1), 400, "webauthn_verification_failed", "")
	wantErr(t, e.mfaWebAuthnVerify(fid, ch, "request", key.clone(testRPID, "https://evil.example").get(opts), aal1), 400, "webauthn_verification_failed", "")
	wantErr(t, e.mfaWebAuthnVerify(fid, ch, "request", key.clone("evil.example", testOrigin).get(opts), aal1), 400, "webauthn_verification_failed", "")
	other2 := newSoftKey(t, testRPID, testOrigin)
	other2.userHandle = key.userHandle
	wantErr(t, e.mfaWebAuthnVerify(fid, ch, "request", other2.get(opts), aal1), 400, "webauthn_verification_failed", "")
	assertion := key.get(opts)
	v = e.mfaWebAuthnVerify(fid, ch, "request", assertion, aal1)
	if v.Status != 200 {
		t.Fatalf("verify assertion %d %s", v.Status, v.Body)
	}
	if c, _ := e.keys.Verify(v.json(t)["access_token"].(string), e.clock.now()); c.Map["aal"] != "aal2" {
		t.Fatalf("assertion did not raise aal: %v", c.Map)
	}
	// Replaying the assertion, on its challenge or on a fresh one, fails.
	wantErr(t, e.mfaWebAuthnVerify(fid, ch, "request", assertion, aal1), 422, "mfa_factor_not_found", "")
	ch2, _, _ := e.mfaWebAuthnChallenge(fid, aal1)
	wantErr(t, e.mfaWebAuthnVerify(fid, ch2, "request", assertion, aal1), 400, "webauthn_verification_failed", "")
	// The signature counter was stored.
	var count int64
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT (web_authn_credential->'authenticator'->>'signCount')::bigint
		FROM auth.mfa_factors WHERE id = $1`, fid).Scan(&count); err != nil || count != int64(key.count) {
		t.Fatalf("sign count %d (%v), want %d", count, err, key.count)
	}
}

func TestMFAWebAuthnDisabled(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	at := e.signUp("nowebauthn@example.com", "secret123")["access_token"].(string)
	wantErr(t, e.req("POST", "/factors", `{"factor_type":"webauthn"}`, at), 422, "mfa_webauthn_enroll_not_enabled", "MFA enroll is disabled for WebAuthn")
	if _, err := ConfigFromEnv(func(k string) string { return map[string]string{"GOTRUE_PASSKEY_ENABLED": "true"}[k] }); err == nil {
		t.Fatal("passkeys without a relying party were accepted")
	}
	env := map[string]string{"GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true", "GOTRUE_WEBAUTHN_RP_ID": "example.com",
		"GOTRUE_WEBAUTHN_RP_DISPLAY_NAME": "Example", "BASALT_AUTH_WEBAUTHN_RP_ORIGINS": "https://example.com, https://app.example.com"}
	c, err := ConfigFromEnv(func(k string) string { return env[k] })
	if err != nil || !c.WebAuthn.MFAEnroll || len(c.WebAuthn.RPOrigins) != 2 || c.WebAuthn.ChallengeExpiry.Minutes() != 5 {
		t.Fatalf("config %+v %v", c.WebAuthn, err)
	}
}
