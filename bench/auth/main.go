// Command auth measures Basalt auth's hot paths against their physical
// limits, each measured in the same run at concurrency 16:
//
//   - password sign-in (POST /token?grant_type=password) against raw bcrypt
//     verifications at the same cost: a sign-in cannot beat one bcrypt;
//   - token refresh against the bare SQL a refresh needs, sent through pgx;
//   - GET /user against the bare SQL it needs.
//
// The service runs behind a loopback HTTP server on a throwaway PostgreSQL
// cluster (or DATABASE_URL when set, which must have the platform
// migrations applied).
//
//	go run ./bench/auth            # 5 s per case
//	go run ./bench/auth -smoke     # a few seconds (CI); BENCH_SMOKE=1 too
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/basaltdev/basalt/auth"
	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/sql/platform"
)

// Flags of this program besides the harness's own.
var (
	cpuProfile = flag.String("cpuprofile", "", "write a CPU profile of the measured cases to this file")
	onlyCases  = flag.String("cases", "signin,refresh,user", "comma-separated cases to run (signin, refresh, user)")
)

func main() {
	opts := bench.ParseFlags(16)
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench/auth:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "bench/auth:", err)
			os.Exit(1)
		}
	}
	err := run(opts)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/auth:", err)
		os.Exit(1)
	}
}

// database returns the admin pool and, for a throwaway cluster, its data
// directory: DATABASE_URL, or a new cluster with the platform migrations.
// The pool has more connections than workers, so no request ever waits for
// one and both sides of a case see the same database.
func database(ctx context.Context) (*pgxpool.Pool, string, func(), error) {
	configure := func(c *pgxpool.Config) { c.MaxConns = 32 }
	if url := os.Getenv("DATABASE_URL"); url != "" {
		pool, err := pg.Connect(ctx, url, configure)
		return pool, "", func() {}, err
	}
	c, cleanup, err := pgcluster.StartTemp(ctx, "bauth", nil)
	if err != nil {
		return nil, "", nil, err
	}
	if pid, ok := c.PID(); ok {
		bench.CountDatabaseCPU(pid)
	}
	pool, err := pg.Connect(ctx, c.SocketURL("postgres", "postgres"), configure)
	if err != nil {
		cleanup()
		return nil, "", nil, err
	}
	if _, err := migrate.Up(ctx, pool, nil, migrate.Source{Name: "platform", FS: platform.FS}); err != nil {
		pool.Close()
		cleanup()
		return nil, "", nil, err
	}
	return pool, c.DataDir, func() { pool.Close(); cleanup() }, nil
}

// session is one signed-in user a worker borrows for a request.
type session struct {
	userID, sessionID, access, refresh string
}

