package auth

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/basaltdev/basalt/gateway"
)

// TestBearerBehindTheGateway: the gateway turns an API key into the bearer
// token for every service, but a client that sent only a legacy API key
// (a JWT) sent no bearer token as far as GoTrue knows: Supabase's gateway
// passes that key on without the Bearer scheme. Endpoints that need a user
// or an admin then answer 401 no_authorization; the same key sent as a
// bearer, or an sb_ key (which the gateway does turn into a bearer), is a
// token without a user: 403 bad_jwt.
func TestBearerBehindTheGateway(t *testing.T) {
	t.Parallel()
	e := newEnv(t, autoconfirm)
	gw, err := gateway.New(gateway.Config{}, gateway.Services{Auth: e.svc}, e.keys, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	user := e.signUp("gateway-bearer@example.com", "secret123")["access_token"].(string)
	k := e.keys
	send := func(method, path, apikey, bearer string) *resp {
		t.Helper()
		r := httptest.NewRequest(method, "/auth/v1"+path, bytes.NewReader([]byte(`{"factor_type":"totp"}`)))
		r.RemoteAddr = "10.0.0.1:1234"
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(apiVersionHeader, "2024-01-01")
		r.Header.Set("apikey", apikey)
		if bearer != "" {
			r.Header.Set("Authorization", "Bearer "+bearer)
		}
		w := httptest.NewRecorder()
		gw.ServeHTTP(w, r)
		return &resp{Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}
	}
	const noBearer = "This endpoint requires a valid Bearer token"
	wantErr(t, send("POST", "/factors", k.AnonKey, ""), http.StatusUnauthorized, "no_authorization", noBearer)
	wantErr(t, send("GET", "/user", k.AnonKey, ""), http.StatusUnauthorized, "no_authorization", noBearer)
	wantErr(t, send("GET", "/admin/users", k.ServiceRoleKey, ""), http.StatusUnauthorized, "no_authorization", noBearer)
	wantErr(t, send("POST", "/factors", k.AnonKey, k.AnonKey), http.StatusForbidden, "bad_jwt", "invalid claim: missing sub claim")
	wantErr(t, send("POST", "/factors", k.PublishableKey, ""), http.StatusForbidden, "bad_jwt", "invalid claim: missing sub claim")
	if r := send("GET", "/admin/users", k.ServiceRoleKey, k.ServiceRoleKey); r.Status != http.StatusOK {
		t.Errorf("admin with a bearer: %d %s", r.Status, r.Body)
	}
	if r := send("GET", "/admin/users", k.SecretKey, ""); r.Status != http.StatusOK {
		t.Errorf("admin with an sb_secret key: %d %s", r.Status, r.Body)
	}
	if r := send("GET", "/user", k.AnonKey, user); r.Status != http.StatusOK {
		t.Errorf("user with a session: %d %s", r.Status, r.Body)
	}
	// Endpoints that need no user still work with the key alone.
	if r := send("GET", "/settings", k.AnonKey, ""); r.Status != http.StatusOK {
		t.Errorf("settings: %d %s", r.Status, r.Body)
	}
}
