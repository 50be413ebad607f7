package jwt_test

import (
	"crypto/ecdsa"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/internal/jwt"
)

// Time claims follow PostgREST: 30 seconds of skew on each, and an iat
// (or nbf) further in the future than that is refused, whatever the key.
func TestVerifyTimeClaims(t *testing.T) {
	t.Parallel()
	k := generate(t)
	at := func(d time.Duration) int64 { return now.Add(d).Unix() }
	tests := []struct {
		name    string
		claims  gojwt.MapClaims
		wantErr error
	}{
		{"iat now", gojwt.MapClaims{"iat": at(0)}, nil},
		{"iat an hour ago", gojwt.MapClaims{"iat": at(-time.Hour)}, nil},
		{"iat at the leeway", gojwt.MapClaims{"iat": at(jwt.Leeway)}, nil},
		{"iat a second past the leeway", gojwt.MapClaims{"iat": at(jwt.Leeway + time.Second)}, jwt.ErrIssuedInFuture},
		{"iat an hour ahead", gojwt.MapClaims{"iat": at(time.Hour), "exp": at(2 * time.Hour)}, jwt.ErrIssuedInFuture},
		{"nbf at the leeway", gojwt.MapClaims{"nbf": at(jwt.Leeway)}, nil},
		{"nbf a second past the leeway", gojwt.MapClaims{"nbf": at(jwt.Leeway + time.Second)}, jwt.ErrNotYetValid},
		{"nbf an hour ahead", gojwt.MapClaims{"nbf": at(time.Hour), "iat": at(0)}, jwt.ErrNotYetValid},
		{"exp inside the leeway", gojwt.MapClaims{"exp": at(-jwt.Leeway + time.Second)}, nil},
		{"exp past the leeway", gojwt.MapClaims{"exp": at(-jwt.Leeway - time.Second)}, jwt.ErrExpired},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Both key types: the HS256 secret signs API keys and legacy
			// tokens, the ES256 key signs access tokens.
			es, _ := k.Sign(tt.claims)
			hs, _ := k.SignHS256(tt.claims)
			for alg, tok := range map[string]string{"ES256": es, "HS256": hs} {
				_, err := k.Verify(tok, now)
				if tt.wantErr == nil && err != nil {
					t.Errorf("%s: Verify = %v, want accepted", alg, err)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("%s: Verify = %v, want %v", alg, err, tt.wantErr)
				}
			}
		})
	}
	// A second later on the verifier's clock, the boundary token passes.
	tok, _ := k.Sign(gojwt.MapClaims{"iat": at(jwt.Leeway + time.Second)})
	if _, err := k.Verify(tok, now.Add(time.Second)); err != nil {
		t.Errorf("iat at the leeway one second later: %v", err)
	}
	// The error keeps the JWT library's wording, which GoTrue shows.
	tok, _ = k.Sign(gojwt.MapClaims{"iat": at(time.Hour)})
	if _, err := k.Verify(tok, now); err == nil || !strings.HasSuffix(err.Error(), "token has invalid claims: token used before issued") {
		t.Errorf("future iat error = %v", err)
	}
}

// FuzzVerify feeds arbitrary strings to Verify: it must never panic, and
// whatever it accepts must carry a signature that checks out against the
// project's own key material, computed here without the JWT library.
// Tokens built from fuzzed claims and signed by another project's keys
// (or unsigned) must never verify.
func FuzzVerify(f *testing.F) {
	k, err := jwt.Generate(now)
	if err != nil {
		f.Fatal(err)
	}
	other, err := jwt.Generate(now)
	if err != nil {
		f.Fatal(err)
	}
	good := gojwt.MapClaims{"sub": "u1", "role": "authenticated", "exp": now.Add(time.Hour).Unix()}
	es, _ := k.Sign(good)
	hs, _ := k.SignHS256(good)
	for _, seed := range []string{es, hs, k.AnonKey, "", ".", "..", "a.b.c", "e30.e30.", es + "x", hs[:len(hs)-2],
		`eyJhbGciOiJub25lIn0.e30.`, strings.Replace(es, ".", "..", 1)} {
		f.Add(seed, `{"sub":"x","exp":1e99}`)
	}
	f.Fuzz(func(t *testing.T, token, claimsJSON string) {
		if c, err := k.Verify(token, now); err == nil {
			if c == nil {
				t.Fatal("Verify returned no claims and no error")
			}
			if !signedBy(t, k, token) {
				t.Fatalf("Verify accepted %q, which the project's keys did not sign", token)
			}
		}
		var claims gojwt.MapClaims
		if json.Unmarshal([]byte(claimsJSON), &claims) != nil {
			return
		}
		forged := []string{}
		if s, err := other.Sign(claims); err == nil {
			forged = append(forged, s)
		}
		if s, err := other.SignHS256(claims); err == nil {
			forged = append(forged, s)
		}
		// Another project's ES256 signature under this project's kid.
		tok := gojwt.NewWithClaims(gojwt.SigningMethodES256, claims)
		tok.Header["kid"] = k.KID
		if s, err := tok.SignedString(other.EC); err == nil {
			forged = append(forged, s)
		}
		if s, err := gojwt.NewWithClaims(gojwt.SigningMethodNone, claims).SignedString(gojwt.UnsafeAllowNoneSignatureType); err == nil {
			forged = append(forged, s)
		}
		for _, s := range forged {
			if _, err := k.Verify(s, now); err == nil {
				t.Fatalf("a token not signed by the project verified: %q", s)
			}
		}
	})
}

// signedBy checks token's signature against k directly: HMAC-SHA256 with
// the secret, or ECDSA P-256 with the public key.
func signedBy(t *testing.T, k *jwt.Keys, token string) bool {
	t.Helper()
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return false
	}
	input, sig := token[:i], token[i+1:]
	raw, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return false
	}
	mac := hmac.New(sha256.New, k.Secret)
	mac.Write([]byte(input))
	if hmac.Equal(mac.Sum(nil), raw) {
		return true
	}
	if len(raw) != 64 {
		return false
	}
	sum := sha256.Sum256([]byte(input))
	r, s := new(big.Int).SetBytes(raw[:32]), new(big.Int).SetBytes(raw[32:])
	return ecdsa.Verify(&k.EC.PublicKey, sum[:], r, s)
}
