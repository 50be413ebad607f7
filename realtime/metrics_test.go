package realtime_test

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/internal/telemetry"
	"github.com/basaltdev/basalt/realtime"
)

// TestMetrics checks the realtime series: open sockets, and the slot's lag
// while this node reads it.
func TestMetrics(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	m, err := telemetry.NewRealtimeMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := realtime.New(realtime.Config{PostgresChanges: true}, db.Admin, db.User, keys, realtime.WithMetrics(m))
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	gw, _ := gateway.New(gateway.Config{}, gateway.Services{Realtime: svc}, keys, nil)
	srv := httptest.NewServer(gw)
	defer srv.Close()

	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/realtime/v1/websocket?apikey="+keys.AnonKey, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "one socket", func() bool { return testutil.ToFloat64(m.Sockets) == 1 })
	_ = ws.Close()
	waitFor(t, "no socket", func() bool { return testutil.ToFloat64(m.Sockets) == 0 })
	waitFor(t, "the slot's lag", func() bool { return testutil.CollectAndCount(m.SlotLagBytes) == 1 })
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