func run(opts bench.Options) error {
	ctx := context.Background()
	db, dataDir, cleanup, err := database(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
	meter := newCPUMeter(dataDir)
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		return err
	}
	cfg := auth.DefaultConfig()
	cfg.MailerAutoconfirm = true
	cfg.RateLimits = auth.RateLimits{} // measure the work, not the limiter
	if opts.Smoke {
		cfg.BcryptCost = 4 // smoke runs check the paths, not the speed
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	svc, err := auth.New(cfg, db, keys, auth.WithLogger(quiet))
	if err != nil {
		return err
	}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	// The same service behind the gateway, as cmd/basalt mounts it: the
	// gateway checks the apikey and verifies the access token (cached per
	// token until it expires), and the service reuses that verification.
	gw, err := gateway.New(gateway.Config{}, gateway.Services{Auth: svc}, keys, quiet)
	if err != nil {
		return err
	}
	gwSrv := httptest.NewServer(gw)
	defer gwSrv.Close()
	client := bench.HTTPClient(opts.Concurrency)

	// One user (and session) per worker, handed out through channels so a
	// request never uses a session another request is rotating.
	sessions := make(chan *session, opts.Concurrency)
	emails := make(chan string, opts.Concurrency)
	tag := fmt.Sprintf("%x", time.Now().UnixNano())
	for w := range opts.Concurrency {
		email := fmt.Sprintf("bench%d-%s@example.com", w, tag)
		s, err := post(ctx, client, srv.URL+"/signup", map[string]any{"email": email, "password": "bench-password"}, "")
		if err != nil {
			return err
		}
		access := s["access_token"].(string)
		claims, err := jwt.ParseUnverified(access)
		if err != nil {
			return err
		}
		sessions <- &session{userID: s["user"].(map[string]any)["id"].(string), sessionID: claims.SessionID,
			access: access, refresh: s["refresh_token"].(string)}
		emails <- email
	}
	borrow := func(f func(*session) error) (int64, error) {
		s := <-sessions
		defer func() { sessions <- s }()
		return 0, f(s)
	}
	getUser := func(base string, header http.Header) bench.Op {
		return func(ctx context.Context) (int64, error) {
			return borrow(func(s *session) error {
				req, err := http.NewRequestWithContext(ctx, "GET", base+"/user", nil)
				if err != nil {
					return err
				}
				for k, v := range header {
					req.Header[k] = v
				}
				req.Header.Set("Authorization", "Bearer "+s.access)
				// The client only checks the status and reads the body: decoding
				// it would bill the client's JSON work to the server's side.
				res, err := client.Do(req)
				if err != nil {
					return err
				}
				defer res.Body.Close()
				if _, err := io.Copy(io.Discard, res.Body); err != nil {
					return err
				}
				if res.StatusCode != http.StatusOK {
					return fmt.Errorf("GET %s: status %d", req.URL.Path, res.StatusCode)
				}
				return nil
			})
		}
	}

	want := func(name string) bool { return slices.Contains(strings.Split(*onlyCases, ","), name) }
	var cs []bench.Comparison
	var costs [][2]cpuCost
	compare := func(name string, base, cand bench.Result, baseCost, candCost cpuCost) {
		cs = append(cs, bench.Comparison{Name: name, Baseline: base, Candidate: cand})
		costs = append(costs, [2]cpuCost{baseCost, candCost})
	}
	if want("signin") {
		hash, err := bcrypt.GenerateFromPassword([]byte("bench-password"), cfg.BcryptCost)
		if err != nil {
			return err
		}
		base, bc := meter.measure(ctx, fmt.Sprintf("bcrypt verify (cost %d)", cfg.BcryptCost), opts, func(context.Context) (int64, error) {
			return 0, bcrypt.CompareHashAndPassword(hash, []byte("bench-password"))
		})
		cand, cc := meter.measure(ctx, "POST /token password", opts, func(ctx context.Context) (int64, error) {
			e := <-emails
			defer func() { emails <- e }()
			_, err := post(ctx, client, srv.URL+"/token?grant_type=password", map[string]any{"email": e, "password": "bench-password"}, "")
			return 0, err
		})
		compare("password sign-in", base, cand, bc, cc)
	}
	if want("refresh") {
		base, bc := meter.measure(ctx, "bare SQL", opts, func(ctx context.Context) (int64, error) {
			return borrow(func(s *session) error { return bareRefresh(ctx, db, s) })
		})
		cand, cc := meter.measure(ctx, "POST /token refresh_token", opts, func(ctx context.Context) (int64, error) {
			return borrow(func(s *session) error {
				var r struct {
					Access  string `json:"access_token"`
					Refresh string `json:"refresh_token"`
				}
				if err := postInto(ctx, client, srv.URL+"/token?grant_type=refresh_token", map[string]any{"refresh_token": s.refresh}, &r); err != nil {
					return err
				}
				s.refresh, s.access = r.Refresh, r.Access
				return nil
			})
		})
		compare("token refresh", base, cand, bc, cc)
	}
	if want("user") {
		base, bc := meter.measure(ctx, "bare SQL", opts, func(ctx context.Context) (int64, error) {
			return borrow(func(s *session) error { return bareGetUser(ctx, db, s) })
		})
		cand, cc := meter.measure(ctx, "GET /user", opts, getUser(srv.URL, nil))
		compare("GET /user", base, cand, bc, cc)
		viaGW, gc := meter.measure(ctx, "GET /auth/v1/user (gateway)", opts,
			getUser(gwSrv.URL+"/auth/v1", http.Header{"Apikey": {keys.AnonKey}}))
		compare("GET /user", base, viaGW, bc, gc)
	}
	err = bench.Report(os.Stdout, opts, cs...)
	if !opts.JSON {
		printCosts(os.Stdout, cs, costs, meter.postmaster != 0)
	}
	return err
}

// printCosts prints the CPU time per operation of every side: the figure
// that holds still when the machine is busy.
func printCosts(w io.Writer, cs []bench.Comparison, costs [][2]cpuCost, server bool) {
	fmt.Fprintln(w, "\nCPU per operation (warm-up included)")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tside\tthis process\tPostgreSQL\ttotal\t")
	for i, c := range cs {
		for j, r := range []bench.Result{c.Baseline, c.Candidate} {
			name := ""
			if j == 0 {
				name = c.Name
			}
			k := costs[i][j]
			srv := "-"
			if server {
				srv = k.Server.Round(time.Microsecond).String()
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", name, r.Name, k.Self.Round(time.Microsecond), srv, (k.Self + k.Server).Round(time.Microsecond))
		}
	}
	_ = tw.Flush()
}

// post sends body as JSON and decodes a 200 answer into a map.
func post(ctx context.Context, c *http.Client, url string, body any, bearer string) (map[string]any, error) {
	m := map[string]any{}
	return m, postInto(ctx, c, url, body, &m)
}

// postInto sends body as JSON and decodes a 200 answer into out.
func postInto(ctx context.Context, c *http.Client, url string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

// bareRefresh is the SQL a refresh must run, without HTTP, JSON or JWT,
// in the fewest round trips the work allows (the shape the service uses):
// one batch begins a transaction, locks the token's session and reads the
// token, the user, its identities and its factors; a second batch revokes
// the token, inserts its child, touches the session, writes the two audit
// entries the reference writes, reads the amr claims and commits.
func bareRefresh(ctx context.Context, db *pgxpool.Pool, s *session) error {
	var r [6]byte
	_, _ = rand.Read(r[:])
	child := fmt.Sprintf("%x", r) // 12 characters, like the service's tokens
	conn, err := db.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	err = func() error {
		b := &pgx.Batch{}
		b.Queue(`BEGIN`)
		b.Queue(`SET LOCAL lock_timeout = '5s'`)
		b.Queue(`SELECT id, user_id, aal, not_after, created_at, refreshed_at FROM auth.sessions
			WHERE id = (SELECT session_id FROM auth.refresh_tokens WHERE token = $1) FOR UPDATE`, s.refresh)
		b.Queue(`SELECT id, token, user_id, revoked, parent, session_id, updated_at FROM auth.refresh_tokens WHERE token = $1`, s.refresh)
		b.Queue(`SELECT * FROM auth.users WHERE id = $1`, s.userID)
		b.Queue(`SELECT * FROM auth.identities WHERE user_id = $1 ORDER BY created_at, id`, s.userID)
		b.Queue(`SELECT * FROM auth.mfa_factors WHERE user_id = $1 ORDER BY created_at, id`, s.userID)
		br := conn.SendBatch(ctx, b)
		defer br.Close()
		var tokenID int64
		for i := range b.Len() {
			if i == 3 {
				var token, userID, parent, sessionID, revoked, updated any
				if err := br.QueryRow().Scan(&tokenID, &token, &userID, &revoked, &parent, &sessionID, &updated); err != nil {
					return fmt.Errorf("read token: %w", err)
				}
				continue
			}
			rows, err := br.Query()
			if err != nil {
				return err
			}
			if err := drain(rows); err != nil {
				return err
			}
		}
		if err := br.Close(); err != nil {
			return err
		}
		now := time.Now()
		audit := func(action string) []any {
			return []any{"00000000-0000-0000-0000-000000000000", uuid(), map[string]any{"action": action, "actor_id": s.userID}, now, "127.0.0.1"}
		}
		w := &pgx.Batch{}
		w.Queue(`UPDATE auth.refresh_tokens SET revoked = true, updated_at = $2 WHERE id = $1`, tokenID, now)
		w.Queue(`INSERT INTO auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
			VALUES ('00000000-0000-0000-0000-000000000000', $1, $2, false, $3, $3, $4, $5)`, child, s.userID, now, s.refresh, s.sessionID)
		w.Queue(`UPDATE auth.sessions SET refreshed_at = $2, updated_at = $3, user_agent = $4, ip = $5 WHERE id = $1`,
			s.sessionID, now.UTC(), now, "bench", "127.0.0.1")
		w.Queue(`INSERT INTO auth.audit_log_entries (instance_id, id, payload, created_at, ip_address) VALUES ($1, $2, $3, $4, $5)`, audit("token_revoked")...)
		w.Queue(`INSERT INTO auth.audit_log_entries (instance_id, id, payload, created_at, ip_address) VALUES ($1, $2, $3, $4, $5)`, audit("token_refreshed")...)
		w.Queue(`SELECT authentication_method, updated_at FROM auth.mfa_amr_claims WHERE session_id = $1 ORDER BY updated_at DESC`, s.sessionID)
		w.Queue(`COMMIT`)
		return conn.SendBatch(ctx, w).Close()
	}()
	if err != nil {
		// A failed statement leaves the transaction open; the pool would
		// close the connection, so end it here.
		_, _ = conn.Exec(ctx, "ROLLBACK")
		return err
	}
	s.refresh = child // the service's next refresh goes on from here
	return nil
}

// bareGetUser is the SQL GET /user must run: the user row, the JWT's
// session (it must exist and belong to the user, or the answer is 403),
// the identities and the factors, in one round trip.
func bareGetUser(ctx context.Context, db *pgxpool.Pool, s *session) error {
	b := &pgx.Batch{}
	b.Queue(`SELECT * FROM auth.users WHERE id = $1`, s.userID)
	b.Queue(`SELECT id, aal, not_after FROM auth.sessions WHERE id = $1 AND user_id = $2`, s.sessionID, s.userID)
	b.Queue(`SELECT * FROM auth.identities WHERE user_id = $1 ORDER BY created_at, id`, s.userID)
	b.Queue(`SELECT * FROM auth.mfa_factors WHERE user_id = $1 ORDER BY created_at, id`, s.userID)
	br := db.SendBatch(ctx, b)
	defer br.Close()
	for range b.Len() {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		if err := drain(rows); err != nil {
			return err
		}
	}
	return br.Close()
}

// drain reads every row's values, as a real reader would decode them.
func drain(rows pgx.Rows) error {
	for rows.Next() {
		if _, err := rows.Values(); err != nil {
			rows.Close()
			return err
		}
	}
	return rows.Err()
}

// uuid returns a random v4 UUID for the baseline's audit rows.
func uuid() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
