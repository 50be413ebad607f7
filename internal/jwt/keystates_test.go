package jwt_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/internal/jwt"
)

func kidOf(t *testing.T, tok string) string {
	t.Helper()
	p, _, err := gojwt.NewParser().ParseUnverified(tok, gojwt.MapClaims{})
	if err != nil {
		t.Fatal(err)
	}
	kid, _ := p.Header["kid"].(string)
	return kid
}

func jwksKids(k *jwt.Keys) []string {
	var kids []string
	for _, j := range k.JWKS()["keys"] {
		kids = append(kids, j.Kid)
	}
	return kids
}

// TestSigningKeyStates: standby → in use → previously used → revoked, as
// Supabase's signing keys go. A standby key is published before it signs;
// rotating signs with it while tokens of the previous key keep verifying
// (nobody is signed out); revoking a previous key refuses its tokens and
// takes it out of the JWKS; the key in use cannot be revoked. keys.json
// keeps the states.
func TestSigningKeyStates(t *testing.T) {
	t.Parallel()
	k := generate(t) // keys.json's own ES256 key signs
	legacy := k.KID
	mint := func() string {
		t.Helper()
		tok, err := k.Sign(gojwt.MapClaims{"sub": "u", "role": "authenticated", "exp": now.Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	verifies := func(tok string) error { _, err := k.Verify(tok, now); return err }
	t0 := mint()

	standby, err := k.AddStandby("RS256")
	if err != nil {
		t.Fatal(err)
	}
	if got := jwksKids(k); len(got) != 2 || got[0] != legacy || got[1] != standby.KID {
		t.Fatalf("JWKS with a standby key: %v, want the key in use, then the standby key", got)
	}
	if kidOf(t, mint()) != legacy {
		t.Fatal("a standby key signs")
	}
	path := filepath.Join(t.TempDir(), "keys.json")
	if err := k.Save(path); err != nil {
		t.Fatal(err)
	}
	if k, err = jwt.Load(path); err != nil {
		t.Fatalf("keys.json with states: %v", err)
	}

	if _, err := k.Rotate(""); err != nil {
		t.Fatal(err)
	}
	t1 := mint()
	if kidOf(t, t1) != standby.KID || k.SigningAlg != "RS256" {
		t.Fatalf("after rotation tokens are signed by %q (%s), want %q", kidOf(t, t1), k.SigningAlg, standby.KID)
	}
	if err := verifies(t0); err != nil {
		t.Errorf("a token of the previous key no longer verifies: %v", err)
	}
	if got := jwksKids(k); len(got) != 2 || got[0] != standby.KID || got[1] != legacy {
		t.Errorf("JWKS after rotation: %v, want the new key, then the previous one", got)
	}
	if _, err := k.Rotate(""); !errors.Is(err, jwt.ErrNoStandby) {
		t.Errorf("rotation without a standby key: %v", err)
	}

	// A second rotation, to ES256; two previous keys verify.
	second, err := k.AddStandby("ES256")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Rotate(second.KID); err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{"first": t0, "second": t1} {
		if err := verifies(tok); err != nil {
			t.Errorf("%s previous key's token: %v", name, err)
		}
	}
	states := map[string]jwt.Status{}
	for _, s := range k.SigningKeys() {
		states[s.KID] = s.Status
	}
	if states[legacy] != jwt.StatusPrevious || states[standby.KID] != jwt.StatusPrevious || states[second.KID] != jwt.StatusInUse {
		t.Errorf("states %v", states)
	}

	if _, err := k.Revoke(second.KID); !errors.Is(err, jwt.ErrKeyInUse) {
		t.Errorf("revoking the key in use: %v", err)
	}
	if _, err := k.Revoke("nope"); !errors.Is(err, jwt.ErrNoSuchKey) {
		t.Errorf("revoking an unknown kid: %v", err)
	}
	if _, err := k.Revoke(legacy); err != nil {
		t.Fatal(err)
	}
	if err := verifies(t0); !errors.Is(err, jwt.ErrSignature) {
		t.Errorf("a token of the revoked key: %v, want a signature error", err)
	}
	if err := verifies(t1); err != nil {
		t.Errorf("the other previous key's token: %v", err)
	}
	if got := jwksKids(k); len(got) != 2 || got[0] != second.KID || got[1] != standby.KID {
		t.Errorf("JWKS after the revocation: %v", got)
	}
	if err := k.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := jwt.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := back.Verify(t0, now); err == nil {
		t.Error("the revoked key verifies again after keys.json is read back")
	}
	if _, err := back.Verify(t1, now); err != nil {
		t.Errorf("read back: %v", err)
	}
}

// TestKeyStatesFromHS256: a project signing with the shared secret moves to
// an asymmetric key the same way; HS256 tokens keep verifying.
func TestKeyStatesFromHS256(t *testing.T) {
	t.Parallel()
	k := generate(t)
	k.SigningAlg = "HS256"
	old, err := k.Sign(gojwt.MapClaims{"role": "authenticated", "exp": now.Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	nk, err := k.AddStandby("ES256")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Rotate(""); err != nil {
		t.Fatal(err)
	}
	tok, err := k.Sign(gojwt.MapClaims{"role": "authenticated", "exp": now.Add(time.Hour).Unix()})
	if err != nil || kidOf(t, tok) != nk.KID || k.SigningAlg != "ES256" {
		t.Fatalf("signed by %q (%s): %v", kidOf(t, tok), k.SigningAlg, err)
	}
	if _, err := k.Verify(old, now); err != nil {
		t.Errorf("an HS256 token after the rotation: %v", err)
	}
}

// TestKeyStatesParsed: the "status" member of a JWK set (JWT_KEYS) must
// agree with key_ops, which GoTrue reads alone; a set whose keys all say
// their state may have no key in use yet.
func TestKeyStatesParsed(t *testing.T) {
	t.Parallel()
	with := func(j map[string]any, st string) map[string]any {
		j["status"] = st
		return j
	}
	inUse, _ := rsaJWK(t, "a", "sign", "verify")
	standby, _ := ecJWK(t, "b", "verify")
	prev, _ := ecJWK(t, "c", "verify")
	revoked, _ := ecJWK(t, "d", "verify")
	set, err := jwt.ParseKeySet(marshal(t, []any{with(inUse, "in_use"), with(standby, "standby"), with(prev, "previously_used"), with(revoked, "revoked")}))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []jwt.Status{jwt.StatusInUse, jwt.StatusStandby, jwt.StatusPrevious, jwt.StatusRevoked} {
		if set[i].Status != want || set[i].Sign != (want == jwt.StatusInUse) {
			t.Errorf("key %s: status %s sign %v", set[i].KID, set[i].Status, set[i].Sign)
		}
	}
	if _, err := jwt.ParseKeySet(marshal(t, []any{with(standby, "standby")})); err != nil {
		t.Errorf("a stated set with no key in use: %v", err)
	}
	bad1, _ := rsaJWK(t, "x", "sign", "verify")
	bad2, _ := ecJWK(t, "y", "verify")
	bad3, _ := ecJWK(t, "z", "verify")
	for name, s := range map[string][]any{
		"sign in key_ops but on standby": {with(bad1, "standby")},
		"in use without sign":            {with(bad2, "in_use")},
		"an unknown status":              {with(bad3, "retired")},
	} {
		if _, err := jwt.ParseKeySet(marshal(t, s)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
