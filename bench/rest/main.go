// Command rest measures the /rest/v1 service against its ceiling: for each
// case, the exact SQL statement the service generates is also executed with
// pgx directly in the same run (no HTTP, no per-request transaction, no role
// switch), and the ratio of the two throughputs is reported. Cases: one row
// by primary key, 100 rows, 100 rows with a many-to-one embed, a one-row
// insert and an RPC call. A throwaway PostgreSQL cluster is started for the
// run.
//
//	go run ./bench/rest            # 5 s per side, concurrency 32
//	go run ./bench/rest -smoke     # CI: a fraction of a second per side
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/rest"
	"github.com/basaltdev/basalt/sql/platform"
)

const schema = `
CREATE TABLE bench_owners (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE bench_items (
  id serial PRIMARY KEY,
  owner_id int NOT NULL REFERENCES bench_owners(id),
  title text NOT NULL,
  plays int NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO bench_owners SELECT g, 'owner ' || g FROM generate_series(1, 50) g;
INSERT INTO bench_items(owner_id, title, plays) SELECT 1 + g % 50, 'track ' || g, g FROM generate_series(1, 10000) g;
CREATE FUNCTION bench_add(a int, b int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT a + b $$;
GRANT SELECT ON bench_owners TO anon;
GRANT SELECT, INSERT ON bench_items TO anon;
GRANT USAGE ON SEQUENCE bench_items_id_seq TO anon;
ANALYZE;
`

var (
	cpuProfile       = flag.String("cpuprofile", "", "write a CPU profile of the REST side to this file")
	profileCase      = flag.String("profilecase", "one row", "name prefix of the case -cpuprofile records")
	profileInProcess = flag.Bool("profileinprocess", false, "with -cpuprofile and -inprocess, also profile the in-process side (to <file>.inprocess)")
	inProcess        = flag.Bool("inprocess", false, "also measure the service called in-process (no HTTP)")
	dbFloor          = flag.Bool("dbfloor", true, "also measure the service's own statements (setup + main) via pgx as the authenticator")
	floor            = flag.Bool("floor", true, "also measure a bare HTTP handler answering the same bytes")
)

func main() {
	opts := bench.ParseFlags(32)
	if err := run(opts); err != nil {
		fmt.Fprintln(os.Stderr, "bench/rest:", err)
		os.Exit(1)
	}
}

