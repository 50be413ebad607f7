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
