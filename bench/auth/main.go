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
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/basaltdev/basalt/auth"
	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/sql/platform"
)

func main() {
	opts := bench.ParseFlags(16)
	if err := run(opts); err != nil {
		fmt.Fprintln(os.Stderr, "bench/auth:", err)
		os.Exit(1)
	}
}

// database returns the admin pool: DATABASE_URL, or a throwaway cluster
// with the platform migrations.
func database(ctx context.Context) (*pgxpool.Pool, func(), error) {
	configure := func(c *pgxpool.Config) { c.MaxConns = 32 }
	if url := os.Getenv("DATABASE_URL"); url != "" {
		pool, err := pg.Connect(ctx, url, configure)
		return pool, func() {}, err
	}
	bin, err := pgcluster.FindBinDir()
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "bauth")
	if err != nil {
		return nil, nil, err
	}
	_ = os.Chmod(dir, 0o755) // the server user must reach the socket
	c := &pgcluster.Cluster{BinDir: bin, DataDir: filepath.Join(dir, "data"), SocketDir: dir,
		Settings: map[string]string{"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off",
			"listen_addresses": "''", "max_connections": "100", "unix_socket_permissions": "0777"}}
	cleanup := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Stop(sctx, "immediate")
		_ = os.RemoveAll(dir)
	}
	if err := c.Init(ctx); err != nil {
		cleanup()
		return nil, nil, err
	}
	if err := c.Start(ctx); err != nil {
		cleanup()
		return nil, nil, err
	}
	pool, err := pg.Connect(ctx, c.SocketURL("postgres", "postgres"), configure)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	if _, err := migrate.Up(ctx, pool, nil, migrate.Source{Name: "platform", FS: platform.FS}); err != nil {
		pool.Close()
		cleanup()
		return nil, nil, err
	}
	return pool, func() { pool.Close(); cleanup() }, nil
}

// session is one signed-in user a worker borrows for a request.
type session struct {
	userID, access, refresh string
}

func run(opts bench.Options) error {
	ctx := context.Background()
	db, cleanup, err := database(ctx)
	if err != nil {
		return err
	}
	defer cleanup()
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
	svc, err := auth.New(cfg, db, keys, auth.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return err
	}
	srv := httptest.NewServer(svc)
	defer srv.Close()
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
		sessions <- &session{userID: s["user"].(map[string]any)["id"].(string), access: s["access_token"].(string), refresh: s["refresh_token"].(string)}
		emails <- email
	}
	borrow := func(f func(*session) error) (int64, error) {
		s := <-sessions
		defer func() { sessions <- s }()
		return 0, f(s)
	}

	hash, err := bcrypt.GenerateFromPassword([]byte("bench-password"), cfg.BcryptCost)
	if err != nil {
		return err
	}
	bcryptBase := bench.Run(ctx, fmt.Sprintf("bcrypt verify (cost %d)", cfg.BcryptCost), opts, func(context.Context) (int64, error) {
		return 0, bcrypt.CompareHashAndPassword(hash, []byte("bench-password"))
	})
	signIn := bench.Run(ctx, "POST /token password", opts, func(ctx context.Context) (int64, error) {
		e := <-emails
		defer func() { emails <- e }()
		_, err := post(ctx, client, srv.URL+"/token?grant_type=password", map[string]any{"email": e, "password": "bench-password"}, "")
		return 0, err
	})
	refreshSQL := bench.Run(ctx, "bare SQL", opts, func(ctx context.Context) (int64, error) {
		return borrow(func(s *session) error { return bareRefresh(ctx, db, s.userID) })
	})
	refresh := bench.Run(ctx, "POST /token refresh_token", opts, func(ctx context.Context) (int64, error) {
		return borrow(func(s *session) error {
			r, err := post(ctx, client, srv.URL+"/token?grant_type=refresh_token", map[string]any{"refresh_token": s.refresh}, "")
			if err != nil {
				return err
			}
			s.refresh, s.access = r["refresh_token"].(string), r["access_token"].(string)
			return nil
		})
	})
	userSQL := bench.Run(ctx, "bare SQL", opts, func(ctx context.Context) (int64, error) {
		return borrow(func(s *session) error { return bareGetUser(ctx, db, s.userID) })
	})
	getUser := bench.Run(ctx, "GET /user", opts, func(ctx context.Context) (int64, error) {
		return borrow(func(s *session) error {
			req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/user", nil)
			if err != nil {
				return err
			}
			_, err = do(client, req, s.access)
			return err
		})
	})
	return bench.Report(os.Stdout, opts,
		bench.Comparison{Name: "password sign-in", Baseline: bcryptBase, Candidate: signIn},
		bench.Comparison{Name: "token refresh", Baseline: refreshSQL, Candidate: refresh},
		bench.Comparison{Name: "GET /user", Baseline: userSQL, Candidate: getUser})
}

func post(ctx context.Context, c *http.Client, url string, body any, bearer string) (map[string]any, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	return do(c, req, bearer)
}

func do(c *http.Client, req *http.Request, bearer string) (map[string]any, error) {
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, raw)
	}
	m := map[string]any{}
	return m, json.Unmarshal(raw, &m)
}

// bareRefresh is the SQL a refresh needs, without HTTP, JSON or JWT: find
// the live token, lock the session, revoke, insert the child, touch the
// session, read the user and the amr claims.
func bareRefresh(ctx context.Context, db *pgxpool.Pool, userID string) error {
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		var id int64
		var token, sessionID string
		err := tx.QueryRow(ctx, `SELECT id, token, session_id FROM auth.refresh_tokens
			WHERE user_id = $1 AND NOT revoked ORDER BY id DESC LIMIT 1`, userID).Scan(&id, &token, &sessionID)
		if err != nil {
			return fmt.Errorf("find token: %w", err)
		}
		if _, err := tx.Exec(ctx, `SELECT id FROM auth.sessions WHERE id = $1 FOR UPDATE`, sessionID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.refresh_tokens SET revoked = true, updated_at = now() WHERE id = $1`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO auth.refresh_tokens (token, user_id, revoked, created_at, updated_at, parent, session_id)
			VALUES (substr(md5(random()::text), 1, 12), $1, false, now(), now(), $2, $3)`, userID, token, sessionID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.sessions SET refreshed_at = now(), updated_at = now() WHERE id = $1`, sessionID); err != nil {
			return err
		}
		var email string
		if err := tx.QueryRow(ctx, `SELECT email FROM auth.users WHERE id = $1`, userID).Scan(&email); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `SELECT authentication_method FROM auth.mfa_amr_claims WHERE session_id = $1`, sessionID)
		return err
	})
}

// bareGetUser is the SQL GET /user needs: the user row with its identities
// and factors, and the session.
func bareGetUser(ctx context.Context, db *pgxpool.Pool, userID string) error {
	var email string
	var meta map[string]any
	if err := db.QueryRow(ctx, `SELECT email, raw_user_meta_data FROM auth.users WHERE id = $1`, userID).Scan(&email, &meta); err != nil {
		return err
	}
	if _, err := db.Exec(ctx, `SELECT id FROM auth.sessions WHERE user_id = $1 LIMIT 1`, userID); err != nil {
		return err
	}
	if _, err := db.Exec(ctx, `SELECT id, identity_data FROM auth.identities WHERE user_id = $1`, userID); err != nil {
		return err
	}
	_, err := db.Exec(ctx, `SELECT id FROM auth.mfa_factors WHERE user_id = $1`, userID)
	return err
}
