package replica

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

// pair is a primary and a streaming standby of it.
type pair struct {
	primary, standby *pgcluster.Cluster
	admin, reads     *pgxpool.Pool // superuser pools on each
	standbyAdmin     *pgxpool.Pool
}

func startPair(t *testing.T) *pair {
	t.Helper()
	if _, err := pgcluster.FindBinDir(); err != nil {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	primary, stop, err := pgcluster.StartTemp(ctx, "rpp", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	standby, stopStandby, err := pgcluster.StartTempStandby(ctx, primary, "rps")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopStandby)
	p := &pair{primary: primary, standby: standby}
	for _, c := range []struct {
		dst **pgxpool.Pool
		url string
	}{
		{&p.admin, primary.SocketURL("postgres", "postgres")},
		{&p.reads, standby.SocketURL("postgres", "postgres")},
		{&p.standbyAdmin, standby.SocketURL("postgres", "postgres")},
	} {
		pool, err := pg.Connect(ctx, c.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		*c.dst = pool
	}
	return p
}

// as is a request context of a caller with these claims.
func as(sub string, iat time.Time) context.Context {
	m := map[string]any{"role": "authenticated", "iat": json.Number("1")}
	if !iat.IsZero() {
		m["iat"] = json.Number(itoa(iat.Unix()))
	}
	if sub != "" {
		m["sub"] = sub
	}
	return jwt.NewContext(context.Background(), &jwt.Caller{Claims: &jwt.Claims{Role: "authenticated", Subject: sub, Map: m}})
}

// value reads a counter or gauge.
func value(m prometheus.Metric) float64 {
	var d dto.Metric
	if err := m.Write(&d); err != nil {
		panic(err)
	}
	if d.Counter != nil {
		return d.Counter.GetValue()
	}
	return d.Gauge.GetValue()
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// eventually polls cond for up to d.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(10 * time.Millisecond) {

		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, d)
		}
	}
}

