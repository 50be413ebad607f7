package gateway_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
)

// seen is what the echo service observed about one request.
type seen struct {
	Path, RawPath, Query, Authorization, APIKey, RealIP, RequestID string
	Caller                                                         *jwt.Caller
}

// echo is a stand-in service that records what the gateway handed it and
// answers 200 {"ok":true}.
type echo struct{ got chan seen }

func (e *echo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.got <- seen{
		Path: r.URL.Path, RawPath: r.URL.RawPath, Query: r.URL.RawQuery, Authorization: r.Header.Get("Authorization"),
		APIKey: r.Header.Get("apikey"), RealIP: r.Header.Get("X-Real-Ip"), RequestID: r.Header.Get("X-Request-Id"),
		Caller: jwt.FromContext(r.Context()),
	}
	switch r.URL.Path {
	case "/panic":
		panic("boom")
	case "/.well-known/jwks.json":
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"ok":true}`)
}

type bundle struct {
	srv  *httptest.Server
	keys *jwt.Keys
	svc  *echo
	logs *syncWriter
}

func setup(t *testing.T, cfg gateway.Config, mount func(h http.Handler) gateway.Services) *bundle {
	t.Helper()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	svc := &echo{got: make(chan seen, 10)}
	if mount == nil {
		mount = func(h http.Handler) gateway.Services {
			return gateway.Services{Auth: h, REST: h, Storage: h, Functions: h}
		}
	}
	logs := &syncWriter{w: &bytes.Buffer{}}
	gw, err := gateway.New(cfg, mount(svc), keys, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gw)
	t.Cleanup(srv.Close)
	return &bundle{srv: srv, keys: keys, svc: svc, logs: logs}
}

func (b *bundle) do(t *testing.T, method, path string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, b.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

func (b *bundle) userToken(t *testing.T, exp time.Time) string {
	t.Helper()
	tok, err := b.keys.Sign(gojwt.MapClaims{"sub": "11111111-1111-1111-1111-111111111111", "role": "authenticated", "exp": exp.Unix()})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestAPIKey(t *testing.T) {
	t.Parallel()
	b := setup(t, gateway.Config{}, nil)
	user := b.userToken(t, time.Now().Add(time.Hour))
	expired := b.userToken(t, time.Now().Add(-time.Hour))
	k := b.keys
	tests := []struct {
		name       string
		method     string // GET when empty
		path       string
		hdr        map[string]string
		wantStatus int
		wantBody   string // exact, when set
		wantToken  string // Authorization the service sees, "Bearer " + this
		wantRole   string // Caller.Claims.Role
		wantKey    string // Caller.APIKeyRole
		wantErr    bool   // Caller.Err set
	}{
		{name: "missing key", path: "/rest/v1/todos", wantStatus: 401, wantBody: `{"message":"No API key found in request"}`},
		{name: "unknown key", path: "/rest/v1/todos", hdr: map[string]string{"apikey": "nope"}, wantStatus: 401, wantBody: `{"message":"Invalid API key"}`},
		{name: "user JWT is not a project key", path: "/rest/v1/todos", hdr: map[string]string{"apikey": user}, wantStatus: 401, wantBody: `{"message":"Invalid API key"}`},
		{name: "anon key alone", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.AnonKey},
			wantStatus: 200, wantToken: k.AnonKey, wantRole: "anon", wantKey: "anon"},
		{name: "service key alone", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.ServiceRoleKey},
			wantStatus: 200, wantToken: k.ServiceRoleKey, wantRole: "service_role", wantKey: "service_role"},
		{name: "anon key and user token", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.AnonKey, "Authorization": "Bearer " + user},
			wantStatus: 200, wantToken: user, wantRole: "authenticated", wantKey: "anon"},
		{name: "publishable key swapped for anon JWT", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.PublishableKey},
			wantStatus: 200, wantToken: k.AnonKey, wantRole: "anon", wantKey: "anon"},
		{name: "publishable key in Authorization too", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.PublishableKey, "Authorization": "Bearer " + k.PublishableKey},
			wantStatus: 200, wantToken: k.AnonKey, wantRole: "anon", wantKey: "anon"},
		{name: "secret key swapped for service_role JWT", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.SecretKey},
			wantStatus: 200, wantToken: k.ServiceRoleKey, wantRole: "service_role", wantKey: "service_role"},
		{name: "publishable key with user token", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.PublishableKey, "Authorization": "Bearer " + user},
			wantStatus: 200, wantToken: user, wantRole: "authenticated", wantKey: "anon"},
		{name: "secret key from a browser", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.SecretKey, "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/120"},
			wantStatus: 401, wantBody: `{"message":"Forbidden use of secret API key in browser"}`},
		{name: "secret bearer from a browser", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.PublishableKey, "Authorization": "Bearer " + k.SecretKey, "User-Agent": "Mozilla/5.0"},
			wantStatus: 401, wantBody: `{"message":"Forbidden use of secret API key in browser"}`},
		{name: "publishable key from a browser", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.PublishableKey, "User-Agent": "Mozilla/5.0"},
			wantStatus: 200, wantToken: k.AnonKey, wantRole: "anon", wantKey: "anon"},
		{name: "forged sb_ bearer", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.AnonKey, "Authorization": "Bearer sb_secret_forged"},
			wantStatus: 401, wantBody: `{"message":"Invalid API key"}`},
		{name: "expired user token passes with Err set", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.AnonKey, "Authorization": "Bearer " + expired},
			wantStatus: 200, wantToken: expired, wantKey: "anon", wantErr: true},
		{name: "garbage token passes with Err set", path: "/rest/v1/todos", hdr: map[string]string{"apikey": k.AnonKey, "Authorization": "Bearer abc"},
			wantStatus: 200, wantToken: "abc", wantKey: "anon", wantErr: true},
		{name: "apikey query parameter", path: "/rest/v1/todos?apikey=" + k.AnonKey,
			wantStatus: 200, wantToken: k.AnonKey, wantRole: "anon", wantKey: "anon"},
		{name: "unknown apikey query parameter", path: "/rest/v1/todos?apikey=x", wantStatus: 401, wantBody: `{"message":"Invalid API key"}`},
		{name: "email verify link is public", path: "/auth/v1/verify?token=t&type=signup", wantStatus: 200},
		{name: "oauth callback is public", path: "/auth/v1/callback?code=c", wantStatus: 200},
		{name: "oauth authorize is public", path: "/auth/v1/authorize?provider=github", wantStatus: 200},
		{name: "saml acs is public", method: "POST", path: "/auth/v1/sso/saml/acs", wantStatus: 200},
		{name: "saml metadata is public", path: "/auth/v1/sso/saml/metadata", wantStatus: 200},
		{name: "sso start needs a key", method: "POST", path: "/auth/v1/sso", wantStatus: 401, wantBody: `{"message":"No API key found in request"}`},
		{name: "auth signup needs a key", path: "/auth/v1/signup", wantStatus: 401, wantBody: `{"message":"No API key found in request"}`},
		{name: "public storage object", path: "/storage/v1/object/public/b/a.png", wantStatus: 200},
		{name: "signed storage object", path: "/storage/v1/object/sign/b/a.png?token=x", wantStatus: 200},
		{name: "private storage object needs a key", path: "/storage/v1/object/b/a.png", wantStatus: 401, wantBody: `{"message":"No API key found in request"}`},
		{name: "upload to a signed upload URL", method: "PUT", path: "/storage/v1/object/upload/sign/b/a.png?token=x", wantStatus: 200},
		{name: "a signed upload path is not public for DELETE", method: "DELETE", path: "/storage/v1/object/upload/sign/b/a.png?token=x", wantStatus: 401, wantBody: `{"message":"No API key found in request"}`},
		{name: "a storage write needs a key", method: "POST", path: "/storage/v1/object/b/a.png", wantStatus: 401, wantBody: `{"message":"No API key found in request"}`},
		{name: "functions verify their own JWT", path: "/functions/v1/hello", wantStatus: 200},
		{name: "functions still get the caller", path: "/functions/v1/hello", hdr: map[string]string{"Authorization": "Bearer " + user},
			wantStatus: 200, wantToken: user, wantRole: "authenticated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: the subtests share the echo service's channel.
			method := tt.method
			if method == "" {
				method = "GET"
			}
			res, body := b.do(t, method, tt.path, tt.hdr)
			if res.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d (body %s)", res.StatusCode, tt.wantStatus, body)
			}
			if tt.wantBody != "" {
				if diff := cmp.Diff(tt.wantBody, strings.TrimSpace(body)); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
				if ct := res.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type = %q", ct)
				}
			}
			if res.StatusCode != 200 {
				return
			}
			got := <-b.svc.got
			if tt.wantToken != "" && got.Authorization != "Bearer "+tt.wantToken {
				t.Errorf("service saw Authorization %q, want Bearer %.20s…", got.Authorization, tt.wantToken)
			}
			if got.Caller.Token != tt.wantToken {
				t.Errorf("Caller.Token = %.20q, want %.20q", got.Caller.Token, tt.wantToken)
			}
			if got.Caller.APIKeyRole != tt.wantKey {
				t.Errorf("Caller.APIKeyRole = %q, want %q", got.Caller.APIKeyRole, tt.wantKey)
			}
			if (got.Caller.Err != nil) != tt.wantErr {
				t.Errorf("Caller.Err = %v, want error %v", got.Caller.Err, tt.wantErr)
			}
			role := ""
			if got.Caller.Claims != nil {
				role = got.Caller.Claims.Role
			}
			if role != tt.wantRole {
				t.Errorf("Caller.Claims.Role = %q, want %q", role, tt.wantRole)
			}
			if strings.HasPrefix(got.APIKey, "sb_") {
				t.Errorf("service saw an sb_ apikey %q; want the JWT it stands for", got.APIKey)
			}
		})
	}
}

func TestRouting(t *testing.T) {
	t.Parallel()
	b := setup(t, gateway.Config{}, func(h http.Handler) gateway.Services { return gateway.Services{REST: h, Storage: h} })
	key := map[string]string{"apikey": b.keys.AnonKey}
	tests := []struct {
		name, path, wantPath, wantRaw string
		wantStatus                    int
	}{
		{name: "prefix stripped", path: "/rest/v1/todos?select=*", wantPath: "/todos", wantStatus: 200},
		{name: "bare prefix becomes /", path: "/rest/v1", wantPath: "/", wantStatus: 200},
		{name: "escaped slash kept", path: "/storage/v1/object/b/a%2Fb.txt", wantPath: "/object/b/a/b.txt", wantRaw: "/object/b/a%2Fb.txt", wantStatus: 200},
		{name: "unmounted service is 404 after the key check", path: "/auth/v1/signup", wantStatus: 404},
		{name: "unknown prefix", path: "/nope", wantStatus: 404},
		{name: "prefix look-alike", path: "/rest/v10/x", wantStatus: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, body := b.do(t, "GET", tt.path, key)
			if res.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d (%s)", res.StatusCode, tt.wantStatus, body)
			}
			if tt.wantStatus == 404 {
				if diff := cmp.Diff(`{"message":"no Route matched with those values"}`, strings.TrimSpace(body)); diff != "" {
					t.Errorf("404 body (-want +got):\n%s", diff)
				}
				return
			}
			got := <-b.svc.got
			if got.Path != tt.wantPath || got.RawPath != tt.wantRaw {
				t.Errorf("service path = %q raw %q, want %q raw %q", got.Path, got.RawPath, tt.wantPath, tt.wantRaw)
			}
		})
	}
	res, _ := b.do(t, "GET", "/auth/v1/signup", nil)
	if res.StatusCode != 401 {
		t.Errorf("unmounted service without key: status %d, want 401 (key check comes first)", res.StatusCode)
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	b := setup(t, gateway.Config{}, nil)
	pre := map[string]string{"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "authorization,apikey,content-type"}
	for _, path := range []string{"/rest/v1/todos", "/auth/v1/token", "/nope", "/realtime/v1/websocket"} {
		res, body := b.do(t, "OPTIONS", path, pre)
		if res.StatusCode != 200 || body != "" {
			t.Errorf("preflight %s: status %d body %q, want 200 and empty", path, res.StatusCode, body)
		}
		want := map[string]string{
			"Access-Control-Allow-Origin":  "*",
			"Access-Control-Allow-Methods": "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
			"Access-Control-Allow-Headers": "authorization, apikey, x-client-info, content-type, prefer, range, accept-profile, " +
				"content-profile, x-upsert, x-supabase-api-version, cache-control, x-retry-count, x-metadata, x-region, " +
				"traceparent, tracestate, baggage, tus-resumable, upload-length, upload-metadata, upload-offset, " +
				"upload-defer-length, upload-concat, x-http-method-override, x-signature",
			"Access-Control-Max-Age": "3600",
		}
		for h, v := range want {
			if got := res.Header.Get(h); got != v {
				t.Errorf("preflight %s: %s = %q, want %q", path, h, got, v)
			}
		}
	}
	// An edge function answers its own preflight, as on Supabase: the
	// functions service gets it, with the gateway's CORS headers set.
	res, _ := b.do(t, "OPTIONS", "/functions/v1/hello", pre)
	select {
	case got := <-b.svc.got:
		if got.Path != "/hello" {
			t.Errorf("functions preflight reached the service as %s", got.Path)
		}
	default:
		t.Error("a /functions/v1 preflight did not reach the functions service")
	}
	if res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("functions preflight: allow-origin %q", res.Header.Get("Access-Control-Allow-Origin"))
	}
	// Error responses must be readable by browser code: CORS headers on a 401.
	res, _ = b.do(t, "GET", "/rest/v1/todos", map[string]string{"Origin": "http://localhost:5173"})
	if res.StatusCode != 401 || res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("401: status %d, allow-origin %q", res.StatusCode, res.Header.Get("Access-Control-Allow-Origin"))
	}
	wantExpose := "Content-Range, Content-Location, Location, Preference-Applied, X-Total-Count, Link, x-sb-error-code, X-Supabase-Api-Version, " +
		"Tus-Resumable, Tus-Version, Tus-Extension, Tus-Max-Size, Upload-Offset, Upload-Length, Upload-Metadata"
	if got := res.Header.Get("Access-Control-Expose-Headers"); got != wantExpose {
		t.Errorf("expose = %q, want %q", got, wantExpose)
	}

	t.Run("origin allow-list", func(t *testing.T) {
		t.Parallel()
		b := setup(t, gateway.Config{CORSOrigins: []string{"https://app.example"}}, nil)
		res, _ := b.do(t, "OPTIONS", "/rest/v1/x", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET"})
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != "https://app.example" {
			t.Errorf("listed origin: allow-origin %q", got)
		}
		res, _ = b.do(t, "OPTIONS", "/rest/v1/x", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"})
		if got := res.Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("unlisted origin: allow-origin %q, want none", got)
		}
		if res.Header.Get("Vary") != "Origin" {
			t.Errorf("Vary = %q, want Origin", res.Header.Get("Vary"))
		}
	})
}

func TestRequestIDAndClientIP(t *testing.T) {
	t.Parallel()
	b := setup(t, gateway.Config{}, nil)
	key := b.keys.AnonKey
	res, _ := b.do(t, "GET", "/rest/v1/x", map[string]string{"apikey": key, "X-Real-Ip": "6.6.6.6", "X-Forwarded-For": "7.7.7.7"})
	got := <-b.svc.got
	id := res.Header.Get("X-Request-Id")
	if len(id) != 36 || got.RequestID != id {
		t.Errorf("request id: response %q, service %q", id, got.RequestID)
	}
	if got.RealIP != "127.0.0.1" {
		t.Errorf("X-Real-Ip = %q: a client-sent value must be replaced by the socket peer", got.RealIP)
	}
	res, _ = b.do(t, "GET", "/rest/v1/x", map[string]string{"apikey": key, "X-Request-Id": "trace-1"})
	if got := <-b.svc.got; got.RequestID != "trace-1" || res.Header.Get("X-Request-Id") != "trace-1" {
		t.Errorf("incoming request id not propagated: %q / %q", got.RequestID, res.Header.Get("X-Request-Id"))
	}
	res, _ = b.do(t, "GET", "/rest/v1/x", map[string]string{"apikey": key, "X-Request-Id": strings.Repeat("x", 200)})
	<-b.svc.got
	if id := res.Header.Get("X-Request-Id"); len(id) != 36 {
		t.Errorf("oversized request id should be replaced, got %q", id)
	}

	t.Run("trusted proxy header", func(t *testing.T) {
		t.Parallel()
		b := setup(t, gateway.Config{TrustedProxyHeader: "x-forwarded-for"}, nil)
		_, _ = b.do(t, "GET", "/rest/v1/x", map[string]string{"apikey": b.keys.AnonKey, "X-Forwarded-For": "1.1.1.1, 203.0.113.9"})
		if got := <-b.svc.got; got.RealIP != "203.0.113.9" {
			t.Errorf("X-Real-Ip = %q, want the entry the trusted proxy appended", got.RealIP)
		}
		_, _ = b.do(t, "GET", "/rest/v1/x", map[string]string{"apikey": b.keys.AnonKey, "X-Forwarded-For": "garbage"})
		if got := <-b.svc.got; got.RealIP != "127.0.0.1" {
			t.Errorf("unparsable header: X-Real-Ip = %q, want the socket peer", got.RealIP)
		}
	})
}

func TestPanicRecovery(t *testing.T) {
	t.Parallel()
	b := setup(t, gateway.Config{}, nil)
	res, body := b.do(t, "GET", "/rest/v1/panic", map[string]string{"apikey": b.keys.AnonKey, "Origin": "http://x"})
	<-b.svc.got
	if res.StatusCode != 500 {
		t.Fatalf("status = %d, want 500", res.StatusCode)
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	want := map[string]string{"message": "Internal Server Error", "request_id": res.Header.Get("X-Request-Id")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
	if res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Error("500 lacks CORS headers")
	}
	if logs := b.logs.waitFor(t, `"msg":"panic"`); !strings.Contains(logs, want["request_id"]) {
		t.Errorf("panic not logged with its request id:\n%s", logs)
	}
}

func TestHealthMetricsAndJWKS(t *testing.T) {
	t.Parallel()
	b := setup(t, gateway.Config{Version: "v9"}, nil)
	res, body := b.do(t, "GET", "/health", nil)
	if res.StatusCode != 200 || strings.TrimSpace(body) != `{"status":"ok","version":"v9"}` {
		t.Errorf("health: %d %s", res.StatusCode, body)
	}
	b.do(t, "GET", "/rest/v1/x", nil) // a 401 to count
	// Metrics are recorded after the response is sent: poll briefly.
	for deadline := time.Now().Add(5 * time.Second); ; {
		res, body = b.do(t, "GET", "/metrics", nil)
		if res.StatusCode != 200 {
			t.Fatalf("metrics status %d", res.StatusCode)
		}
		if strings.Contains(body, `status="401"} 1`) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, want := range []string{
		`basalt_http_requests_total{method="GET",service="rest",status="401"} 1`,
		`basalt_http_requests_total{method="GET",service="gateway",status="200"}`,
		`basalt_http_request_duration_seconds_count{service="rest",status="401"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}

	// The echo auth service answers 404 for the JWKS path: the gateway's
	// fallback serves the document, without an API key.
	res, body = b.do(t, "GET", "/auth/v1/.well-known/jwks.json", nil)
	<-b.svc.got
	var doc struct{ Keys []map[string]any }
	if err := json.Unmarshal([]byte(body), &doc); err != nil || res.StatusCode != 200 {
		t.Fatalf("jwks: %d %s", res.StatusCode, body)
	}
	if len(doc.Keys) != 1 || doc.Keys[0]["kid"] != b.keys.KID || doc.Keys[0]["d"] != nil {
		t.Errorf("jwks = %s", body)
	}

	t.Run("auth service's own JWKS wins", func(t *testing.T) {
		t.Parallel()
		own := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-From", "auth")
			_, _ = io.WriteString(w, `{"keys":[]}`)
		})
		b := setup(t, gateway.Config{}, func(http.Handler) gateway.Services { return gateway.Services{Auth: own} })
		res, body := b.do(t, "GET", "/auth/v1/.well-known/jwks.json", nil)
		if body != `{"keys":[]}` || res.Header.Get("X-From") != "auth" {
			t.Errorf("got %s from %q, want the auth service's document", body, res.Header.Get("X-From"))
		}
	})
	t.Run("failing health check is 503", func(t *testing.T) {
		t.Parallel()
		b := setup(t, gateway.Config{Health: func(ctx context.Context) error { return errors.New("db down") }}, nil)
		res, body := b.do(t, "GET", "/health", nil)
		if res.StatusCode != 503 || !strings.Contains(body, "unavailable") {
			t.Errorf("health: %d %s", res.StatusCode, body)
		}
	})
}

