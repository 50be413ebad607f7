package jwt_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/internal/jwt"
)

// issuerServer is a small OIDC issuer: a discovery document and a JWKS
// whose keys the test changes, counting the key set's fetches.
type issuerServer struct {
	*httptest.Server
	mu      sync.Mutex
	keys    []*jwt.SetKey
	fetches atomic.Int32
}

func newIssuer(t *testing.T) *issuerServer {
	t.Helper()
	is := &issuerServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": is.URL, "jwks_uri": is.URL + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		is.fetches.Add(1)
		is.mu.Lock()
		defer is.mu.Unlock()
		k := &jwt.Keys{Secret: make([]byte, 32), SigningAlg: "HS256"}
		k.Set = is.keys
		_ = json.NewEncoder(w).Encode(k.JWKS())
	})
	is.Server = httptest.NewServer(mux)
	t.Cleanup(is.Close)
	return is
}

func (is *issuerServer) setKeys(keys ...*jwt.SetKey) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.keys = keys
}

func newKey(t *testing.T, alg string) *jwt.SetKey {
	t.Helper()
	k, err := jwt.GenerateSetKey(alg, jwt.StatusPrevious)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestThirdPartyAuth: tokens of a trusted OIDC issuer verify against the
// JWKS its discovery document names, fetched once and again on an unknown
// kid or after the refresh period; the role claim decides the role (the
// configured default without one) and the claims stay as the issuer wrote
// them; anything else is refused: another issuer, no kid, a symmetric
// algorithm, a key the issuer does not publish, an expired token. The
// project's own Verify (auth's) trusts none of them.
func TestThirdPartyAuth(t *testing.T) {
	t.Parallel()
	srv := newIssuer(t)
	rsaKey, ecKey := newKey(t, "RS256"), newKey(t, "ES256")
	srv.setKeys(rsaKey, ecKey)
	tp, err := jwt.NewThirdParty([]jwt.Issuer{{Issuer: srv.URL}}, "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	k := generate(t)
	k.ThirdParty = tp
	mint := func(key *jwt.SetKey, claims gojwt.MapClaims) string {
		t.Helper()
		base := gojwt.MapClaims{"iss": srv.URL, "sub": "user_2abcXYZ", "exp": now.Add(time.Hour).Unix(), "iat": now.Unix()}
		for k, v := range claims {
			base[k] = v
		}
		tok, err := key.SignToken(base)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}

	c, err := k.VerifyAccess(mint(rsaKey, gojwt.MapClaims{"role": "authenticated", "org": "acme"}), now)
	if err != nil {
		t.Fatal(err)
	}
	if c.Role != "authenticated" || c.Subject != "user_2abcXYZ" || c.Issuer != srv.URL || c.Map["org"] != "acme" {
		t.Errorf("claims %+v", c)
	}
	// Without a role claim: the default role, and the claims untouched.
	c, err = k.VerifyAccess(mint(ecKey, nil), now)
	if err != nil || c.Role != "anon" || c.Map["role"] != nil {
		t.Errorf("no role claim: %+v %v", c, err)
	}
	if n := srv.fetches.Load(); n != 1 {
		t.Errorf("%d key set fetches for two tokens, want 1", n)
	}

	stranger := newKey(t, "RS256")
	noKid, _ := gojwt.NewWithClaims(gojwt.SigningMethodHS256, gojwt.MapClaims{"iss": srv.URL, "exp": now.Add(time.Hour).Unix()}).SignedString(k.Secret)
	for name, tok := range map[string]string{
		"another issuer":                  mint(rsaKey, gojwt.MapClaims{"iss": "https://elsewhere.example"}),
		"a key the issuer does not have":  mint(stranger, nil),
		"HS256 with the project's secret": noKid,
	} {
		if _, err := k.VerifyAccess(tok, now); !errors.Is(err, jwt.ErrSignature) {
			t.Errorf("%s: %v, want a signature error", name, err)
		}
	}
	if _, err := k.VerifyAccess(mint(rsaKey, gojwt.MapClaims{"exp": now.Add(-time.Hour).Unix()}), now); !errors.Is(err, jwt.ErrExpired) {
		t.Errorf("expired: %v", err)
	}
	if _, err := k.Verify(mint(rsaKey, gojwt.MapClaims{"role": "authenticated"}), now); err == nil {
		t.Error("the project's own Verify accepts a third-party token")
	}

	// The issuer rotates: a new kid is fetched when a token names it (but
	// not more often than every ten seconds), and a key it drops is
	// refused once the keys are refreshed.
	newer := newKey(t, "ES256")
	srv.setKeys(newer, rsaKey)
	fetches := srv.fetches.Load()
	if _, err := k.VerifyAccess(mint(newer, nil), now.Add(time.Second)); err == nil {
		t.Error("a new kid verified without a fetch")
	}
	if _, err := k.VerifyAccess(mint(newer, nil), now.Add(11*time.Second)); err != nil {
		t.Errorf("a new kid after the gap: %v", err)
	}
	if got := srv.fetches.Load() - fetches; got != 1 {
		t.Errorf("%d fetches for a new kid, want 1", got)
	}
	if _, err := k.VerifyAccess(mint(ecKey, nil), now.Add(30*time.Second)); err == nil {
		t.Error("a dropped key still verifies")
	}
	srv.setKeys(newer)
	later := now.Add(2 * time.Hour)
	tok, _ := rsaKey.SignToken(gojwt.MapClaims{"iss": srv.URL, "exp": later.Add(time.Hour).Unix()})
	if _, err := k.VerifyAccess(tok, later); !errors.Is(err, jwt.ErrSignature) {
		t.Errorf("a key dropped by the issuer, after the refresh: %v", err)
	}

	// An issuer must be https, but for a loopback host.
	if _, err := jwt.NewThirdParty([]jwt.Issuer{{Issuer: "http://issuer.example"}}, "", 0); err == nil {
		t.Error("an http issuer on another host is accepted")
	}
	withRole, err := jwt.NewThirdParty([]jwt.Issuer{{Issuer: srv.URL, JWKSURL: srv.URL + "/jwks"}}, "authenticated", 0)
	if err != nil {
		t.Fatal(err)
	}
	k.ThirdParty = withRole
	if c, err := k.VerifyAccess(mint(newer, nil), now); err != nil || c.Role != "authenticated" {
		t.Errorf("default role authenticated, JWKS URL given: %+v %v", c, err)
	}
}

// FuzzThirdPartyKeySet feeds arbitrary key set documents to a trusted
// issuer's JWKS address: reading them must never panic, and a token signed
// by a key the document does not hold must never verify.
func FuzzThirdPartyKeySet(f *testing.F) {
	signer, err := jwt.GenerateSetKey("ES256", jwt.StatusPrevious)
	if err != nil {
		f.Fatal(err)
	}
	published, err := jwt.GenerateSetKey("RS256", jwt.StatusPrevious)
	if err != nil {
		f.Fatal(err)
	}
	good, _ := json.Marshal((&jwt.Keys{Set: []*jwt.SetKey{published}}).JWKS())
	for _, seed := range []string{string(good), `{}`, `{"keys":null}`, `{"keys":[{}]}`, `{"keys":[{"kty":"EC","kid":"` + signer.KID + `","crv":"P-256","x":"AA","y":"AA"}]}`,
		`{"keys":[{"kty":"RSA","kid":"` + signer.KID + `","n":"AQAB","e":"AQAB"}]}`, `{"keys":[{"kty":"oct","kid":"k","k":"c2VjcmV0"}]}`, `[`, ``} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(doc)) }))
		defer srv.Close()
		tp, err := jwt.NewThirdParty([]jwt.Issuer{{Issuer: "https://issuer.test", JWKSURL: srv.URL}}, "", time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		k := &jwt.Keys{Secret: []byte(strings.Repeat("s", 32)), SigningAlg: "HS256", ThirdParty: tp}
		tok, err := signer.SignToken(gojwt.MapClaims{"iss": "https://issuer.test", "exp": now.Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.VerifyAccess(tok, now); err == nil {
			t.Fatalf("a token of a key the document does not hold verified: %s", doc)
		}
	})
}
