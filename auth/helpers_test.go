package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basaltdev/basalt/auth/mail"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// env is one test's service: a fresh database, keys, a clock and a client.
type env struct {
	t     *testing.T
	svc   *Service
	keys  *jwt.Keys
	clock *clock
	db    *pgtest.DB
}

// testConfig is DefaultConfig with a low bcrypt cost and no rate limits,
// so tests are fast and independent.
func testConfig() Config {
	c := DefaultConfig()
	c.BcryptCost = 4
	c.SiteURL = "http://localhost:3000"
	c.APIURL = "http://api.test"
	c.RateLimits = RateLimits{}
	c.DevMailbox = true
	return c
}

func newEnv(t *testing.T, mutate func(*Config), opts ...Option) *env {
	t.Helper()
	db := pgtest.NewDB(t)
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	clk := &clock{t: time.Now().UTC().Truncate(time.Microsecond)} // Postgres keeps microseconds
	opts = append([]Option{WithClock(clk.now), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)
	svc, err := New(cfg, db.Admin, keys, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, svc: svc, keys: keys, clock: clk, db: db}
}

// resp is a recorded response.
type resp struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r *resp) json(t *testing.T) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
	return m
}

// req sends a request through ServeHTTP. bearer "" sends no Authorization.
// Requests carry the API version header auth-js sends.
func (e *env) req(method, path string, body any, bearer string) *resp {
	e.t.Helper()
	return e.reqFrom("10.0.0.1", method, path, body, bearer)
}

// reqFrom is req from the client address ip (as the gateway reports it).
func (e *env) reqFrom(ip, method, path string, body any, bearer string) *resp {
	e.t.Helper()
	return e.reqOn(e.svc, ip, method, path, body, bearer)
}

// reqOn is reqFrom served by svc (another node on the same database).
func (e *env) reqOn(svc *Service, ip, method, path string, body any, bearer string) *resp {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(buf)
	}
	r := httptest.NewRequest(method, path, rd)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set(apiVersionHeader, "2024-01-01")
	r.Header.Set("X-Real-Ip", ip)
	if bearer != "" {
		r.Header.Set("Authorization", "Bearer "+bearer)
	}
	w := httptest.NewRecorder()
	svc.ServeHTTP(w, r)
	return &resp{Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}
}

// service returns the service_role API key.
func (e *env) service() string { return e.keys.ServiceRoleKey }

// wantErr asserts a GoTrue error response.
func wantErr(t *testing.T, r *resp, status int, code, msg string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d (body %s)", r.Status, status, r.Body)
	}
	m := r.json(t)
	if m["code"] != code {
		t.Fatalf("code = %v, want %s (body %s)", m["code"], code, r.Body)
	}
	if msg != "" && m["message"] != msg {
		t.Fatalf("message = %q, want %q", m["message"], msg)
	}
	if r.Header.Get("x-sb-error-code") != code || r.Header.Get(apiVersionHeader) != "2024-01-01" {
		t.Fatalf("error headers = %v", r.Header)
	}
}

// signUp creates a confirmed user with a password through /signup
// (autoconfirm must be on) and returns the session.
func (e *env) signUp(email, password string) map[string]any {
	e.t.Helper()
	r := e.req("POST", "/signup", map[string]any{"email": email, "password": password}, "")
	if r.Status != 200 {
		e.t.Fatalf("signup: %d %s", r.Status, r.Body)
	}
	return r.json(e.t)
}

// mails returns the dev mailbox messages to addr, newest first.
func (e *env) mails(addr string) []mail.Message {
	return e.svc.Mailbox().List(addr)
}

// exec runs SQL against the test database as the owner.
func (e *env) exec(sql string, args ...any) {
	e.t.Helper()
	if _, err := e.db.Admin.Exec(context.Background(), sql, args...); err != nil {
		e.t.Fatal(err)
	}
}

func autoconfirm(c *Config) { c.MailerAutoconfirm = true }

// node starts a second auth service on e's database, keys and clock, as
// another Basalt process of the same project would be: its own in-memory
// state (limits, dev mailbox), nothing shared but Postgres.
func (e *env) node() *Service {
	e.t.Helper()
	svc, err := New(e.svc.cfg, e.db.Admin, e.keys, WithClock(e.clock.now), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		e.t.Fatal(err)
	}
	return svc
}