func TestAccessLog(t *testing.T) {
	t.Parallel()
	b := setup(t, gateway.Config{}, nil)
	b.do(t, "GET", "/rest/v1/x?apikey=secret-in-query&select=id", nil)
	logs := b.logs.waitFor(t, `"msg":"request"`)
	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
	}
	for k, want := range map[string]any{"msg": "request", "method": "GET", "path": "/rest/v1/x", "status": float64(401), "service": "rest",
		"query": "apikey=redacted&select=id", "client_ip": "127.0.0.1"} {
		if line[k] != want {
			t.Errorf("log %s = %v, want %v", k, line[k], want)
		}
	}
	if strings.Contains(logs, "secret-in-query") {
		t.Error("apikey leaked into the log")
	}
}

func TestVerifiedTokenExpiresWhileCached(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	clock := time.Now()
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	b := setup(t, gateway.Config{Now: now}, nil)
	tok := b.userToken(t, clock.Add(time.Minute))
	hdr := map[string]string{"apikey": b.keys.AnonKey, "Authorization": "Bearer " + tok}
	for i := range 2 { // the second request is served from the cache
		b.do(t, "GET", "/rest/v1/x", hdr)
		if got := <-b.svc.got; got.Caller.Err != nil || got.Caller.Claims == nil || got.Caller.Claims.Role != "authenticated" {
			t.Fatalf("request %d: caller %+v", i, got.Caller)
		}
	}
	mu.Lock()
	clock = clock.Add(2 * time.Minute)
	mu.Unlock()
	b.do(t, "GET", "/rest/v1/x", hdr)
	if got := <-b.svc.got; !errors.Is(got.Caller.Err, jwt.ErrExpired) || got.Caller.Claims != nil {
		t.Errorf("after expiry: Err %v, Claims %+v; want ErrExpired", got.Caller.Err, got.Caller.Claims)
	}
}

