package functions_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
)

type testBundle struct {
	keys *jwt.Keys
	svc  *functions.Service
	user string // a valid authenticated user's access token
}

// echo reports what a function sees: its path, query, method, caller.
func echo(w http.ResponseWriter, r *http.Request) error {
	c := jwt.FromContext(r.Context())
	role := ""
	if c.Claims != nil {
		role = c.Claims.Role
	}
	body, _ := io.ReadAll(r.Body)
	httpx.WriteJSON(w, http.StatusOK, map[string]string{
		"path": r.URL.Path, "query": r.URL.RawQuery, "method": r.Method, "role": role, "body": string(body),
	})
	return nil
}

func setup(t *testing.T, cfg functions.Config) *testBundle {
	t.Helper()
	now := time.Now()
	keys, err := jwt.Generate(now)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Keys = keys
	svc, err := functions.New(cfg,
		functions.Function{Name: "echo", VerifyJWT: true, Handler: echo},
		functions.Function{Name: "open", VerifyJWT: false, Handler: echo},
		functions.Function{Name: "refuse", VerifyJWT: false, Handler: func(w http.ResponseWriter, r *http.Request) error {
			w.Header().Set("X-Relay-Error", "true")
			return functions.NewError(http.StatusBadRequest, map[string]string{"error": "nope"}, nil)
		}},
		functions.Function{Name: "boom", VerifyJWT: false, Handler: func(w http.ResponseWriter, r *http.Request) error {
			return errors.New("database is on fire")
		}},
		functions.Function{Name: "panic", VerifyJWT: false, Handler: func(w http.ResponseWriter, r *http.Request) error {
			panic("oops")
		}},
		functions.Function{Name: "slow", VerifyJWT: false, Handler: func(w http.ResponseWriter, r *http.Request) error {
			<-r.Context().Done()
			return r.Context().Err()
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	user, err := keys.Sign(gojwt.MapClaims{"sub": "8d0fd2b3-9ca7-4c9e-9d0c-1d2f5e3f4a10", "role": "authenticated",
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix()})
	if err != nil {
		t.Fatal(err)
	}
	return &testBundle{keys: keys, svc: svc, user: user}
}

func TestService(t *testing.T) {
	t.Parallel()
	b := setup(t, functions.Config{Timeout: 200 * time.Millisecond})
	expired, _ := b.keys.Sign(gojwt.MapClaims{"role": "authenticated", "exp": time.Now().Add(-time.Hour).Unix()})
	other, _ := jwt.Generate(time.Now())

	tests := []struct {
		name       string
		method     string
		path       string
		header     map[string]string
		body       string
		wantStatus int
		wantType   string
		wantBody   string // exact body (JSON compared semantically)
	}{
		{name: "user token reaches the function with its subpath and query", method: "POST", path: "/echo/sub/path?x=1&y=2",
			header: map[string]string{"Authorization": "Bearer " + b.user}, body: `{"a":1}`, wantStatus: 200, wantType: "application/json",
			wantBody: `{"path":"/sub/path","query":"x=1&y=2","method":"POST","role":"authenticated","body":"{\"a\":1}"}`},
		{name: "anon key passes verify_jwt", method: "GET", path: "/echo",
			header: map[string]string{"Authorization": "Bearer " + b.keys.AnonKey}, wantStatus: 200, wantType: "application/json",
			wantBody: `{"path":"/","query":"","method":"GET","role":"anon","body":""}`},
		{name: "missing authorization", method: "POST", path: "/echo", wantStatus: 401, wantType: "application/json",
			wantBody: `{"code":401,"message":"Missing authorization header"}`},
		{name: "non-bearer scheme", method: "POST", path: "/echo", header: map[string]string{"Authorization": "Basic Zm9vOmJhcg=="},
			wantStatus: 401, wantType: "application/json", wantBody: `{"code":401,"message":"Auth header is not 'Bearer {token}'"}`},
		{name: "expired token", method: "POST", path: "/echo", header: map[string]string{"Authorization": "Bearer " + expired},
			wantStatus: 401, wantType: "application/json", wantBody: `{"code":401,"message":"Invalid JWT"}`},
		{name: "token of another project", method: "POST", path: "/echo", header: map[string]string{"Authorization": "Bearer " + other.AnonKey},
			wantStatus: 401, wantType: "application/json", wantBody: `{"code":401,"message":"Invalid JWT"}`},
		{name: "garbage token", method: "POST", path: "/echo", header: map[string]string{"Authorization": "Bearer abc"},
			wantStatus: 401, wantType: "application/json", wantBody: `{"code":401,"message":"Invalid JWT"}`},
		{name: "verify_jwt off needs no token", method: "DELETE", path: "/open/x", wantStatus: 200, wantType: "application/json",
			wantBody: `{"path":"/x","query":"","method":"DELETE","role":"","body":""}`},
		{name: "unknown function", method: "POST", path: "/nope", header: map[string]string{"Authorization": "Bearer " + b.user},
			wantStatus: 404, wantType: "text/plain; charset=utf-8", wantBody: "Function not found"},
		{name: "no function name", method: "GET", path: "/", wantStatus: 404, wantType: "text/plain; charset=utf-8", wantBody: "Function not found"},
		{name: "preflight skips verify_jwt", method: "OPTIONS", path: "/echo",
			header: map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}, wantStatus: 204},
		{name: "handler error with its own body, relay marker dropped", method: "POST", path: "/refuse", wantStatus: 400,
			wantType: "application/json", wantBody: `{"error":"nope"}`},
		{name: "handler failure is a worker error", method: "POST", path: "/boom", wantStatus: 500, wantType: "application/json",
			wantBody: `{"code":"WORKER_ERROR","message":"Function exited due to an error (please check logs)"}`},
		{name: "panic is a worker error", method: "POST", path: "/panic", wantStatus: 500, wantType: "application/json",
			wantBody: `{"code":"WORKER_ERROR","message":"Function exited due to an error (please check logs)"}`},
		{name: "time limit", method: "POST", path: "/slow", wantStatus: 546, wantType: "application/json",
			wantBody: `{"code":"WORKER_LIMIT","message":"Worker failed to respond due to a resource limit (please check logs)"}`},
		{name: "health", method: "GET", path: "/_internal/health", wantStatus: 200, wantType: "application/json", wantBody: `{"message":"ok"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req := httptest.NewRequest(tt.method, tt.path, body)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			b.svc.ServeHTTP(rec, req)
			res := rec.Result()
			if res.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", res.StatusCode, tt.wantStatus, rec.Body)
			}
			if got := res.Header.Get("Content-Type"); got != tt.wantType {
				t.Errorf("Content-Type = %q, want %q", got, tt.wantType)
			}
			// CORS on every response, errors included (contract §3.3).
			if got := res.Header.Get("Access-Control-Allow-Origin"); got != "*" {
				t.Errorf("Access-Control-Allow-Origin = %q, want *", got)
			}
			if got := res.Header.Get("X-Relay-Error"); got != "" {
				t.Errorf("X-Relay-Error = %q, want none", got)
			}
			got := rec.Body.String()
			if strings.HasPrefix(tt.wantType, "application/json") {
				var g, w any
				if err := json.Unmarshal([]byte(got), &g); err != nil {
					t.Fatalf("body %q: %v", got, err)
				}
				if err := json.Unmarshal([]byte(tt.wantBody), &w); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(w, g); diff != "" {
					t.Errorf("body mismatch (-want +got):\n%s", diff)
				}
			} else if got != tt.wantBody {
				t.Errorf("body = %q, want %q", got, tt.wantBody)
			}
		})
	}
}

func TestPreflightHeaders(t *testing.T) {
	t.Parallel()
	b := setup(t, functions.Config{})
	tests := []struct {
		name        string
		path        string
		reqHeaders  string
		wantHeaders string
	}{
		{"echoes requested headers", "/echo", "apikey,authorization,content-type,x-client-info,x-region", "apikey,authorization,content-type,x-client-info,x-region"},
		{"canonical list without a request list", "/echo", "", "authorization, x-client-info, apikey, content-type, x-retry-count, traceparent, tracestate, baggage"},
		{"unknown function still answers", "/missing", "authorization", "authorization"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest("OPTIONS", tt.path, nil)
			req.Header.Set("Origin", "https://app.example")
			req.Header.Set("Access-Control-Request-Method", "POST")
			if tt.reqHeaders != "" {
				req.Header.Set("Access-Control-Request-Headers", tt.reqHeaders)
			}
			rec := httptest.NewRecorder()
			b.svc.ServeHTTP(rec, req)
			h := rec.Result().Header
			got := map[string]string{
				"status":  http.StatusText(rec.Code),
				"origin":  h.Get("Access-Control-Allow-Origin"),
				"headers": h.Get("Access-Control-Allow-Headers"),
				"methods": h.Get("Access-Control-Allow-Methods"),
			}
			want := map[string]string{
				"status":  http.StatusText(http.StatusNoContent),
				"origin":  "*",
				"headers": tt.wantHeaders,
				"methods": "GET, POST, PUT, PATCH, DELETE, OPTIONS",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("preflight (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGatewayCaller checks that a caller verified upstream is used as is,
// without verifying the header again.
func TestGatewayCaller(t *testing.T) {
	t.Parallel()
	b := setup(t, functions.Config{})
	tests := []struct {
		name       string
		caller     *jwt.Caller
		wantStatus int
	}{
		{"verified caller", &jwt.Caller{Token: "t", Claims: &jwt.Claims{Role: "authenticated"}}, 200},
		{"gateway rejected the token", &jwt.Caller{Token: "t", Err: jwt.ErrExpired}, 401},
		{"gateway saw no token", &jwt.Caller{}, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest("POST", "/echo", nil)
			req = req.WithContext(jwt.NewContext(req.Context(), tt.caller))
			rec := httptest.NewRecorder()
			b.svc.ServeHTTP(rec, req)
			if rec.Code != tt.wantStatus {
				t.Errorf("status = %d, want %d (%s)", rec.Code, tt.wantStatus, rec.Body)
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	h := func(w http.ResponseWriter, r *http.Request) error { return nil }
	tests := []struct {
		name    string
		cfg     functions.Config
		fns     []functions.Function
		wantErr string
	}{
		{"bad name", functions.Config{}, []functions.Function{{Name: "a/b", Handler: h}}, `invalid function name "a/b"`},
		{"duplicate", functions.Config{}, []functions.Function{{Name: "a", Handler: h}, {Name: "a", Handler: h}}, `"a" registered twice`},
		{"no handler", functions.Config{}, []functions.Function{{Name: "a"}}, `"a" has no handler`},
		{"unknown no-verify name", functions.Config{NoVerifyJWT: []string{"b"}}, []functions.Function{{Name: "a", Handler: h}}, `unknown function "b"`},
		{"ok", functions.Config{NoVerifyJWT: []string{"a"}}, []functions.Function{{Name: "a", VerifyJWT: true, Handler: h}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := functions.New(tt.cfg, tt.fns...)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("New error = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

// TestGatewayCORS: behind a gateway that applies the CORS policy, the
// service adds nothing that could widen it, and OPTIONS reaches the
// function without verify_jwt.
func TestGatewayCORS(t *testing.T) {
	t.Parallel()
	b := setup(t, functions.Config{GatewayCORS: true})
	rec := httptest.NewRecorder()
	rec.Header().Set("Access-Control-Allow-Origin", "https://only.example")
	b.svc.ServeHTTP(rec, httptest.NewRequest("POST", "/nope", nil))
	if got := rec.Result().Header.Values("Access-Control-Allow-Origin"); !cmp.Equal(got, []string{"https://only.example"}) {
		t.Errorf("Access-Control-Allow-Origin = %q, want the gateway's only", got)
	}
	rec = httptest.NewRecorder()
	b.svc.ServeHTTP(rec, httptest.NewRequest("OPTIONS", "/echo", nil))
	if rec.Code != 200 || rec.Result().Header.Get("Access-Control-Allow-Methods") != "" {
		t.Errorf("OPTIONS = %d %v, want the function's answer", rec.Code, rec.Result().Header)
	}
}

func TestNoVerifyJWTOverride(t *testing.T) {
	t.Parallel()
	b := setup(t, functions.Config{NoVerifyJWT: []string{"echo"}})
	rec := httptest.NewRecorder()
	b.svc.ServeHTTP(rec, httptest.NewRequest("POST", "/echo", nil))
	if rec.Code != 200 {
		t.Fatalf("status = %d, want 200 with verify_jwt forced off", rec.Code)
	}
}

var tsDefaults = functions.TSConfig{Dir: "supabase/functions", MemoryMB: 150, CPUBudget: 2 * time.Second,
	IdleTimeout: time.Minute, LogRetention: 7 * 24 * time.Hour}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    functions.Config
		wantErr bool
	}{
		{"defaults", nil, functions.Config{Timeout: functions.DefaultTimeout, MaxBodyBytes: functions.DefaultMaxBodyBytes, TypeScript: tsDefaults}, false},
		{"set", map[string]string{"FUNCTIONS_TIMEOUT": "400s", "FUNCTIONS_NO_VERIFY_JWT": " a, b ,",
			"BASALT_FUNCTIONS_DIR": "fns", "FUNCTIONS_MEMORY_MB": "256", "FUNCTIONS_CPU_BUDGET": "5s",
			"BASALT_SECRETS_KEY": "0123456789abcdef0123456789abcdef"},
			functions.Config{Timeout: 400 * time.Second, MaxBodyBytes: functions.DefaultMaxBodyBytes, NoVerifyJWT: []string{"a", "b"}, TypeScript: functions.TSConfig{
				Dir: "fns", MemoryMB: 256, CPUBudget: 5 * time.Second, IdleTimeout: time.Minute,
				LogRetention: 7 * 24 * time.Hour, SecretsKey: "0123456789abcdef0123456789abcdef"}}, false},
		{"short secrets key", map[string]string{"BASALT_SECRETS_KEY": "short"}, functions.Config{}, true},
		{"memory too small", map[string]string{"FUNCTIONS_MEMORY_MB": "1"}, functions.Config{}, true},
		{"bad timeout", map[string]string{"FUNCTIONS_TIMEOUT": "soon"}, functions.Config{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := functions.ConfigFromEnv(func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}
