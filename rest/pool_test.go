package rest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pg"
)

// TestPoolAcquisitionTimeout: with every connection taken, a request fails
// with PostgREST's 504 PGRST003 after the configured wait instead of
// queueing forever, and works again once a connection is free.
func TestPoolAcquisitionTimeout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	one, err := pg.Connect(ctx, e.db.UserURL+"&pool_max_conns=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	cfg := testConfig()
	cfg.PoolAcquisitionTimeout = 200 * time.Millisecond
	svc, err := New(cfg, one, e.db.Admin)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
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
	one, err := pg.Connect(ctx, e.db.UserURL+"&pool_max_conns=1", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	svc, err := New(testConfig(), one, e.db.Admin)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
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
