// Command settlement measures Backline's sponsored-stream settlement: a fan
// records a stream (the stream trigger's checks and counters) and asks for
// the sponsor payment (settle_sponsored_stream: eligibility rules, then the
// ledger transfer), at a fixed concurrency. The baseline, measured in the
// same run on the same database and wallets, is the bare ledger transfer
// (transfer_funds). Both go through the authenticator role with per-request
// claims, as the REST layer does.
//
//	go run ./bench/settlement            # 5 s per side, 32 concurrent clients
//	go run ./bench/settlement -smoke     # a few seconds in all, for CI (BENCH_SMOKE=1 too)
//	go run ./bench/settlement -dsn <owner url> -user-dsn <authenticator url>  # an existing migrated database
//
// Without -dsn it starts a throwaway PostgreSQL cluster and applies the
// platform and app migrations.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/sql/platform"
)

func main() {
	pairs := flag.Int("pairs", 8, "sponsor/artist pairs the money moves between")
	fans := flag.Int("fans", 400, "fans streaming (each makes at most 25 valid streams an hour)")
	dsn := flag.String("dsn", "", "owner URL of a migrated database (default: a throwaway cluster)")
	userDSN := flag.String("user-dsn", "", "URL of the same database as the authenticator role (with -dsn)")
	opts := bench.ParseFlags(32)
	if opts.Smoke {
		*fans = 20
	}
	ctx := context.Background()
	adminURL, userURL, stop, err := database(ctx, *dsn, *userDSN)
	if err != nil {
		log.Fatal(err)
	}
	c, err := setup(ctx, adminURL, userURL, opts.Concurrency, *pairs, *fans)
	if err != nil {
		stop()
		log.Fatal(err)
	}
	base := bench.Run(ctx, "transfer_funds", opts, c.transfer)
	cand := bench.Run(ctx, "stream + settle", opts, c.settle)
	err = bench.Report(os.Stdout, opts, bench.Comparison{Name: "sponsored stream", Baseline: base, Candidate: cand})
	c.close()
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// database returns owner and authenticator URLs: the given database, or a
// fresh cluster with every migration applied.
func database(ctx context.Context, dsn, userDSN string) (adminURL, userURL string, stop func(), err error) {
	if dsn != "" {
		if userDSN == "" {
			return "", "", nil, errors.New("-dsn needs -user-dsn: the same database as the authenticator role")
		}
		return dsn, userDSN, func() {}, nil
	}
	c, stop, err := pgcluster.StartTemp(ctx, "bset", map[string]string{"max_connections": "200", "shared_buffers": "128MB"})
	if err != nil {
		return "", "", nil, err
	}
	if pid, ok := c.PID(); ok {
		bench.CountDatabaseCPU(pid)
	}
	adminURL = c.SocketURL("postgres", "postgres")
	pool, err := pg.Connect(ctx, adminURL, nil)
	if err != nil {
		stop()
		return "", "", nil, err
	}
	defer pool.Close()
	root, err := pgtest.ModuleRoot()
	if err != nil {
		stop()
		return "", "", nil, err
	}
	// migrate reads only the *.sql files; the folder's Go tests are skipped.
	app := os.DirFS(filepath.Join(root, "sql", "app"))
	if _, err := migrate.Up(ctx, pool, nil, migrate.Source{Name: "platform", FS: platform.FS},
		migrate.Source{Name: "app", FS: app}); err != nil {
		stop()
		return "", "", nil, fmt.Errorf("migrate: %w", err)
	}
	return adminURL, c.SocketURL("authenticator", "postgres"), stop, nil
}

// cast is the benchmark's data: sponsor/artist pairs with a sponsored
// track each, and fans with plays already 40 s old.
type cast struct {
	ctx   context.Context
	admin *pgxpool.Pool
	users *pgxpool.Pool
	runID int64
	pairs []pair
	fans  []fan
	next  atomic.Int64
}

type pair struct{ artist, sponsor, track string }

type fan struct {
	id   string
	pair pair
}

func setup(ctx context.Context, adminURL, userURL string, conc, nPairs, nFans int) (*cast, error) {
	admin, err := pg.Connect(ctx, adminURL, func(c *pgxpool.Config) { c.MaxConns = 4 })
	if err != nil {
		return nil, err
	}
	users, err := pg.Connect(ctx, userURL, func(c *pgxpool.Config) { c.MaxConns = int32(conc) + 2 })
	if err != nil {
		admin.Close()
		return nil, err
	}
	c := &cast{ctx: ctx, admin: admin, users: users, runID: time.Now().UnixNano()}
	signUp := func(role string, n int) (string, error) {
		var id string
		err := admin.QueryRow(ctx, `INSERT INTO auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at)
			VALUES (gen_random_uuid(), 'authenticated', 'authenticated', $1, jsonb_build_object('role', $2::text), now(), now())
			RETURNING id::text`, fmt.Sprintf("bench-%d-%s-%d@example.com", c.runID, role, n), role).Scan(&id)
		return id, err
	}
	for i := 0; i < nPairs; i++ {
		var p pair
		if p.artist, err = signUp("artist", i); err != nil {
			return nil, err
		}
		if p.sponsor, err = signUp("sponsor", i); err != nil {
			return nil, err
		}
		if err := admin.QueryRow(ctx, `INSERT INTO public.tracks (title, artist_id, is_sponsored, sponsor_id)
			VALUES ('Bench', $1, true, $2) RETURNING id::text`, p.artist, p.sponsor).Scan(&p.track); err != nil {
			return nil, err
		}
		if _, err := admin.Exec(ctx, `SELECT backline.fund_wallet($1, 100000000, 'bench-fund-' || gen_random_uuid())`, p.sponsor); err != nil {
			return nil, err
		}
		c.pairs = append(c.pairs, p)
	}
	// Each fan may make 25 valid streams an hour (the velocity limit), so
	// each gets 25 open plays of its pair's track, started 40 s ago.
	for i := 0; i < nFans; i++ {
		id, err := signUp("fan", i)
		if err != nil {
			return nil, err
		}
		f := fan{id: id, pair: c.pairs[i%len(c.pairs)]}
		if _, err := admin.Exec(ctx, `INSERT INTO public.play_sessions (user_id, track_id, started_at)
			SELECT $1, $2, now() - interval '40 seconds' - make_interval(secs => g) FROM generate_series(1, 25) g`,
			id, f.pair.track); err != nil {
			return nil, err
		}
		c.fans = append(c.fans, f)
	}
	if _, err := admin.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *cast) close() {
	c.users.Close()
	c.admin.Close()
}

// transfer is the baseline: one ledger transfer as the service role.
func (c *cast) transfer(ctx context.Context) (int64, error) {
	i := c.next.Add(1)
	p := c.pairs[int(i)%len(c.pairs)]
	return 0, pg.AsCaller(ctx, c.users, pg.Caller{Role: "service_role"}, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `SELECT public.transfer_funds($1, $2, 50, $3, 'transfer')`, p.sponsor, p.artist,
			fmt.Sprintf("bench-%d-xfer-%d", c.runID, i))
		return err
	})
}

