package jwt_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/internal/jwt"
)

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func generate(t *testing.T) *jwt.Keys {
	t.Helper()
	k, err := jwt.Generate(now)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestGenerateAndAPIKeys(t *testing.T) {
	t.Parallel()
	k := generate(t)
	if err := k.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(k.Secret) < 32 || k.KID == "" || k.SigningAlg != "ES256" {
		t.Errorf("generated keys: secret %d bytes, kid %q, alg %q", len(k.Secret), k.KID, k.SigningAlg)
	}
	if !strings.HasPrefix(k.PublishableKey, "sb_publishable_") || !strings.HasPrefix(k.SecretKey, "sb_secret_") {
		t.Errorf("new-format keys %q %q", k.PublishableKey, k.SecretKey)
	}
	for role, key := range map[string]string{"anon": k.AnonKey, "service_role": k.ServiceRoleKey} {
		c, err := k.Verify(key, now)
		if err != nil {
			t.Fatalf("%s key: %v", role, err)
		}
		if c.Role != role {
			t.Errorf("%s key role = %q", role, c.Role)
		}
		if c.Expires.Before(now.Add(5 * 365 * 24 * time.Hour)) {
			t.Errorf("%s key expires %v: API keys must be long-lived", role, c.Expires)
		}
		// API keys are HS256 without kid, the shape of the legacy keys.
		hdr, _, _ := strings.Cut(key, ".")
		b, _ := base64.RawURLEncoding.DecodeString(hdr)
		if !strings.Contains(string(b), `"HS256"`) || strings.Contains(string(b), "kid") {
			t.Errorf("%s key header %s", role, b)
		}
	}
	if other := generate(t); other.KID == k.KID || string(other.Secret) == string(k.Secret) {
		t.Error("two generations produced the same key material")
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nested", "keys.json")
	k, created, err := jwt.LoadOrCreate(path, now)
	if err != nil || !created {
		t.Fatalf("first LoadOrCreate: created=%v err=%v", created, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("keys.json mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	again, created, err := jwt.LoadOrCreate(path, now.Add(time.Hour))
	if err != nil || created {
		t.Fatalf("second LoadOrCreate: created=%v err=%v", created, err)
	}
	if diff := cmp.Diff(k, again, cmp.Comparer(func(a, b *ecdsa.PrivateKey) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("reloaded keys differ (-first +second):\n%s", diff)
	}
	// A token signed before the reload verifies after it.
	tok, err := k.Sign(gojwt.MapClaims{"sub": "u1", "role": "authenticated", "exp": now.Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.Verify(tok, now); err != nil {
		t.Errorf("verify after reload: %v", err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := jwt.LoadOrCreate(path, now); err == nil {
		t.Error("a corrupt keys.json was silently replaced; want an error")
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	k := generate(t)
	other := generate(t)
	claims := func(exp time.Time) gojwt.MapClaims {
		return gojwt.MapClaims{"sub": "u1", "role": "authenticated", "session_id": "s1", "exp": exp.Unix(), "email": "a@b.c"}
	}
	es, _ := k.Sign(claims(now.Add(time.Hour)))
	hs, _ := k.SignHS256(claims(now.Add(time.Hour)))
	expired, _ := k.Sign(claims(now.Add(-time.Hour)))
	foreign, _ := other.Sign(claims(now.Add(time.Hour)))
	foreignHS, _ := other.SignHS256(claims(now.Add(time.Hour)))
	wrongKID := func() string {
		tok := gojwt.NewWithClaims(gojwt.SigningMethodES256, claims(now.Add(time.Hour)))
		tok.Header["kid"] = "someone-else"
		s, _ := tok.SignedString(k.EC)
		return s
	}()
	none := func() string {
		s, _ := gojwt.NewWithClaims(gojwt.SigningMethodNone, claims(now.Add(time.Hour))).SignedString(gojwt.UnsafeAllowNoneSignatureType)
		return s
	}()
	tests := []struct {
		name    string
		token   string
		wantErr error
	}{
		{"ES256 with kid", es, nil},
		{"HS256 without kid", hs, nil},
		{"expired", expired, jwt.ErrExpired},
		{"other project's ES256 key", foreign, jwt.ErrSignature},
		{"other project's secret", foreignHS, jwt.ErrSignature},
		{"unknown kid", wrongKID, jwt.ErrSignature},
		{"alg none", none, jwt.ErrSignature},
		{"two parts", "a.b", jwt.ErrMalformed},
		{"garbage", "a.b.c", jwt.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := k.Verify(tt.token, now)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Verify = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Role != "authenticated" || c.Subject != "u1" || c.SessionID != "s1" || !c.Expires.Equal(now.Add(time.Hour).Truncate(time.Second)) {
				t.Errorf("claims = %+v", c)
			}
			var raw map[string]any
			if err := json.Unmarshal(c.Raw, &raw); err != nil || raw["email"] != "a@b.c" {
				t.Errorf("Raw = %s (%v)", c.Raw, err)
			}
		})
	}
	// Leeway: a token that expired seconds ago still verifies (clock skew).
	justExpired, _ := k.Sign(claims(now.Add(-10 * time.Second)))
	if _, err := k.Verify(justExpired, now); err != nil {
		t.Errorf("10s past exp: %v, want accepted within leeway", err)
	}
}

func TestJWKS(t *testing.T) {
	t.Parallel()
	k := generate(t)
	doc := k.JWKS()
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), string(k.Secret)) || strings.Contains(string(b), `"d"`) {
		t.Fatalf("JWKS leaks secret material: %s", b)
	}
	if len(doc["keys"]) != 1 {
		t.Fatalf("keys = %d, want 1", len(doc["keys"]))
	}
	j := doc["keys"][0]
	if j.Kty != "EC" || j.Crv != "P-256" || j.Alg != "ES256" || j.Kid != k.KID || j.Use != "sig" {
		t.Errorf("jwk = %+v", j)
	}
	// A verifier that only has the JWKS can check our tokens.
	x, _ := base64.RawURLEncoding.DecodeString(j.X)
	y, _ := base64.RawURLEncoding.DecodeString(j.Y)
	if len(x) != 32 || len(y) != 32 {
		t.Fatalf("coordinates must be 32 bytes: %d, %d", len(x), len(y))
	}
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	tok, _ := k.Sign(gojwt.MapClaims{"sub": "u1", "exp": time.Now().Add(time.Hour).Unix()})
	parsed, err := gojwt.Parse(tok, func(tk *gojwt.Token) (any, error) {
		if tk.Header["kid"] != j.Kid {
			return nil, errors.New("kid mismatch")
		}
		return pub, nil
	}, gojwt.WithValidMethods([]string{"ES256"}))
	if err != nil || !parsed.Valid {
		t.Errorf("verify with JWKS key: %v", err)
	}

	hsOnly := &jwt.Keys{Secret: k.Secret, SigningAlg: "HS256"}
	if got := hsOnly.JWKS(); len(got["keys"]) != 0 {
		t.Errorf("HS256-only JWKS = %+v, want no keys", got)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	k := generate(t)
	tests := []struct {
		name string
		keys jwt.Keys
		want string
	}{
		{"short secret", jwt.Keys{Secret: []byte("short"), SigningAlg: "HS256"}, "at least 32"},
		{"ES256 without key", jwt.Keys{Secret: k.Secret, SigningAlg: "ES256"}, "ES256 private key"},
		{"ES256 without kid", jwt.Keys{Secret: k.Secret, SigningAlg: "ES256", EC: k.EC}, "kid"},
		{"unknown alg", jwt.Keys{Secret: k.Secret, SigningAlg: "RS256"}, "unsupported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.keys.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want %q", err, tt.want)
			}
		})
	}
}
