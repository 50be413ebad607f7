package copyqueue

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// line is a row the size of a function's log line (152 bytes).
type line struct {
	at                  time.Time
	fn, kind, requestID string
	level, message, pad string
	method, path        *string
	status              *int
	duration            *float64
}

func newTable(t *testing.T) *pgtest.DB {
	t.Helper()
	db := pgtest.NewDB(t)
	if _, err := db.Admin.Exec(context.Background(), `CREATE TABLE lines (id bigserial PRIMARY KEY, at timestamptz, fn text, message text)`); err != nil {
		t.Fatal(err)
	}
	return db
}

func config(written, dropped *atomic.Int64) Config[line] {
	return Config[line]{
		Table: pgx.Identifier{"lines"}, Columns: []string{"at", "fn", "message"},
		Row:     func(l line) []any { return []any{l.at, l.fn, l.message} },
		What:    "test lines",
		Written: func(n int) { written.Add(int64(n)) },
		Dropped: func(n int) { dropped.Add(int64(n)) },
	}
}

func count(t *testing.T, db *pgtest.DB) int {
	t.Helper()
	var n int
	if err := db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM lines`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWritesEveryRow: rows land in the table with their values, in batches
// of at most Batch, and Close writes the partial last one; a row added
// after Close is ignored.
func TestWritesEveryRow(t *testing.T) {
	t.Parallel()
	db := newTable(t)
	var written, dropped atomic.Int64
	cfg := config(&written, &dropped)
	cfg.Batch, cfg.Every = 10, time.Hour // only full batches and Close write
	w := New(db.Admin, cfg, nil)
	at := time.Now().UTC().Truncate(time.Microsecond)
	for i := range 25 {
		w.Add(line{at: at, fn: "f", message: fmt.Sprint("m", i)})
	}
	w.Close()
	w.Add(line{at: at, fn: "late"})
	if n := count(t, db); n != 25 {
		t.Fatalf("%d rows, want 25", n)
	}
	if written.Load() != 25 || dropped.Load() != 0 || w.Dropped() != 0 {
		t.Errorf("written %d, dropped %d (%d)", written.Load(), dropped.Load(), w.Dropped())
	}
	var got time.Time
	var msg string
	if err := db.Admin.QueryRow(context.Background(), `SELECT at, message FROM lines WHERE message = 'm17'`).Scan(&got, &msg); err != nil {
		t.Fatal(err)
	}
	if !got.Equal(at) {
		t.Errorf("at %v, want %v", got, at)
	}
}

// TestWritesPartialBatchOnTick: a batch that never fills is written within
// Every, without Close.
func TestWritesPartialBatchOnTick(t *testing.T) {
	t.Parallel()
	db := newTable(t)
	var written, dropped atomic.Int64
	cfg := config(&written, &dropped)
	cfg.Every = 20 * time.Millisecond
	w := New(db.Admin, cfg, nil)
	defer w.Close()
	w.Add(line{at: time.Now(), fn: "f", message: "one"})
	deadline := time.Now().Add(10 * time.Second)
	for written.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("a partial batch was not written within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := count(t, db); n != 1 {
		t.Fatalf("%d rows, want 1", n)
	}
}

// TestNeverBlocks: while the table is locked (the database cannot keep
// up), Add still returns at once; rows past the queue are dropped and
// counted, the rest are written once the lock goes.
func TestNeverBlocks(t *testing.T) {
	t.Parallel()
	db := newTable(t)
	ctx := context.Background()
	tx, err := db.Admin.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `LOCK TABLE lines IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	var written, dropped atomic.Int64
	cfg := config(&written, &dropped)
	cfg.Queue, cfg.Batch, cfg.Every = 5, 1, time.Millisecond
	w := New(db.Admin, cfg, nil)
	start := time.Now()
	for i := range 1000 {
		w.Add(line{at: time.Now(), message: fmt.Sprint(i)})
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("1000 Adds took %v while the table was locked", d)
	}
	// At most the queue and the batch being written are kept.
	if d := w.Dropped(); d < 1000-6 || dropped.Load() != d {
		t.Fatalf("dropped %d (told %d), want at least %d", d, dropped.Load(), 1000-6)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if n, d := count(t, db), w.Dropped(); int64(n)+d != 1000 || n == 0 || written.Load() != int64(n) {
		t.Fatalf("%d rows written (told %d) and %d dropped, want 1000 in all and some written", n, written.Load(), d)
	}
}

// TestFailedBatchCountsAsDropped: rows the database refuses are dropped and
// counted, and the writer goes on.
func TestFailedBatchCountsAsDropped(t *testing.T) {
	t.Parallel()
	db := newTable(t)
	var written, dropped atomic.Int64
	cfg := config(&written, &dropped)
	cfg.Columns = []string{"at", "fn", "no_such_column"}
	w := New(db.Admin, cfg, nil)
	for range 3 {
		w.Add(line{at: time.Now()})
	}
	w.Close()
	if dropped.Load() != 3 || w.Dropped() != 3 || written.Load() != 0 {
		t.Fatalf("dropped %d (%d), written %d; want 3 dropped", dropped.Load(), w.Dropped(), written.Load())
	}
}

// TestSweepRuns: the sweep runs on its period.
func TestSweepRuns(t *testing.T) {
	t.Parallel()
	db := newTable(t)
	var written, dropped atomic.Int64
	cfg := config(&written, &dropped)
	swept := make(chan struct{}, 1)
	cfg.SweepEvery = 10 * time.Millisecond
	cfg.Sweep = func(context.Context) error {
		select {
		case swept <- struct{}{}:
		default:
		}
		return nil
	}
	w := New(db.Admin, cfg, nil)
	defer w.Close()
	select {
	case <-swept:
	case <-time.After(10 * time.Second):
		t.Fatal("no sweep within 10 s")
	}
}

// TestIdleHoldsNoQueue: a writer takes memory for rows as they come, not
// for its whole queue when it starts: with the default queue of 10,000
// rows like these (1.5 MB) an idle node holds none of it. Not parallel: it
// reads the process's allocation count.
func TestIdleHoldsNoQueue(t *testing.T) {
	db := newTable(t)
	var written, dropped atomic.Int64
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w := New(db.Admin, config(&written, &dropped), nil)
	runtime.ReadMemStats(&after)
	defer w.Close()
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Fatalf("New allocated %d bytes, want under 64 KB", n)
	}
}
