package rest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// TestPoolAcquisitionTimeout: with every connection taken, a request fails
// with PostgREST's 504 PGRST003 after the configured wait instead of
// queueing forever, and works again once a connection is free.
// onePoolService is the REST service on a pool of one user connection, so
// that every request of a test takes turns on the same connection; both are
// closed when the test ends.
func onePoolService(t *testing.T, e *env, cfg Config) (*pgxpool.Pool, *Service) {
	t.Helper()
	one, err := pg.Connect(context.Background(), e.db.UserURL+"&pool_max_conns=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(one.Close)
	svc, err := New(cfg, one, e.db.Admin)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return one, svc
}

func TestPoolAcquisitionTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	cfg := testConfig()
	cfg.PoolAcquisitionTimeout = 200 * time.Millisecond
	one, svc := onePoolService(t, e, cfg)
	get := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		svc.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/channels?select=id&limit=1", nil))
		return rec
	}
	held, err := one.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rec := get()
	if rec.Code != http.StatusGatewayTimeout || !strings.Contains(rec.Body.String(), `"code":"PGRST003"`) {
		t.Errorf("with the pool exhausted: %d %s, want 504 PGRST003", rec.Code, rec.Body.String())
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("waited %s for a connection, want about the configured 200ms", waited)
	}
	held.Release()
	if rec := get(); rec.Code != http.StatusOK {
		t.Errorf("after the connection is free: %d %s, want 200", rec.Code, rec.Body.String())
	}
}

