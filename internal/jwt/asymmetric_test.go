package jwt_test

import (
	"errors"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/internal/jwt"
)

// ID tokens are verified by other parties from the JWKS, so they are
// signed with an asymmetric key even when access tokens use the shared
// secret, and never with the secret.
func TestSignAsymmetric(t *testing.T) {
	k, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	claims := gojwt.MapClaims{"sub": "x", "exp": time.Now().Add(time.Minute).Unix()}
	alg := func(tok string) string {
		t.Helper()
		p, _, err := gojwt.NewParser().ParseUnverified(tok, gojwt.MapClaims{})
		if err != nil {
			t.Fatal(err)
		}
		return p.Method.Alg() + " " + p.Header["kid"].(string)
	}
	k.SigningAlg = "HS256"
	tok, err := k.SignAsymmetric(claims)
	if err != nil || alg(tok) != "ES256 "+k.KID {
		t.Fatalf("with HS256 access tokens: %v %s", err, tok)
	}
	if _, err := k.Verify(tok, time.Now()); err != nil {
		t.Fatalf("verify: %v", err)
	}
	signer, _ := rsaJWK(t, "rsa-id", "sign", "verify")
	if err := k.SetKeySet(marshal(t, []any{signer})); err != nil {
		t.Fatal(err)
	}
	if tok, err = k.SignAsymmetric(claims); err != nil || alg(tok) != "RS256 rsa-id" || k.SigningAlgs()[0] != "RS256" {
		t.Fatalf("with an RS256 key set: %v %s", err, tok)
	}
	secretOnly := &jwt.Keys{Secret: []byte("0123456789abcdef0123456789abcdef"), SigningAlg: "HS256"}
	if _, err := secretOnly.SignAsymmetric(claims); !errors.Is(err, jwt.ErrNoAsymmetricKey) || len(secretOnly.SigningAlgs()) != 0 {
		t.Fatalf("with only a secret: %v", err)
	}
}
