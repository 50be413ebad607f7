package rest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pgtest"
)

// schemaLoads counts the catalogue reads (the tables query starts each
// schema cache load) made through a pool.
type schemaLoads struct{ n atomic.Int32 }

func (c *schemaLoads) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if d.SQL == tablesSQL {
		c.n.Add(1)
	}
	return ctx
}

func (c *schemaLoads) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// waitReadable waits until GET path answers 200.
func waitReadable(t *testing.T, e *env, path string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		w := e.do(t, call{target: path})
		if w.Code == 200 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became readable: %d %s", path, w.Code, w.Body.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestStartLoadsSchemaOnce: starting the service reads the catalogue once
// (the listener's first connect does not load it again), and a change made
// right after New, before anything else, still reaches the cache.
func TestStartLoadsSchemaOnce(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	ctx := context.Background()
	if _, err := db.Admin.Exec(ctx, fixtureSQL); err != nil {
		t.Fatalf("load fixture: %v", err)
	}
	cfg := db.Admin.Config().Copy()
	loads := &schemaLoads{}
	cfg.ConnConfig.Tracer = loads
	admin, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()

	svc, err := New(testConfig(), db.User, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	e := &env{db: db, svc: svc}
	// Once the service LISTENs, a change is heard and loaded: one load
	// at start, one for the change.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var n int
		if err := db.Admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND state = 'idle' AND query ILIKE 'LISTEN%pgrst%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the service never LISTENed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := db.Admin.Exec(ctx, `CREATE TABLE late (id int PRIMARY KEY); GRANT SELECT ON late TO anon`); err != nil {
		t.Fatal(err)
	}
	waitReadable(t, e, "/late")
	if n := loads.n.Load(); n != 2 {
		t.Fatalf("schema loaded %d times, want 2 (start, then the change)", n)
	}

	// A change made right after New returns is not missed.
	second, err := New(testConfig(), db.User, admin)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	if _, err := db.Admin.Exec(ctx, `CREATE TABLE early (id int PRIMARY KEY); GRANT SELECT ON early TO anon`); err != nil {
		t.Fatal(err)
	}
	waitReadable(t, &env{db: db, svc: second}, "/early")
}
