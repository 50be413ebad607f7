package rest

import (
	"context"
	_ "embed"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

//go:embed testdata/fixture.sql
var fixtureSQL string

// Users of the RLS scenarios.
const (
	alice = "11111111-1111-1111-1111-111111111111"
	bob   = "22222222-2222-2222-2222-222222222222"
)

type env struct {
	db  *pgtest.DB
	svc *Service
}

func testConfig() Config {
	return Config{
		Schemas:           []string{"public", "personal"},
		MaxRows:           1000,
		TxEnd:             "commit-allow-override",
		PlanEnabled:       true,
		AggregatesEnabled: true,
	}
}

// newEnv gives a test its own database loaded with the fixture and a
// service in front of it.
func newEnv(t *testing.T, mutate ...func(*Config)) *env { return newEnvB(t, mutate...) }

func newEnvB(t testing.TB, mutate ...func(*Config)) *env {
	t.Helper()
	db := pgtest.NewDB(t)
	if _, err := db.Admin.Exec(context.Background(), fixtureSQL); err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	cfg := testConfig()
	for _, m := range mutate {
		m(&cfg)
	}
	svc, err := New(cfg, db.User, db.Admin)
	if err != nil {
		t.Fatalf("new service: %v", err)
	}
	t.Cleanup(svc.Close)
	return &env{db: db, svc: svc}
}

// caller simulates what the gateway stores after verifying a token.
type caller struct {
	role, sub string
	err       error
	keyRole   string // the API key's role, as the gateway records it
}

func (c caller) context(ctx context.Context) context.Context {
	if c.err != nil {
		return jwt.NewContext(ctx, &jwt.Caller{Token: "bad", Err: c.err})
	}
	if c.role == "" {
		if c.keyRole != "" {
			return jwt.NewContext(ctx, &jwt.Caller{APIKeyRole: c.keyRole})
		}
		return ctx
	}
	m := map[string]any{"role": c.role}
	if c.sub != "" {
		m["sub"] = c.sub
	}
	raw, _ := json.Marshal(m)
	return jwt.NewContext(ctx, &jwt.Caller{Token: "t", Claims: &jwt.Claims{Role: c.role, Subject: c.sub, Raw: raw, Map: m}, APIKeyRole: c.keyRole})
}

var (
	asAnon    = caller{}
	asAlice   = caller{role: "authenticated", sub: alice}
	asBob     = caller{role: "authenticated", sub: bob}
	asService = caller{role: "service_role"}
)

// call is one HTTP scenario.
type call struct {
	method  string
	target  string
	headers map[string]string
	body    string
	as      caller
}

func (e *env) do(t *testing.T, c call) *httptest.ResponseRecorder {
	t.Helper()
	m := c.method
	if m == "" {
		m = http.MethodGet
	}
	var body *strings.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	} else {
		body = strings.NewReader("")
	}
	r := httptest.NewRequest(m, c.target, body)
	r.Header.Set("X-Real-Ip", "10.1.2.3")
	if m != http.MethodGet && m != http.MethodHead && c.headers["Content-Type"] == "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for k, v := range c.headers {
		r.Header.Set(k, v)
	}
	r = r.WithContext(c.as.context(r.Context()))
	w := httptest.NewRecorder()
	e.svc.ServeHTTP(w, r)
	return w
}

// jsonEqual compares JSON documents ignoring formatting (and key order).
func jsonEqual(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want JSON %q: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}

// scenario is a table row: a request and what must come back.
type scenario struct {
	name    string
	call    call
	status  int
	body    string            // JSON compared structurally; "" = not checked
	raw     *string           // exact body
	headers map[string]string // exact header values
}

func strp(s string) *string { return &s }

func runScenarios(t *testing.T, e *env, cases []scenario) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := e.do(t, tc.call)
			if w.Code != tc.status {
				t.Fatalf("status = %d, want %d; body %s", w.Code, tc.status, w.Body.String())
			}
			if tc.raw != nil && w.Body.String() != *tc.raw {
				t.Errorf("body = %q, want %q", w.Body.String(), *tc.raw)
			}
			if tc.body != "" && !jsonEqual(t, w.Body.String(), tc.body) {
				t.Errorf("body = %s\nwant   %s", w.Body.String(), tc.body)
			}
			for k, v := range tc.headers {
				if got := w.Header().Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}