func run(opts bench.Options) error {
	ctx := context.Background()
	c, stop, err := pgcluster.StartTemp(ctx, "brest", nil)
	if err != nil {
		return err
	}
	defer stop()
	if pid, ok := c.PID(); ok {
		bench.CountDatabaseCPU(pid)
	}

	conns := func(cfg *pgxpool.Config) { cfg.MaxConns = 8 }
	admin, err := pg.Connect(ctx, c.SocketURL("postgres", "postgres"), conns)
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := migrate.Up(ctx, admin, nil, migrate.Source{Name: "platform", FS: platform.FS}); err != nil {
		return err
	}
	if _, err := admin.Exec(ctx, schema); err != nil {
		return err
	}
	user, err := pg.Connect(ctx, c.SocketURL("authenticator", "postgres"), conns)
	if err != nil {
		return err
	}
	defer user.Close()

	// The hook records the statement of the request being primed.
	var mu sync.Mutex
	var lastSQL string
	var lastArgs []any
	hook := func(sql string, args []any) {
		mu.Lock()
		lastSQL, lastArgs = sql, args
		mu.Unlock()
	}
	var setupSQL string
	var setupArgs []any
	setupHook := func(sql string, args []any) {
		mu.Lock()
		setupSQL, setupArgs = sql, args
		mu.Unlock()
	}
	svc, err := rest.New(rest.Config{MaxRows: 1000}, user, admin, rest.WithStatementHook(hook), rest.WithSetupHook(setupHook))
	if err != nil {
		return err
	}
	defer svc.Close()
	srv := httptest.NewServer(svc)
	defer srv.Close()
	client := bench.HTTPClient(opts.Concurrency)

	type benchCase struct {
		name, method, path, body string
		status                   int
	}
	cases := []benchCase{
		{"one row by primary key", "GET", "/bench_items?id=eq.4242", "", 200},
		{"100 rows", "GET", "/bench_items?limit=100&order=id", "", 200},
		{"100 rows + many-to-one embed", "GET", "/bench_items?select=id,title,plays,bench_owners(name)&limit=100&order=id", "", 200},
		{"one-row insert", "POST", "/bench_items", `{"owner_id":7,"title":"new track","plays":1}`, 201},
		{"rpc call", "POST", "/rpc/bench_add", `{"a":20,"b":22}`, 200},
	}
	var comps []bench.Comparison
	for _, bc := range cases {
		newReq := func(ctx context.Context) (*http.Request, error) {
			r, err := http.NewRequestWithContext(ctx, bc.method, srv.URL+bc.path, strings.NewReader(bc.body))
			if err != nil {
				return nil, err
			}
			if bc.body != "" {
				r.Header.Set("Content-Type", "application/json")
			}
			return r, nil
		}
		restOp := bench.HTTPOp(client, bc.status, newReq)
		// Prime once to capture the statement the service generates (and
		// the response, which the bare-HTTP floor replays).
		primeRec := httptest.NewRecorder()
		primeReq, err := newReq(ctx)
		if err != nil {
			return err
		}
		svc.ServeHTTP(primeRec, primeReq)
		if primeRec.Code != bc.status {
			return fmt.Errorf("%s: status %d: %s", bc.name, primeRec.Code, primeRec.Body.String())
		}
		canned := primeRec.Body.Bytes()
		mu.Lock()
		sql, args := lastSQL, append([]any(nil), lastArgs...)
		mu.Unlock()
		direct := func(ctx context.Context) (int64, error) {
			var body []byte
			var total, page, inserted any
			var h, s *string
			err := admin.QueryRow(ctx, sql, args...).Scan(&total, &page, &body, &h, &s, &inserted)
			return int64(len(body)), err
		}
		base := bench.Run(ctx, "pgx direct", opts, direct)
		if *dbFloor {
			mu.Lock()
			ssql, sargs := setupSQL, append([]any(nil), setupArgs...)
			mu.Unlock()
			// The service's two statements in one batch: one round trip,
			// one implicit transaction, prepared once per connection by
			// pgx's statement cache, as the authenticator.
			dbside := bench.Run(ctx, "pgx, setup + main", opts, func(ctx context.Context) (int64, error) {
				b := &pgx.Batch{}
				b.Queue(ssql, sargs...)
				b.Queue(sql, args...)
				br := user.SendBatch(ctx, b)
				_, setupErr := br.Exec()
				var body []byte
				var total, page, inserted any
				var h, s *string
				mainErr := br.QueryRow().Scan(&total, &page, &body, &h, &s, &inserted)
				return int64(len(body)), errors.Join(setupErr, mainErr, br.Close())
			})
			comps = append(comps, bench.Comparison{Name: bc.name + " (db floor)", Baseline: base, Candidate: dbside})
		}
		profiling := *cpuProfile != "" && strings.HasPrefix(bc.name, *profileCase)
		stopProfile, err := startProfile(profiling, *cpuProfile)
		if err != nil {
			return err
		}
		cand := bench.Run(ctx, "rest (HTTP)", opts, restOp)
		stopProfile()
		comps = append(comps, bench.Comparison{Name: bc.name, Baseline: base, Candidate: cand})
		if *floor {
			// A bare handler answering the same bytes: what HTTP alone costs
			// on this machine, the real ceiling of any HTTP service.
			bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(bc.status)
				_, _ = w.Write(canned)
			}))
			bareOp := bench.HTTPOp(client, bc.status, func(ctx context.Context) (*http.Request, error) {
				return http.NewRequestWithContext(ctx, bc.method, bare.URL+bc.path, strings.NewReader(bc.body))
			})
			fl := bench.Run(ctx, "bare HTTP, same bytes", opts, bareOp)
			bare.Close()
			comps = append(comps, bench.Comparison{Name: bc.name + " (vs HTTP floor)", Baseline: fl, Candidate: cand})
		}
		if *inProcess {
			// The service without HTTP: what the transport costs.
			stopProfile, err := startProfile(profiling && *profileInProcess, *cpuProfile+".inprocess")
			if err != nil {
				return err
			}
			inproc := bench.Run(ctx, "rest (in-process)", opts, func(ctx context.Context) (int64, error) {
				r, err := newReq(ctx)
				if err != nil {
					return 0, err
				}
				w := httptest.NewRecorder()
				svc.ServeHTTP(w, r)
				if w.Code != bc.status {
					return 0, fmt.Errorf("status %d: %s", w.Code, w.Body.String())
				}
				return int64(w.Body.Len()), nil
			})
			stopProfile()
			comps = append(comps, bench.Comparison{Name: bc.name + " (no HTTP)", Baseline: base, Candidate: inproc})
		}
	}
	return bench.Report(os.Stdout, opts, comps...)
}

// startProfile starts a CPU profile into path when on; the returned func
// stops it.
func startProfile(on bool, path string) (func(), error) {
	if !on {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}
