// Package authbench measures Basalt auth's hot paths against their physical
// limits, measured in the same run: password sign-in against raw bcrypt
// verifications at the same cost, and token refresh and GET /user against
// the bare SQL they need, issued directly through pgx. Each scenario runs
// at concurrency 16 and reports requests/s, p50 and p99.
//
//	go test ./bench/auth -run Bench -v -count=1        # full run (~5 s per scenario)
//	BENCH_SMOKE=1 go test ./bench/auth -run Bench -v   # a few seconds, for CI
package authbench

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
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/basaltdev/basalt/auth"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

const concurrency = 16

// result is one scenario's throughput and latency.
type result struct {
	name     string
	n        int
	elapsed  time.Duration
	p50, p99 time.Duration
}

func (r result) rps() float64 { return float64(r.n) / r.elapsed.Seconds() }

func (r result) String() string {
	return fmt.Sprintf("%-28s %9.0f req/s   p50 %8s   p99 %8s   (%d ops)", r.name, r.rps(),
		r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond), r.n)
}

// run calls op from `concurrency` workers for d and collects latencies.
// Worker i passes i to op so each can keep its own state.
func run(t *testing.T, name string, d time.Duration, op func(worker int) error) result {
	t.Helper()
	var mu sync.Mutex
	var lat []time.Duration
	var firstErr error
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if err := op(w); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatalf("%s: %v", name, firstErr)
	}
	elapsed := time.Since(start)
	slices.Sort(lat)
	r := result{name: name, n: len(lat), elapsed: elapsed}
	if len(lat) > 0 {
		r.p50 = lat[len(lat)/2]
		r.p99 = lat[min(len(lat)-1, len(lat)*99/100)]
	}
	t.Log(r)
	return r
}

func post(c *http.Client, url string, body any, bearer string) (map[string]any, error) {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
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
	if res.StatusCode != 200 {
		return nil, fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, raw)
	}
	m := map[string]any{}
	return m, json.Unmarshal(raw, &m)
}

func TestBenchAuth(t *testing.T) {
	d := 5 * time.Second
	cost := 10 // the auth default
	if os.Getenv("BENCH_SMOKE") != "" || testing.Short() {
		// Smoke mode checks that every scenario runs; cost 4 keeps it fast.
		d, cost = 300*time.Millisecond, 4
	}
	db := pgtest.NewDB(t)
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cfg := auth.DefaultConfig()
	cfg.MailerAutoconfirm = true
	cfg.BcryptCost = cost
	cfg.RateLimits = auth.RateLimits{} // measure the work, not the limiter
	svc, err := auth.New(cfg, db.Admin, keys, auth.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(svc)
	defer srv.Close()
	client := srv.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = concurrency

	// One user and one session per worker.
	sessions := make([]map[string]any, concurrency)
	for w := range concurrency {
		s, err := post(client, srv.URL+"/signup", map[string]any{"email": fmt.Sprintf("bench%d@example.com", w), "password": "bench-password"}, "")
		if err != nil {
			t.Fatal(err)
		}
		sessions[w] = s
	}

	hash, _ := bcrypt.GenerateFromPassword([]byte("bench-password"), cfg.BcryptCost)
	bcryptBase := run(t, fmt.Sprintf("bcrypt verify (cost %d)", cfg.BcryptCost), d, func(int) error {
		return bcrypt.CompareHashAndPassword(hash, []byte("bench-password"))
	})
	signIn := run(t, "POST /token password", d, func(w int) error {
		_, err := post(client, srv.URL+"/token?grant_type=password",
			map[string]any{"email": fmt.Sprintf("bench%d@example.com", w), "password": "bench-password"}, "")
		return err
	})

	refreshTokens := make([]string, concurrency)
	userIDs := make([]string, concurrency)
	for w, s := range sessions {
		refreshTokens[w] = s["refresh_token"].(string)
		userIDs[w] = s["user"].(map[string]any)["id"].(string)
	}
	refreshSQL := run(t, "refresh: bare SQL", d, func(w int) error {
		return bareRefresh(db.Admin, userIDs[w], w)
	})
	refresh := run(t, "POST /token refresh_token", d, func(w int) error {
		s, err := post(client, srv.URL+"/token?grant_type=refresh_token", map[string]any{"refresh_token": refreshTokens[w]}, "")
		if err != nil {
			return err
		}
		refreshTokens[w] = s["refresh_token"].(string)
		sessions[w]["access_token"] = s["access_token"]
		return nil
	})

	userSQL := run(t, "user: bare SQL", d, func(w int) error {
		return bareGetUser(db.Admin, userIDs[w])
	})
	getUser := run(t, "GET /user", d, func(w int) error {
		req, _ := http.NewRequest("GET", srv.URL+"/user", nil)
		_, err := do(client, req, sessions[w]["access_token"].(string))
		return err
	})

	ratio := func(a, b result) string { return fmt.Sprintf("%.2f", a.rps()/b.rps()) }
	t.Logf("\nconcurrency %d, %s per scenario\n%s\n%s   ratio %s of bcrypt\n%s\n%s   ratio %s of bare SQL\n%s\n%s   ratio %s of bare SQL",
		concurrency, d, bcryptBase, signIn, ratio(signIn, bcryptBase), refreshSQL, refresh, ratio(refresh, refreshSQL),
		userSQL, getUser, ratio(getUser, userSQL))
}

// bareRefresh is the SQL a refresh needs, without HTTP, JSON or JWT: find
// the live token, lock the session, revoke, insert the child, touch the
// session, read the user and the amr claims.
func bareRefresh(db *pgxpool.Pool, userID string, w int) error {
	ctx := context.Background()
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		var id int64
		var token, sessionID string
		err := tx.QueryRow(ctx, `SELECT id, token, session_id FROM auth.refresh_tokens
			WHERE user_id = $1 AND NOT revoked ORDER BY id DESC LIMIT 1`, userID).Scan(&id, &token, &sessionID)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT id FROM auth.sessions WHERE id = $1 FOR UPDATE`, sessionID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.refresh_tokens SET revoked = true, updated_at = now() WHERE id = $1`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO auth.refresh_tokens (token, user_id, revoked, created_at, updated_at, parent, session_id)
			VALUES ($1, $2, false, now(), now(), $3, $4)`, fmt.Sprintf("b%d%x", w, time.Now().UnixNano()), userID, token, sessionID); err != nil {
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

// bareGetUser is the SQL GET /user needs: the user row, its session, its
// identities and factors.
func bareGetUser(db *pgxpool.Pool, userID string) error {
	ctx := context.Background()
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
