package gateway_test

import (
	"testing"

	"github.com/basaltdev/basalt/gateway"
)

// The OAuth 2.1 server's endpoints for other apps need no project key
// (those apps have none), and its RFC 8414 metadata is served at the
// origin with the issuer's path appended, where Supabase serves it. The
// consent page's own calls still need the key.
func TestOAuthServerPaths(t *testing.T) {
	t.Parallel()
	b := setup(t, gateway.Config{}, nil)
	for _, c := range []struct{ method, path, servicePath string }{
		{"GET", "/auth/v1/.well-known/openid-configuration", "/.well-known/openid-configuration"},
		{"GET", "/.well-known/oauth-authorization-server/auth/v1", "/.well-known/oauth-authorization-server"},
		{"GET", "/auth/v1/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server"},
		{"GET", "/auth/v1/oauth/authorize?client_id=x", "/oauth/authorize"},
		{"POST", "/auth/v1/oauth/token", "/oauth/token"},
		{"POST", "/auth/v1/oauth/revoke", "/oauth/revoke"},
		{"GET", "/auth/v1/oauth/userinfo", "/oauth/userinfo"},
		{"POST", "/auth/v1/oauth/clients/register", "/oauth/clients/register"},
	} {
		res, body := b.do(t, c.method, c.path, nil)
		if res.StatusCode != 200 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, res.StatusCode, body)
		}
		if got := <-b.svc.got; got.Path != c.servicePath {
			t.Fatalf("%s reached the service as %q", c.path, got.Path)
		}
	}
	for _, path := range []string{"/auth/v1/oauth/authorizations/abc", "/auth/v1/admin/oauth/clients", "/auth/v1/user/oauth/grants"} {
		if res, body := b.do(t, "GET", path, nil); res.StatusCode != 401 {
			t.Fatalf("%s without a key: %d %s", path, res.StatusCode, body)
		}
	}
	for _, path := range []string{"/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/rest/v1",
		"/.well-known/oauth-authorization-server/auth/v1/x"} {
		if res, body := b.do(t, "GET", path, nil); res.StatusCode != 404 {
			t.Fatalf("%s: %d %s", path, res.StatusCode, body)
		}
	}
}
