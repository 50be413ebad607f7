package accesslog

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func count(t *testing.T, db *pgtest.DB) int {
	t.Helper()
	var n int
	if err := db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM basalt.access_logs`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWritesInBatches: entries land in basalt.access_logs with every
// field, the node's name, and the written counter.
func TestWritesInBatches(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	reg := prometheus.NewRegistry()
	w, err := New(db.Admin, Config{Node: "node-a:8000", Batch: 10}, nil, reg)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC().Truncate(time.Microsecond)
	for i := range 25 {
		w.Add(Entry{At: at, RequestID: fmt.Sprintf("req-%d", i), Service: "rest", Method: "GET", Path: "/rest/v1/t",
			Query: "select=id", Status: 404, Bytes: 12, DurationMS: 1.5, ClientIP: "10.0.0.1", UserAgent: "ua",
			UserID: "u1", Role: "authenticated"})
	}
	w.Close()
	if n := count(t, db); n != 25 {
		t.Fatalf("%d rows, want 25", n)
	}
	var node, svc, path, user, role string
	var status int
	var got time.Time
	if err := db.Admin.QueryRow(context.Background(), `SELECT node, service, path, status, user_id, role, at
		FROM basalt.access_logs WHERE request_id = 'req-7'`).Scan(&node, &svc, &path, &status, &user, &role, &got); err != nil {
		t.Fatal(err)
	}
	if node != "node-a:8000" || svc != "rest" || path != "/rest/v1/t" || status != 404 || user != "u1" || role != "authenticated" || !got.Equal(at) {
		t.Errorf("row: %s %s %s %d %s %s %v", node, svc, path, status, user, role, got)
	}
	mfs, _ := reg.Gather()
	names := map[string]float64{}
	for _, mf := range mfs {
		names[mf.GetName()] = mf.GetMetric()[0].GetCounter().GetValue()
	}
	if names["basalt_access_log_written_total"] != 25 || names["basalt_access_log_dropped_total"] != 0 {
		t.Errorf("counters %v", names)
	}
}

// TestNeverBlocks: while the table is locked (the database cannot keep
// up), Add still returns at once; entries past the queue are dropped and
// counted, the rest are written once the lock goes.
func TestNeverBlocks(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	tx, err := db.Admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE basalt.access_logs IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	w, err := New(db.Admin, Config{Queue: 5, Batch: 1, Every: time.Millisecond}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for i := range 1000 {
		w.Add(Entry{At: time.Now(), RequestID: fmt.Sprint(i), Status: 200})
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("1000 Adds took %v while the table was locked", d)
	}
	// At most the queue and the batch being written are kept.
	if dropped := w.Dropped(); dropped < 1000-6 {
		t.Fatalf("dropped %v, want at least %d", dropped, 1000-6)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if n, dropped := count(t, db), w.Dropped(); float64(n)+dropped != 1000 || n == 0 {
		t.Fatalf("%d rows written and %v dropped, want 1000 in all and some written", n, dropped)
	}
}

// TestIdleHoldsNoQueue: a writer takes memory for entries as they come, not
// for its whole queue when it starts: an idle node holds none of the 10,000
// entries (1.9 MB) the default queue may hold. Not parallel: it reads the
// process's allocation count.
func TestIdleHoldsNoQueue(t *testing.T) {
	db := pgtest.NewDB(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w, err := New(db.Admin, Config{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	defer w.Close()
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Fatalf("New allocated %d bytes, want under 64 KB", n)
	}
}

// TestRetention: the sweep deletes rows older than the retention, then all
// but the newest MaxRows.
func TestRetention(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	if _, err := db.Admin.Exec(ctx, `INSERT INTO basalt.access_logs (at, request_id, status)
		SELECT now() - make_interval(hours => g), 'r' || g, 200 FROM generate_series(0, 99) g ORDER BY g DESC`); err != nil {
		t.Fatal(err)
	}
	w, err := New(db.Admin, Config{Retention: 50 * time.Hour, MaxRows: 1000}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db); n != 50 {
		t.Fatalf("%d rows after the age sweep, want 50 (0h to 49h old)", n)
	}
	w.cfg.MaxRows = 20
	if err := w.sweep(ctx); err != nil {
		t.Fatal(err)
	}
	var n int
	var oldest string
	if err := db.Admin.QueryRow(ctx, `SELECT count(*), max(request_id::text) FILTER (WHERE at = (SELECT min(at) FROM basalt.access_logs)) FROM basalt.access_logs`).Scan(&n, &oldest); err != nil {
		t.Fatal(err)
	}
	if n != 20 || oldest != "r19" {
		t.Fatalf("%d rows, the oldest %s; want the newest 20 (r0 to r19)", n, oldest)
	}
}

// TestWritesNoWAL: a request's row costs no WAL (the table is unlogged, so
// no flush at commit and nothing for the realtime slot to decode). Not
// parallel: WAL is the whole cluster's, so the other tests wait.
func TestWritesNoWAL(t *testing.T) {
	db := pgtest.NewDB(t)
	ctx := context.Background()
	w, err := New(db.Admin, Config{Node: "node-a:8000", Batch: 100, Every: time.Millisecond}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	lsn := func() (l int64) {
		t.Helper()
		if err := db.Admin.QueryRow(ctx, `SELECT pg_current_wal_insert_lsn() - '0/0'`).Scan(&l); err != nil {
			t.Fatal(err)
		}
		return l
	}
	const rows = 1000
	before := lsn()
	for i := range rows {
		w.Add(Entry{At: time.Now(), RequestID: fmt.Sprintf("req-%d", i), Service: "rest", Method: "GET",
			Path: "/rest/v1/items", Query: "select=*&id=eq.1", Status: 200, Bytes: 120, DurationMS: 0.8,
			ClientIP: "10.0.0.1", UserAgent: "supabase-js/2.119.0", UserID: "u1", Role: "authenticated"})
	}
	w.Close()
	walled := lsn() - before
	if n := count(t, db); n != rows {
		t.Fatalf("%d rows, want %d", n, rows)
	}
	// Logged, each row costs its heap tuple and four index entries in WAL
	// (over 300 bytes); unlogged, only each batch's commit record is left.
	if perRow := float64(walled) / rows; perRow > 32 {
		t.Fatalf("%d bytes of WAL for %d rows (%.0f per row): the access log is written to WAL", walled, rows, perRow)
	}
}