// TestTokenSource: services learn where the bearer token came from, since
// the reference gateway hands a legacy API key to GoTrue without the Bearer
// scheme (no bearer token) but turns an sb_ key into one.
func TestTokenSource(t *testing.T) {
	t.Parallel()
	b := setup(t, gateway.Config{}, nil)
	k := b.keys
	user := b.userToken(t, time.Now().Add(time.Hour))
	for _, tc := range []struct {
		name string
		path string
		hdr  map[string]string
		want jwt.TokenSource
	}{
		{"legacy key alone", "/auth/v1/user", map[string]string{"apikey": k.AnonKey}, jwt.SourceLegacyKey},
		{"publishable key alone", "/auth/v1/user", map[string]string{"apikey": k.PublishableKey}, jwt.SourceNewKey},
		{"a bearer token", "/auth/v1/user", map[string]string{"apikey": k.AnonKey, "Authorization": "Bearer " + user}, jwt.SourceAuthorization},
		{"the key as bearer too", "/rest/v1/x", map[string]string{"apikey": k.AnonKey, "Authorization": "Bearer " + k.AnonKey}, jwt.SourceAuthorization},
		{"an sb_ bearer", "/rest/v1/x", map[string]string{"apikey": k.PublishableKey, "Authorization": "Bearer " + k.PublishableKey}, jwt.SourceAuthorization},
		{"no credentials on a public route", "/functions/v1/hello", nil, jwt.SourceNone},
	} {
		res, body := b.do(t, "GET", tc.path, tc.hdr)
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", tc.name, res.StatusCode, body)
		}
		if got := (<-b.svc.got).Caller.Source; got != tc.want {
			t.Errorf("%s: source %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestAPIKeySignedByKeySet: an anon or service_role JWT signed by any key
// of the project's key set (an RS256 JWK set, as auth-js's test fixtures
// sign theirs) is a project key; one signed by another key, or a user
// token, is not.
func TestAPIKeySignedByKeySet(t *testing.T) {
	t.Parallel()
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	enc := func(i *big.Int) string { return base64.RawURLEncoding.EncodeToString(i.Bytes()) }
	set, _ := json.Marshal([]map[string]any{{"kty": "RSA", "kid": "rsa-1", "alg": "RS256", "key_ops": []string{"sign", "verify"},
		"n": enc(rsaKey.N), "e": enc(big.NewInt(int64(rsaKey.E))), "d": enc(rsaKey.D), "p": enc(rsaKey.Primes[0]), "q": enc(rsaKey.Primes[1])}})
	b := setup(t, gateway.Config{}, nil)
	sign := func(role string, key *rsa.PrivateKey) string {
		tok := gojwt.NewWithClaims(gojwt.SigningMethodRS256, gojwt.MapClaims{"iss": "supabase-demo", "role": role, "exp": time.Now().Add(time.Hour).Unix()})
		tok.Header["kid"] = "rsa-1"
		s, err := tok.SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// The gateway shares the keys value: the set is added before requests.
	if err := b.keys.SetKeySet(set); err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"anon", "service_role"} {
		key := sign(role, rsaKey)
		res, body := b.do(t, "GET", "/rest/v1/x", map[string]string{"apikey": key})
		if res.StatusCode != 200 {
			t.Fatalf("%s key of the set: %d %s", role, res.StatusCode, body)
		}
		got := <-b.svc.got
		if got.Caller.APIKeyRole != role || got.Caller.Claims == nil || got.Caller.Claims.Role != role || got.Authorization != "Bearer "+key {
			t.Errorf("%s key: role %q, claims %v, Authorization %.20q", role, got.Caller.APIKeyRole, got.Caller.Claims, got.Authorization)
		}
	}
	for name, key := range map[string]string{
		"signed by another key": sign("anon", stranger),
		"a user role":           sign("authenticated", rsaKey),
	} {
		res, body := b.do(t, "GET", "/rest/v1/x", map[string]string{"apikey": key})
		if res.StatusCode != 401 || strings.TrimSpace(body) != `{"message":"Invalid API key"}` {
			t.Errorf("%s: %d %s", name, res.StatusCode, body)
		}
	}
}
