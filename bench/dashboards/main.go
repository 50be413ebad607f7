// Command dashboards measures the artist, sponsor and fan dashboards'
// queries on a large database (the data of bench/admin: 100k users, 1M
// streams): each RPC exactly as the app sends it, through the REST service
// in process as the signed-in user, against a plain indexed read of the
// same user's rows in the same run. The statement each request runs is also
// run once with auto_explain, and every statement it executes (functions'
// inner statements included) must read the big tables through an index and
// only for the rows it wants: a sequential scan of one, or an index read
// that throws more than a thousand rows away, fails the run.
//
//	go run ./bench/dashboards            # 100k users, 1M streams; 2 s per side
//	go run ./bench/dashboards -smoke     # 2k users, 20k streams; a few seconds (CI; BENCH_SMOKE=1 too)
//	go run ./bench/dashboards -users 20000 -streams 200000 -d 5s
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/bench/appseed"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/rest"
)

// bigTable is the size from which a sequential scan fails the check.
const bigTable = 10_000

func main() {
	users := flag.Int("users", appseed.Full.Users, "users to seed")
	streams := flag.Int("streams", appseed.Full.Streams, "streams to seed")
	tracks := flag.Int("tracks", appseed.Full.Tracks, "tracks to seed")
	dsn := flag.String("dsn", "", "owner (superuser) URL of a migrated, empty database (default: a throwaway cluster)")
	userDSN := flag.String("user-dsn", "", "URL of the same database as the authenticator role (with -dsn)")
	opts := bench.ParseFlagsFor(1, 2*time.Second)
	sz := appseed.Full
	sz.Users, sz.Streams, sz.Tracks = *users, *streams, *tracks
	if opts.Smoke {
		sz = appseed.Smoke
	}
	ctx := context.Background()
	adminURL, userURL, stop, err := bench.AppDatabase(ctx, "bdash", map[string]string{"shared_buffers": "256MB", "work_mem": "16MB"}, *dsn, *userDSN)
	if err != nil {
		log.Fatal(err)
	}
	err = run(ctx, opts, sz, adminURL, userURL)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, opts bench.Options, sz appseed.Sizes, adminURL, userURL string) error {
	// The REST service keeps one owner connection listening for schema
	// reloads.
	owner, users, err := appseed.Open(ctx, adminURL, userURL, int32(opts.Concurrency)+2, sz)
	if err != nil {
		return err
	}
	defer owner.Close()
	defer users.Close()

	who, err := pickUsers(ctx, owner)
	if err != nil {
		return err
	}
	log.Printf("artist %s (%d credits), sponsor %s (%d payments), fan %s (%d streams)",
		who.artist, who.artistRows, who.sponsor, who.sponsorRows, who.fan, who.fanRows)
	big, err := bench.BigTables(ctx, owner, bigTable)
	if err != nil {
		return err
	}

	// The statement hook keeps the last request's main statement, for the
	// plan check.
	var mu sync.Mutex
	var lastSQL string
	var lastArgs []any
	svc, err := rest.New(rest.Config{}, users, owner, rest.WithStatementHook(func(sql string, args []any) {
		mu.Lock()
		lastSQL, lastArgs = sql, args
		mu.Unlock()
	}))
	if err != nil {
		return err
	}
	defer svc.Close()

	var cmp []bench.Comparison
	var scans []string
	for _, c := range cases(who, time.Now()) {
		call := restCall(svc, c)
		if _, err := call(ctx); err != nil {
			return err
		}
		mu.Lock()
		sql, args := lastSQL, append([]any(nil), lastArgs...)
		mu.Unlock()
		found, err := bench.SeqScans(ctx, adminURL, callerFor(c.as), big, sql, args...)
		if err != nil {
			return fmt.Errorf("%s: plan check: %w", c.name, err)
		}
		if len(found) > 0 {
			scans = append(scans, fmt.Sprintf("%s: %s", c.name, strings.Join(found, ", ")))
		}
		base := bench.Run(ctx, "plain read", opts, func(ctx context.Context) (int64, error) {
			return bench.Rows(ctx, owner, c.base, c.as)
		})
		cand := bench.Run(ctx, c.fn, opts, call)
		cmp = append(cmp, bench.Comparison{Name: c.name, Baseline: base, Candidate: cand})
	}
	err = bench.Report(os.Stdout, opts, cmp...)
	if len(scans) > 0 {
		fmt.Printf("reads of tables over %d rows not through an index, or filtering rows out:\n  %s\n", bigTable, strings.Join(scans, "\n  "))
		if err == nil {
			err = fmt.Errorf("%d queries read a big table without a fitting index", len(scans))
		}
	} else {
		fmt.Printf("every statement of every query reads the tables over %d rows through an index, for the rows it wants\n", bigTable)
	}
	return err
}

// subjects are the users whose dashboards are measured: the artist with the
// most sponsored-stream credits, the sponsor with the most payments and the
// fan with the most streams.
type subjects struct {
	artist, sponsor, fan             string
	artistRows, sponsorRows, fanRows int64
}

func pickUsers(ctx context.Context, q *pgxpool.Pool) (subjects, error) {
	var s subjects
	for _, p := range []struct {
		sql string
		id  *string
		n   *int64
	}{
		{`SELECT to_wallet::text, count(*) FROM public.transactions WHERE kind = 'sponsored_stream' GROUP BY 1 ORDER BY 2 DESC LIMIT 1`, &s.artist, &s.artistRows},
		{`SELECT from_wallet::text, count(*) FROM public.transactions WHERE kind = 'sponsored_stream' GROUP BY 1 ORDER BY 2 DESC LIMIT 1`, &s.sponsor, &s.sponsorRows},
		{`SELECT s.user_id::text, count(*) FROM public.streams s JOIN public.public_profiles p ON p.id = s.user_id
			WHERE p.role = 'fan' GROUP BY 1 ORDER BY 2 DESC LIMIT 1`, &s.fan, &s.fanRows},
	} {
		if err := q.QueryRow(ctx, p.sql).Scan(p.id, p.n); err != nil {
			return s, fmt.Errorf("pick users: %w", err)
		}
	}
	return s, nil
}

// claimsOf is a signed-in user's verified token, as the gateway hands it on.
func claimsOf(uid string) *jwt.Claims {
	m := map[string]any{"sub": uid, "role": "authenticated"}
	raw, _ := json.Marshal(m)
	return &jwt.Claims{Role: "authenticated", Subject: uid, Raw: raw, Map: m}
}

// callerFor is the same user as the database sees them.
func callerFor(uid string) pg.Caller {
	return pg.Caller{Role: "authenticated", Claims: claimsOf(uid).Raw}
}

// restCall sends c's request to the REST service in process (no HTTP), with
// the user's claims where the gateway puts them, and returns the body size.
func restCall(svc http.Handler, c benchCase) bench.Op {
	caller := &jwt.Caller{Token: "bench", Claims: claimsOf(c.as)}
	body := c.bodyOf()
	return func(ctx context.Context) (int64, error) {
		req := httptest.NewRequestWithContext(jwt.NewContext(ctx, caller), http.MethodPost, "/rpc/"+c.fn, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		svc.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			return 0, fmt.Errorf("%s: %s: %d %s", c.name, c.fn, rec.Code, rec.Body.String())
		}
		if b := rec.Body.String(); b == "[]" || b == "null" {
			return 0, fmt.Errorf("%s: empty answer", c.name)
		}
		return int64(rec.Body.Len()), nil
	}
}
