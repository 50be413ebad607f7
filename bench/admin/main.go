// Command admin measures the admin dashboard's lists on a large database:
// every admin list query (keyset-paginated admin_* functions, called as a
// signed-in admin through the authenticator role, as the REST layer calls
// them) against a plain indexed read of a page of the same table, in the
// same run. The goal is under 50 ms of database time per list page.
//
//	go run ./bench/admin            # 100k users, 1M streams; 2 s per side
//	go run ./bench/admin -smoke     # 2k users, 20k streams; a few seconds (CI; BENCH_SMOKE=1 too)
//	go run ./bench/admin -users 20000 -streams 200000 -d 5s
//
// Concurrency defaults to 1: with no queueing, a call's latency over the
// local socket is its database time plus a few tens of microseconds.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/bench/appseed"
	"github.com/basaltdev/basalt/internal/pg"
)

// goal is the database time a list page should stay under.
const goal = 50 * time.Millisecond

func main() {
	users := flag.Int("users", 100_000, "users to seed")
	streams := flag.Int("streams", 1_000_000, "streams to seed")
	tracks := flag.Int("tracks", 5_000, "tracks to seed")
	dsn := flag.String("dsn", "", "owner URL of a migrated, empty database (default: a throwaway cluster)")
	userDSN := flag.String("user-dsn", "", "URL of the same database as the authenticator role (with -dsn)")
	opts := bench.ParseFlagsFor(1, 2*time.Second)
	sz := appseed.Full
	sz.Users, sz.Streams, sz.Tracks = *users, *streams, *tracks
	if opts.Smoke {
		sz = appseed.Smoke
	}
	ctx := context.Background()
	adminURL, userURL, stop, err := bench.AppDatabase(ctx, "badm", map[string]string{"shared_buffers": "256MB", "work_mem": "16MB"}, *dsn, *userDSN)
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
	owner, users, err := appseed.Open(ctx, adminURL, userURL, int32(opts.Concurrency)+1, sz)
	if err != nil {
		return err
	}
	defer owner.Close()
	defer users.Close()

	var (
		midUser, midStream, midTx [2]any
		heavySponsor, busyTrack   string
	)
	// Cursors in the middle of the big tables: a deep page costs what the
	// first does when the list walks an index.
	for _, q := range []struct {
		sql  string
		dest []any
	}{
		{`SELECT created_at, id FROM public.public_profiles ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT 1`, []any{&midUser[0], &midUser[1]}},
		{`SELECT created_at, id::text FROM public.streams ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT 1`, []any{&midStream[0], &midStream[1]}},
		{`SELECT created_at, id FROM public.transactions ORDER BY created_at DESC, id DESC OFFSET $1 LIMIT 1`, []any{&midTx[0], &midTx[1]}},
	} {
		if err := owner.QueryRow(ctx, q.sql, sz.Users/2).Scan(q.dest...); err != nil {
			return fmt.Errorf("cursor: %w", err)
		}
	}
	if err := owner.QueryRow(ctx, `SELECT from_wallet::text FROM public.transactions WHERE kind = 'sponsored_stream'
		GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`).Scan(&heavySponsor); err != nil {
		return err
	}
	if err := owner.QueryRow(ctx, `SELECT id::text FROM public.tracks ORDER BY streams DESC LIMIT 1`).Scan(&busyTrack); err != nil {
		return err
	}
	admin := adminCaller()
	fan := appseed.UserID(2)
	streamKey := fmt.Sprintf("s:%s", midStream[1])

	var cmp []bench.Comparison
	over := map[string]time.Duration{}
	for _, c := range cases(midUser, midStream, midTx, streamKey, heavySponsor, busyTrack, fan) {
		base := bench.Run(ctx, "plain read", opts, func(ctx context.Context) (int64, error) {
			return bench.Rows(ctx, owner, c.base, c.baseArgs...)
		})
		cand := bench.Run(ctx, c.fn, opts, func(ctx context.Context) (int64, error) {
			var n int64
			err := pg.AsCaller(ctx, users, admin, func(tx pgx.Tx) error {
				var err error
				n, err = bench.Rows(ctx, tx, c.sql, c.args...)
				return err
			})
			if err == nil && n == 0 && !c.mayBeEmpty {
				err = fmt.Errorf("%s returned no rows", c.fn)
			}
			return n, err
		})
		if cand.P50 > goal && !c.notAList {
			over[c.name] = cand.P50
		}
		cmp = append(cmp, bench.Comparison{Name: c.name, Baseline: base, Candidate: cand})
	}
	err = bench.Report(os.Stdout, opts, cmp...)
	bench.ReportGoal(os.Stdout, goal, over, "list page")
	return err
}

// adminCaller is user 1, the seeded admin, as the REST layer presents it.
func adminCaller() pg.Caller {
	claims, _ := json.Marshal(map[string]string{"sub": appseed.UserID(1), "role": "authenticated"})
	return pg.Caller{Role: "authenticated", Claims: claims, Headers: []byte(`{"x-real-ip": "127.0.0.1"}`)}
}
