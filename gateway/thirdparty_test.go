package gateway_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
)

// TestThirdPartyTokens: a token of a trusted third-party issuer is the
// caller's on REST, storage, realtime and functions, as on Supabase; auth
// trusts the project's own tokens only, so there it is a bad signature.
func TestThirdPartyTokens(t *testing.T) {
	t.Parallel()
	key, err := jwt.GenerateSetKey("RS256", jwt.StatusPrevious)
	if err != nil {
		t.Fatal(err)
	}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode((&jwt.Keys{Set: []*jwt.SetKey{key}}).JWKS())
	}))
	t.Cleanup(jwks.Close)
	const iss = "https://clerk.example.test"
	tp, err := jwt.NewThirdParty([]jwt.Issuer{{Issuer: iss, JWKSURL: jwks.URL}}, "", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	b := setup(t, gateway.Config{}, func(h http.Handler) gateway.Services {
		return gateway.Services{Auth: h, REST: h, Realtime: h, Storage: h, Functions: h}
	})
	b.keys.ThirdParty = tp
	tok, err := key.SignToken(gojwt.MapClaims{"iss": iss, "sub": "user_2abc", "role": "authenticated", "exp": time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	hdr := map[string]string{"apikey": b.keys.AnonKey, "Authorization": "Bearer " + tok}
	for _, path := range []string{"/rest/v1/todos", "/storage/v1/bucket", "/realtime/v1/api/broadcast", "/functions/v1/hello", "/auth/v1/user"} {
		res, body := b.do(t, "GET", path, hdr)
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, res.StatusCode, body)
		}
		c := (<-b.svc.got).Caller
		if path == "/auth/v1/user" {
			if c.Claims != nil || c.Err == nil {
				t.Errorf("auth got claims %+v for a third-party token", c.Claims)
			}
			continue
		}
		if c.Err != nil || c.Claims == nil || c.Claims.Role != "authenticated" || c.Claims.Subject != "user_2abc" || c.Claims.Issuer != iss {
			t.Errorf("%s: caller %+v err %v", path, c.Claims, c.Err)
		}
	}
}