// TestExchangeDeadline: when the database does not answer within the
// exchange deadline, the request fails instead of holding its connection,
// the dead connection leaves the pool, and the next request works.
func TestExchangeDeadline(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.db.Admin.Exec(ctx, `CREATE FUNCTION public.stall() RETURNS void LANGUAGE sql AS 'SELECT pg_sleep(3)';
		GRANT EXECUTE ON FUNCTION public.stall() TO anon`); err != nil {
		t.Fatal(err)
	}
	_, svc := onePoolService(t, e, testConfig())
	svc.exchangeTimeout = 300 * time.Millisecond
	serve := func(method, target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		svc.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
		return rec
	}
	start := time.Now()
	rec := serve(http.MethodPost, "/rpc/stall")
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("the stalled exchange took %s, want about the 300ms deadline", waited)
	}
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"code":"PGRST001"`) || rec.Header().Get("Retry-After") == "" {
		t.Errorf("stalled exchange: %d %v %s, want 503 PGRST001 with Retry-After", rec.Code, rec.Header(), rec.Body.String())
	}
	// The only connection was closed; the pool opens a new one.
	if rec := serve(http.MethodGet, "/channels?select=id&limit=1"); rec.Code != http.StatusOK {
		t.Errorf("after the deadline: %d %s, want 200", rec.Code, rec.Body.String())
	}
	// The deadline is cleared after each exchange: a connection that idles
	// longer than the deadline between requests still works.
	time.Sleep(400 * time.Millisecond)
	if rec := serve(http.MethodGet, "/channels?select=id&limit=1"); rec.Code != http.StatusOK {
		t.Errorf("after idling past the deadline: %d %s, want 200", rec.Code, rec.Body.String())
	}
}

// TestRequestSettingsEndWithTheRequest: on a pool of one connection, so
// every request reuses the same session, nothing a request set (role,
// claims, headers, cookies, search_path, the role's statement_timeout,
// timezone, read-only) is seen by the next request or by the connection
// afterwards.
func TestRequestSettingsEndWithTheRequest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	for _, schema := range []string{"public", "personal"} {
		if _, err := e.db.Admin.Exec(ctx, `CREATE FUNCTION `+schema+`.session_state() RETURNS json LANGUAGE sql STABLE AS $$
		SELECT json_build_object('role', current_user, 'claims', current_setting('request.jwt.claims', true),
		  'probe', current_setting('request.headers', true)::json->>'x-probe',
		  'cookie', current_setting('request.cookies', true)::json->>'session',
		  'path', current_setting('request.path', true), 'search_path', current_setting('search_path'),
		  'timeout', current_setting('statement_timeout'), 'timezone', current_setting('timezone'),
		  'read_only', current_setting('transaction_read_only'))
		$$;
		GRANT EXECUTE ON FUNCTION `+schema+`.session_state() TO anon, authenticated`); err != nil {
			t.Fatal(err)
		}
	}
	one, svc := onePoolService(t, e, testConfig())
	var base struct{ Timezone string }
	if err := one.QueryRow(ctx, `SELECT current_setting('timezone')`).Scan(&base.Timezone); err != nil {
		t.Fatal(err)
	}
	state := func(method string, c caller, headers map[string]string) map[string]any {
		t.Helper()
		body := strings.NewReader("")
		if method == http.MethodPost {
			body = strings.NewReader("{}")
		}
		r := httptest.NewRequest(method, "/rpc/session_state", body)
		for k, v := range headers {
			r.Header.Set(k, v)
		}
		rec := (&env{svc: svc}).serve(r, c)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s as %q: %d %s", method, c.role, rec.Code, rec.Body.String())
		}
		var m map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := state(http.MethodPost, asAlice, map[string]string{"X-Probe": "alice's", "Cookie": "session=s1",
		"Prefer": "timezone=America/Los_Angeles", "Content-Profile": "personal"})
	if first["role"] != "authenticated" || first["probe"] != "alice's" || first["cookie"] != "s1" ||
		first["timezone"] != "America/Los_Angeles" || first["timeout"] != "8s" ||
		!strings.Contains(first["search_path"].(string), "personal") {
		t.Fatalf("alice's request: %v", first)
	}
	anon := state(http.MethodGet, asAnon, nil)
	claims, _ := anon["claims"].(string)
	if anon["role"] != "anon" || strings.Contains(claims, alice) || anon["probe"] != nil || anon["cookie"] != nil ||
		anon["timezone"] != base.Timezone || anon["timeout"] != "3s" || anon["read_only"] != "on" ||
		strings.Contains(anon["search_path"].(string), "personal") {
		t.Errorf("the next request on the same connection sees %v (alice's was %v)", anon, first)
	}
	var role, leftover, timeout, ro string
	if err := one.QueryRow(ctx, `SELECT current_user, coalesce(current_setting('request.jwt.claims', true), '') ||
		coalesce(current_setting('request.headers', true), ''), current_setting('statement_timeout'), current_setting('transaction_read_only')`).
		Scan(&role, &leftover, &timeout, &ro); err != nil {
		t.Fatal(err)
	}
	if role != "authenticator" || leftover != "" || timeout != "0" || ro != "off" {
		t.Errorf("the connection after the requests: role %q, request settings %q, statement_timeout %q, read-only %q", role, leftover, timeout, ro)
	}
}

// TestPlansKeptAcrossRoles: PostgreSQL rewrites a statement that reads a
// table under row-level security for the role in force, and parses and
// plans it again whenever the role differs from its last run's. Requests
// of anon and a signed-in user taking turns on one connection therefore
// each run a prepared statement of their own, which keeps its role's plan.
func TestPlansKeptAcrossRoles(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	one, svc := onePoolService(t, e, testConfig())
	env := &env{svc: svc}
	for i := range 10 {
		c := asAnon
		if i%2 == 1 {
			c = asAlice
		}
		if rec := env.serve(httptest.NewRequest(http.MethodGet, "/notes?select=id&id=gt.0", nil), c); rec.Code != http.StatusOK {
			t.Fatalf("read %d: %d %s", i, rec.Code, rec.Body.String())
		}
	}
	statements, runs := pgtest.PreparedRuns(t, one, `"public"."notes"`)
	if statements != 2 || runs != 10 {
		t.Errorf("10 reads taking turns as anon and alice ran %d times in %d prepared statements; want 10 in 2, one per role", runs, statements)
	}
}
