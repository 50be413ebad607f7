// Command studio measures Studio's table editor on a big table: the first
// page of a 1-million-row table as the editor asks for it (GET
// /api/rows/{schema}/{table}, the handler called in process, so the figure
// is the server's time), against the same SQL run with pgx in the same run:
// the statements Studio sent, recorded by a tracer on its pool and replayed
// as they were. The goal is under 300 ms of server time per page.
//
//	go run ./bench/studio            # 1,000,000 rows; 2 s per side, concurrency 1
//	go run ./bench/studio -smoke     # 20,000 rows; a few seconds (CI; BENCH_SMOKE=1 too)
//	go run ./bench/studio -rows 10000000 -d 5s
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/studio"
)

// goal is the server time a first page should stay under.
const goal = 300 * time.Millisecond

const schema = `
CREATE TABLE public.bench_tracks (
  id bigint PRIMARY KEY,
  title text NOT NULL,
  genre text NOT NULL,
  plays int NOT NULL,
  public boolean NOT NULL,
  created_at timestamptz NOT NULL,
  meta jsonb NOT NULL
);
INSERT INTO public.bench_tracks
SELECT g, 'track ' || g, (ARRAY['afrobeats', 'highlife', 'gospel', 'fuji', 'juju'])[1 + g % 5], ((g::bigint * 7919) % 100000)::int,
  g % 3 <> 0, '2020-01-01'::timestamptz + g * interval '1 minute', jsonb_build_object('bpm', 60 + g % 120)
FROM generate_series(1, $ROWS) g;
CREATE INDEX bench_tracks_created_idx ON public.bench_tracks (created_at);
ALTER TABLE public.bench_tracks ENABLE ROW LEVEL SECURITY;
CREATE POLICY "public tracks" ON public.bench_tracks FOR SELECT TO anon USING (public);
GRANT SELECT ON public.bench_tracks TO anon;
`

// cases are the pages the editor asks for most.
var cases = []struct{ name, query string }{
	{"first page, by primary key", "limit=100"},
	{"first page, sorted on an indexed column", "limit=100&order=created_at.desc"},
	{"first page, filtered (ilike)", "limit=100&title=ilike.*99*"},
	{"first page, viewed as anon (RLS)", "limit=100&role=anon"},
}

// recorder keeps the statements of the page a request sent.
type recorder struct {
	mu    sync.Mutex
	on    bool
	stmts []stmt
}

type stmt struct {
	sql  string
	args []any
}

func (r *recorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.mu.Lock()
	if r.on {
		r.stmts = append(r.stmts, stmt{d.SQL, d.Args})
	}
	r.mu.Unlock()
	return ctx
}

