package gateway_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/basaltdev/basalt/gateway"
)

// keyStore stands in for internal/apikeys: the valid keys and their roles,
// changed while the gateway runs.
type keyStore struct {
	mu    sync.Mutex
	roles map[string]string
}

func (s *keyStore) Role(key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.roles[key]
	return r, ok
}

func (s *keyStore) revoke(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.roles, key)
}

// TestAPIKeysFromStore: with a key store, several publishable and secret
// keys are valid at once on every service, each stands for its role's JWT
// (in the apikey header, Authorization, and a websocket's apikey
// parameter), a revoked one is refused from the next request on, and a
// secret key from a browser is refused wherever it is sent.
func TestAPIKeysFromStore(t *testing.T) {
	t.Parallel()
	const (
		pubA, pubB = "sb_publishable_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "sb_publishable_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
		secA, secB = "sb_secret_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "sb_secret_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	)
	store := &keyStore{roles: map[string]string{pubA: "anon", pubB: "anon", secA: "service_role", secB: "service_role"}}
	b := setup(t, gateway.Config{APIKeys: store}, func(h http.Handler) gateway.Services {
		return gateway.Services{Auth: h, REST: h, Realtime: h, Storage: h, Functions: h}
	})
	jwtOf := map[string]string{pubA: b.keys.AnonKey, pubB: b.keys.AnonKey, secA: b.keys.ServiceRoleKey, secB: b.keys.ServiceRoleKey}
	roleOf := map[string]string{pubA: "anon", pubB: "anon", secA: "service_role", secB: "service_role"}

	for _, prefix := range []string{"/rest/v1/todos", "/auth/v1/user", "/storage/v1/bucket", "/realtime/v1/api/broadcast", "/functions/v1/hello"} {
		for _, key := range []string{pubA, pubB, secA, secB} {
			res, body := b.do(t, "GET", prefix, map[string]string{"apikey": key, "Authorization": "Bearer " + key})
			if res.StatusCode != 200 {
				t.Fatalf("%s with %.20s: %d %s", prefix, key, res.StatusCode, body)
			}
			got := <-b.svc.got
			if got.APIKey != jwtOf[key] || got.Authorization != "Bearer "+jwtOf[key] || got.Caller.APIKeyRole != roleOf[key] ||
				got.Caller.Claims == nil || got.Caller.Claims.Role != roleOf[key] {
				t.Errorf("%s with %.20s: service saw apikey %.20q, Authorization %.27q, key role %q", prefix, key, got.APIKey, got.Authorization, got.Caller.APIKeyRole)
			}
		}
	}

	// A browser's websocket carries the key in the query: the service gets
	// the JWT there too, the other parameters as they were.
	res, body := b.do(t, "GET", "/realtime/v1/websocket?apikey="+pubB+"&vsn=1.0.0", nil)
	if res.StatusCode != 200 {
		t.Fatalf("websocket with a publishable key: %d %s", res.StatusCode, body)
	}
	got := <-b.svc.got
	q, _ := url.ParseQuery(got.Query)
	if q.Get("apikey") != b.keys.AnonKey || q.Get("vsn") != "1.0.0" || got.Caller.APIKeyRole != "anon" {
		t.Errorf("websocket query the service saw: %q", got.Query)
	}

	// The keys the configuration names are the store's to accept: these
	// were not recorded there.
	for _, key := range []string{b.keys.PublishableKey, b.keys.SecretKey, "sb_secret_forged"} {
		res, body := b.do(t, "GET", "/rest/v1/todos", map[string]string{"apikey": key})
		if res.StatusCode != 401 || strings.TrimSpace(body) != `{"message":"Invalid API key"}` {
			t.Errorf("key the store does not know: %d %s", res.StatusCode, body)
		}
	}

	// Revoked: refused from the next request, in every place a key goes.
	store.revoke(secA)
	store.revoke(pubA)
	for _, tc := range []struct {
		path string
		hdr  map[string]string
	}{
		{"/rest/v1/todos", map[string]string{"apikey": secA}},
		{"/storage/v1/bucket", map[string]string{"apikey": pubA}},
		{"/rest/v1/todos", map[string]string{"apikey": pubB, "Authorization": "Bearer " + secA}},
		{"/realtime/v1/websocket?apikey=" + pubA + "&vsn=1.0.0", nil},
	} {
		res, body := b.do(t, "GET", tc.path, tc.hdr)
		if res.StatusCode != 401 || strings.TrimSpace(body) != `{"message":"Invalid API key"}` {
			t.Errorf("revoked key at %s: %d %s", tc.path, res.StatusCode, body)
		}
	}
	res, _ = b.do(t, "GET", "/rest/v1/todos", map[string]string{"apikey": secB})
	if res.StatusCode != 200 {
		t.Fatalf("the other secret key after the revocation: %d", res.StatusCode)
	}
	<-b.svc.got

	// A secret key from a browser, on every service, in every place.
	browser := "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Safari/605.1.15"
	for _, path := range []string{"/rest/v1/todos", "/auth/v1/admin/users", "/storage/v1/bucket", "/functions/v1/hello", "/realtime/v1/websocket?vsn=1.0.0&apikey=" + secB} {
		hdrs := []map[string]string{{"User-Agent": browser}}
		if !strings.Contains(path, "apikey=") {
			hdrs = []map[string]string{{"apikey": secB, "User-Agent": browser}, {"apikey": pubB, "Authorization": "Bearer " + secB, "User-Agent": browser}}
		}
		for _, h := range hdrs {
			res, body := b.do(t, "GET", path, h)
			if res.StatusCode != 401 || strings.TrimSpace(body) != `{"message":"Forbidden use of secret API key in browser"}` {
				t.Errorf("secret key from a browser at %s: %d %s", path, res.StatusCode, body)
			}
		}
	}
}