// settle is what a fan's sponsored stream costs: two requests as the fan,
// the stream insert (validity, limits, counters) and the payment
// (eligibility, transfer). Every operation comes from a fresh address.
func (c *cast) settle(ctx context.Context) (int64, error) {
	i := int(c.next.Add(1))
	f := c.fans[i%len(c.fans)]
	claims, _ := json.Marshal(map[string]string{"sub": f.id, "role": "authenticated"})
	headers, _ := json.Marshal(map[string]string{"x-real-ip": fmt.Sprintf("10.%d.%d.%d", (i>>16)&255, (i>>8)&255, i&255)})
	req := pg.Caller{Role: "authenticated", Claims: claims, Headers: headers}
	var valid bool
	var reason *string
	if err := pg.AsCaller(ctx, c.users, req, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `INSERT INTO public.streams (track_id, user_id, duration) VALUES ($1, $2, 31)
			RETURNING is_valid, invalid_reason`, f.pair.track, f.id).Scan(&valid, &reason)
	}); err != nil {
		return 0, err
	}
	if !valid {
		return 0, fmt.Errorf("stream not valid: %s", *reason)
	}
	var raw string
	if err := pg.AsCaller(ctx, c.users, req, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `SELECT public.settle_sponsored_stream($1, $2, $3, 50)::text`, f.pair.artist, f.pair.sponsor,
			fmt.Sprintf("stream-bench-%d-%d", c.runID, i)).Scan(&raw)
	}); err != nil {
		return 0, err
	}
	var out struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return 0, err
	}
	if !out.Success {
		return 0, fmt.Errorf("settlement refused: %s", out.Error)
	}
	return 0, nil
}