func (r *recorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// record returns the statements fn made Studio send.
func (r *recorder) record(fn func() error) ([]stmt, error) {
	r.mu.Lock()
	r.on, r.stmts = true, nil
	r.mu.Unlock()
	err := fn()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	return r.stmts, err
}

func main() {
	rows := flag.Int("rows", 1_000_000, "rows in the table")
	opts := bench.ParseFlagsFor(1, 2*time.Second)
	if opts.Smoke {
		*rows = 20_000
	}
	if err := run(context.Background(), opts, *rows); err != nil {
		log.Fatal("bench/studio: ", err)
	}
}

func run(ctx context.Context, opts bench.Options, rows int) error {
	admin, user, stop, err := bench.PlatformPools(ctx, "bstudio", map[string]string{"shared_buffers": "256MB"}, 4)
	if err != nil {
		return err
	}
	defer stop()
	start := time.Now()
	if _, err := admin.Exec(ctx, strings.Replace(schema, "$ROWS", strconv.Itoa(rows), 1)); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if _, err := admin.Exec(ctx, `VACUUM ANALYZE public.bench_tracks`); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	fmt.Printf("seeded %d rows in %s\n", rows, time.Since(start).Round(time.Millisecond))

	// Studio's pools record what it sends; the baseline replays it on other
	// pools of the same database.
	rec := &recorder{}
	traced := func(p *pgxpool.Pool) (*pgxpool.Pool, error) {
		cfg, err := pgxpool.ParseConfig(p.Config().ConnString())
		if err != nil {
			return nil, err
		}
		cfg.MaxConns = 4
		cfg.ConnConfig.Tracer = rec
		return pgxpool.NewWithConfig(ctx, cfg)
	}
	tracedAdmin, err := traced(admin)
	if err != nil {
		return err
	}
	defer tracedAdmin.Close()
	tracedUser, err := traced(user)
	if err != nil {
		return err
	}
	defer tracedUser.Close()
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		return err
	}
	svc, err := studio.New(ctx, studio.Config{Enabled: true, StatementTimeout: 30 * time.Second, RowCap: 1000, MaxQueryBytes: 1 << 20},
		studio.Deps{Admin: tracedAdmin, User: tracedUser, Keys: keys})
	if err != nil {
		return err
	}
	pageOp := func(query string) bench.Op {
		return func(ctx context.Context) (int64, error) {
			req := httptest.NewRequestWithContext(ctx, "GET", "http://127.0.0.1/api/rows/public/bench_tracks?"+query, nil)
			req.Header.Set("apikey", keys.ServiceRoleKey)
			w := httptest.NewRecorder()
			svc.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				return 0, fmt.Errorf("status %d: %.300s", w.Code, w.Body.String())
			}
			return int64(w.Body.Len()), nil
		}
	}

	var comps []bench.Comparison
	var over []string
	for _, c := range cases {
		op := pageOp(c.query)
		stmts, err := rec.record(func() error { return checkPage(ctx, svc, keys, c.query) })
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		// The page's own statements: everything but Studio's session and
		// role bookkeeping, replayed as they were sent.
		var page []stmt
		for _, s := range stmts {
			if strings.Contains(s.sql, "json_agg(p)") || strings.Contains(s.sql, "SELECT 1 FROM") || strings.Contains(s.sql, "reltuples") {
				page = append(page, s)
			}
		}
		if len(page) == 0 {
			return fmt.Errorf("%s: no page statement was recorded", c.name)
		}
		asAnon := strings.Contains(c.query, "role=anon")
		base := bench.Run(ctx, "pgx", opts, func(ctx context.Context) (int64, error) {
			return replay(ctx, admin, user, asAnon, page)
		})
		cand := bench.Run(ctx, "studio", opts, op)
		comps = append(comps, bench.Comparison{Name: c.name, Baseline: base, Candidate: cand})
		if cand.P50 > goal {
			over = append(over, fmt.Sprintf("%s: p50 %s", c.name, cand.P50.Round(time.Millisecond)))
		}
	}
	if err := bench.Report(os.Stdout, opts, comps...); err != nil {
		return err
	}
	if len(over) > 0 {
		fmt.Printf("over the %s goal: %s\n", goal, strings.Join(over, "; "))
	} else {
		fmt.Printf("every first page under the %s goal\n", goal)
	}
	return nil
}

// checkPage calls the page once and fails when it is not a page of rows.
func checkPage(ctx context.Context, svc http.Handler, keys *jwt.Keys, query string) error {
	req := httptest.NewRequestWithContext(ctx, "GET", "http://127.0.0.1/api/rows/public/bench_tracks?"+query, nil)
	req.Header.Set("apikey", keys.ServiceRoleKey)
	w := httptest.NewRecorder()
	svc.ServeHTTP(w, req)
	var p struct {
		Rows  []json.RawMessage `json:"rows"`
		Count int64             `json:"count"`
	}
	if w.Code != http.StatusOK || json.Unmarshal(w.Body.Bytes(), &p) != nil || len(p.Rows) == 0 || p.Count == 0 {
		return fmt.Errorf("not a page of rows: %d %.300s", w.Code, w.Body.String())
	}
	return nil
}

// replay runs the recorded statements in one read-only transaction, as a
// page does: as the owner, or as anon through the caller primitive.
func replay(ctx context.Context, admin, user *pgxpool.Pool, asAnon bool, stmts []stmt) (int64, error) {
	var n int64
	run := func(tx pgx.Tx) error {
		for _, s := range stmts {
			rows, err := tx.Query(ctx, s.sql, s.args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				n += int64(len(rows.RawValues()[0]))
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	}
	if asAnon {
		c := pg.Caller{Role: "anon", Method: "GET", Path: "/bench_tracks", After: []pg.Setting{{Name: "transaction_read_only", Value: "on"}}}
		return n, pg.AsCaller(ctx, user, c, run)
	}
	return n, pgx.BeginTxFunc(ctx, admin, pgx.TxOptions{AccessMode: pgx.ReadOnly}, run)
}