func count(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), "SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func exec(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// logBuf collects a router's log lines.
type logBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestRouting(t *testing.T) {
	p := startPair(t)
	exec(t, p.admin, "CREATE TABLE t (v text)")
	logs := &logBuf{}
	cfg := Config{MaxLag: 1500 * time.Millisecond, Poll: 20 * time.Millisecond}
	a := New(cfg, p.admin, p.reads, slog.New(slog.NewJSONHandler(logs, nil)))
	t.Cleanup(a.Close)
	b := New(cfg, p.admin, p.reads, nil) // a second node
	t.Cleanup(b.Close)
	old := time.Now().Add(-time.Hour)
	anyone := as("", old)

	// An idle replica catches up with the primary: reads go to it.
	eventually(t, 10*time.Second, "replica in use on both nodes", func() bool {
		return a.ReadPool(anyone) == p.reads && b.ReadPool(anyone) == p.reads
	})
	eventually(t, 5*time.Second, "table replicated", func() bool {
		var ok bool
		_ = p.reads.QueryRow(context.Background(), "SELECT to_regclass('t') IS NOT NULL").Scan(&ok)
		return ok
	})

	// With replay paused, a row written on the primary is not on the pool
	// reads get: they really run on the replica.
	exec(t, p.standbyAdmin, "SELECT pg_wal_replay_pause()")
	exec(t, p.admin, "INSERT INTO t VALUES ('x')")
	if pool := a.ReadPool(as("reader", old)); pool != p.reads || count(t, pool) != 0 {
		t.Fatalf("a reader who wrote nothing should read the (stale) replica")
	}

	// A writer reads its own write on its node, and on the other node once
	// the announcement sent in its transaction has committed.
	writer := as("writer", old)
	tx, err := p.admin.Begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sql, args := a.WriteNotice(writer)
	if _, err := tx.Exec(context.Background(), "INSERT INTO t VALUES ('mine')"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(context.Background(), sql, args...); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.Wrote(writer)
	pinned := value(a.m.pinned)
	if pool := a.ReadPool(writer); pool != nil {
		t.Error("node a: the writer's read went to the replica")
	}
	if value(a.m.pinned) != pinned+1 {
		t.Error("pinned read not counted")
	}
	eventually(t, time.Second, "node b hears the write", func() bool { return b.ReadPool(writer) == nil })
	if b.ReadPool(as("reader", old)) != p.reads {
		t.Error("node b: another user's read left the replica")
	}
	// A token issued just now (sign-up, sign-in) reads from the primary.
	if a.ReadPool(as("newcomer", time.Now())) != nil {
		t.Error("a fresh token's read went to the replica")
	}

	// Writes through other services are marked after the response.
	h := a.MarkWrites(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	req := httptest.NewRequest("POST", "/object", nil).WithContext(as("uploader", old))
	h.ServeHTTP(httptest.NewRecorder(), req)
	if a.ReadPool(as("uploader", old)) != nil {
		t.Error("node a: a service write did not pin the caller")
	}
	eventually(t, time.Second, "node b hears the service write", func() bool { return b.ReadPool(as("uploader", old)) == nil })

	// Past the maximum lag every read falls back to the primary, counted
	// and logged once.
	lagged := value(a.m.fallbacks.WithLabelValues("lag"))
	eventually(t, 5*time.Second, "lag fallback", func() bool { return a.ReadPool(as("reader", old)) == nil })
	if value(a.m.fallbacks.WithLabelValues("lag")) <= lagged {
		t.Error("lag fallback not counted")
	}
	eventually(t, time.Second, "lag logged", func() bool { return strings.Contains(logs.String(), "read replica behind") })

	// Replay resumes: everyone is back on the replica, the writer too, and
	// the replica has its write.
	exec(t, p.standbyAdmin, "SELECT pg_wal_replay_resume()")
	eventually(t, 5*time.Second, "writer back on the replica", func() bool {
		return a.ReadPool(writer) == p.reads && b.ReadPool(writer) == p.reads
	})
	if n := count(t, p.reads); n != 2 {
		t.Errorf("replica has %d rows, want 2", n)
	}
	if lag := value(a.m.lag); lag < 0 || lag > cfg.MaxLag.Seconds() {
		t.Errorf("lag gauge %v", lag)
	}

	// The replica goes away: reads fall back, counted and logged.
	unavailable := value(a.m.fallbacks.WithLabelValues("unavailable"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := p.standby.Stop(ctx, "fast"); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "fallback when the replica is gone", func() bool { return a.ReadPool(anyone) == nil })
	if value(a.m.fallbacks.WithLabelValues("unavailable")) <= unavailable || value(a.m.up) != 0 {
		t.Error("unavailable fallback not counted or up gauge still 1")
	}
	eventually(t, time.Second, "down logged", func() bool { return strings.Contains(logs.String(), "read replica unavailable") })
}

func TestReadFailed(t *testing.T) {
	r := &Router{m: newMetrics(), log: slog.New(slog.DiscardHandler)}
	r.poll.Store(&pollState{up: true, caughtUp: time.Now()})
	for _, c := range []struct {
		err   error
		lost  bool
		retry bool
	}{
		{&pgconn.PgError{Code: "42P01"}, false, true},  // table not replayed yet
		{&pgconn.PgError{Code: "40001"}, false, true},  // conflict with recovery
		{&pgconn.PgError{Code: "22P02"}, false, false}, // the caller's bad input
		{errors.New("unexpected EOF"), true, true},
		{&pgconn.PgError{Code: "57P03"}, false, true}, // the standby is starting up
	} {
		if got := r.ReadFailed(c.err, c.lost); got != c.retry {
			t.Errorf("ReadFailed(%v, %v) = %v", c.err, c.lost, got)
		}
	}
	if r.poll.Load().up {
		t.Error("a lost connection left the replica in use")
	}
}

func TestParseLSN(t *testing.T) {
	for in, want := range map[string]uint64{"0/0": 0, "16/B374D848": 0x16_B374D848, "FFFFFFFF/FFFFFFFF": 1<<64 - 1} {
		if got, err := parseLSN(in); err != nil || got != want {
			t.Errorf("parseLSN(%q) = %x, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "16", "x/1", "1/100000000"} {
		if _, err := parseLSN(bad); err == nil {
			t.Errorf("parseLSN(%q) accepted", bad)
		}
	}
	// An insert position just past a page header is the end of the record
	// that filled the page before it.
	const block, segment = 8192, 16 << 20
	for in, want := range map[uint64]uint64{
		3*block + 24:     3 * block,
		3*block + 100:    3*block + 100,
		2*segment + 40:   2 * segment,
		5*segment + 8216: 5*segment + 8192,
	} {
		if got := recordEnd(in, block, segment); got != want {
			t.Errorf("recordEnd(%d) = %d, want %d", in, got, want)
		}
	}
}
