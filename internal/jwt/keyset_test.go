package jwt_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/internal/jwt"
)

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// rsaJWK is a private RSA JWK as Node's crypto exports one (the shape of
// auth-js's generate-signing-keys.js).
func rsaJWK(t *testing.T, kid string, ops ...string) (map[string]any, *rsa.PrivateKey) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"kty": "RSA", "kid": kid, "alg": "RS256", "key_ops": ops,
		"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes()), "d": b64(k.D.Bytes()),
		"p": b64(k.Primes[0].Bytes()), "q": b64(k.Primes[1].Bytes()),
		"dp": b64(k.Precomputed.Dp.Bytes()), "dq": b64(k.Precomputed.Dq.Bytes()), "qi": b64(k.Precomputed.Qinv.Bytes()),
	}, k
}

func ecJWK(t *testing.T, kid string, ops ...string) (map[string]any, *ecdsa.PrivateKey) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "key_ops": ops,
		"x": b64(k.X.FillBytes(make([]byte, 32))), "y": b64(k.Y.FillBytes(make([]byte, 32))), "d": b64(k.D.FillBytes(make([]byte, 32))),
	}, k
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sign(t *testing.T, m gojwt.SigningMethod, kid string, key any) string {
	t.Helper()
	tok := gojwt.NewWithClaims(m, gojwt.MapClaims{"role": "anon", "exp": now.Add(time.Hour).Unix()})
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestKeySet: a JWK set as GoTrue's GOTRUE_JWT_KEYS takes it. The signing
// key signs access tokens (RS256, its kid in the header), every key of
// the set verifies tokens that name it, public keys (never private parts)
// are in the JWKS, and keys.json keeps the set.
func TestKeySet(t *testing.T) {
	t.Parallel()
	signer, rsaKey := rsaJWK(t, "rsa-1", "sign", "verify")
	verifier, ecKey := ecJWK(t, "ec-old", "verify")
	raw := marshal(t, []any{signer, verifier})

	k := generate(t)
	k.SigningAlg = ""
	if err := k.SetKeySet(raw); err != nil {
		t.Fatal(err)
	}
	if err := k.Validate(); err != nil {
		t.Fatal(err)
	}
	if k.SigningAlg != "RS256" {
		t.Errorf("signing alg %q, want the signing key's RS256", k.SigningAlg)
	}
	tok, err := k.Sign(gojwt.MapClaims{"sub": "u1", "role": "authenticated", "exp": now.Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	parsed, _, err := gojwt.NewParser().ParseUnverified(tok, gojwt.MapClaims{})
	if err != nil || parsed.Header["alg"] != "RS256" || parsed.Header["kid"] != "rsa-1" {
		t.Fatalf("header %v (%v)", parsed.Header, err)
	}
	if c, err := k.Verify(tok, now); err != nil || c.Subject != "u1" {
		t.Fatalf("own token: %v %v", c, err)
	}

	// Signed elsewhere with keys of the set, as auth-js's tests sign their
	// API keys: by kid, and an asymmetric token without a kid.
	for name, s := range map[string]string{
		"RS256 by kid":               sign(t, gojwt.SigningMethodRS256, "rsa-1", rsaKey),
		"RS256 without kid":          sign(t, gojwt.SigningMethodRS256, "", rsaKey),
		"ES256 of a verify-only key": sign(t, gojwt.SigningMethodES256, "ec-old", ecKey),
		"HS256 with the secret":      sign(t, gojwt.SigningMethodHS256, "", k.Secret),
	} {
		if c, err := k.Verify(s, now); err != nil || c.Role != "anon" {
			t.Errorf("%s: %v %v", name, c, err)
		}
	}
	_, stranger := rsaJWK(t, "rsa-1", "sign")
	for name, s := range map[string]string{
		"another key under a known kid": sign(t, gojwt.SigningMethodRS256, "rsa-1", stranger),
		"an unknown kid":                sign(t, gojwt.SigningMethodRS256, "nope", rsaKey),
		"a kid of another algorithm":    sign(t, gojwt.SigningMethodES256, "rsa-1", ecKey),
		"no kid, no key of the set":     sign(t, gojwt.SigningMethodRS256, "", stranger),
	} {
		if _, err := k.Verify(s, now); !errors.Is(err, jwt.ErrSignature) {
			t.Errorf("%s: err %v, want a signature error", name, err)
		}
	}

	doc := marshal(t, k.JWKS())
	for _, want := range []string{`"kid":"rsa-1"`, `"kty":"RSA"`, `"alg":"RS256"`, `"kid":"ec-old"`, `"kid":"` + k.KID + `"`} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("JWKS %s lacks %s", doc, want)
		}
	}
	if strings.Contains(string(doc), `"d"`) || strings.Contains(string(doc), `"p"`) {
		t.Errorf("JWKS publishes private parts: %s", doc)
	}

	path := filepath.Join(t.TempDir(), "keys.json")
	if err := k.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := jwt.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.SigningAlg != "RS256" || len(back.Set) != 2 {
		t.Fatalf("loaded alg %q, %d set keys", back.SigningAlg, len(back.Set))
	}
	if _, err := back.Verify(tok, now); err != nil {
		t.Errorf("a token of the saved keys: %v", err)
	}
}

func TestKeySetRefused(t *testing.T) {
	t.Parallel()
	a, _ := rsaJWK(t, "a", "sign", "verify")
	b, _ := rsaJWK(t, "b", "sign")
	c, _ := ecJWK(t, "c", "verify")
	noKid, _ := ecJWK(t, "", "sign")
	pub, _ := rsaJWK(t, "pub", "sign")
	delete(pub, "d")
	for name, set := range map[string][]any{
		"two signing keys":               {a, b},
		"no signing key":                 {c},
		"a key without kid":              {noKid},
		"a kid twice":                    {a, a},
		"signing without a private part": {pub},
		"unsupported kty":                {map[string]any{"kty": "OKP", "kid": "x", "key_ops": []string{"sign"}}},
	} {
		if _, err := jwt.ParseKeySet(marshal(t, set)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	k := generate(t)
	k.SigningAlg = "ES256"
	if err := k.SetKeySet(marshal(t, []any{a})); err != nil {
		t.Fatal(err)
	}
	if err := k.Validate(); err == nil {
		t.Error("ES256 asked for with an RS256 signing key: accepted")
	}
}
