package studio

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/crypto/bcrypt"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/internal/pgtest"
)

func TestMain(m *testing.M) {
	bcryptCost = bcrypt.MinCost
	// The server keeps its log as basalt dev's does, for the Logs screen.
	pgtest.Main(m, pgtest.WithCron(), pgtest.WithSettings(pgcluster.ServerLogSettings))
}

// fakeAPI stands in for the gateway behind Studio's in-process calls: it
// records what reached it. (Studio's tests may not import another
// service; the end-to-end journey drives the real one.)
type fakeAPI struct {
	mu   sync.Mutex
	seen []*http.Request
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.seen = append(f.seen, r.Clone(context.Background()))
	f.mu.Unlock()
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, `{"users":[],"ok":true}`)
}

func (f *fakeAPI) last() *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.seen) == 0 {
		return nil
	}
	return f.seen[len(f.seen)-1]
}

// env is a Studio served over real HTTP on a fresh database.
type env struct {
	t    *testing.T
	db   *pgtest.DB
	cfg  Config
	svc  *Service
	srv  *httptest.Server
	keys *jwt.Keys
	api  *fakeAPI
}

const (
	testEmail    = "ops@example.com"
	testPassword = "correct horse battery"
)

func testConfig() Config {
	return Config{
		Enabled: true, Host: "127.0.0.1", SecureCookie: true, SessionTTL: time.Hour,
		SignInMax: 20, SignInWindow: time.Minute, StatementTimeout: 5 * time.Second,
		RowCap: 1000, MaxQueryBytes: 1 << 20,
	}
}

// newEnv starts Studio (signed-in mode unless edit opens it) with one
// operator, testEmail.
func newEnv(t *testing.T, edit func(*Config)) *env {
	t.Helper()
	return newEnvOn(t, pgtest.NewDB(t), edit)
}

// newEnvOn is newEnv on a database of the caller's choosing.
func newEnvOn(t *testing.T, db *pgtest.DB, edit func(*Config)) *env {
	t.Helper()
	cfg := testConfig()
	if edit != nil {
		edit(&cfg)
	}
	e := &env{t: t, db: db, cfg: cfg, api: &fakeAPI{}}
	var err error
	if e.keys, err = jwt.Generate(time.Now()); err != nil {
		t.Fatal(err)
	}
	e.svc = e.newService()
	e.srv = httptest.NewServer(e.svc)
	t.Cleanup(e.srv.Close)
	if _, err := AddOperator(context.Background(), e.db.Admin, testEmail, testPassword); err != nil {
		t.Fatal(err)
	}
	return e
}

// newService builds another Studio on the same database: another node.
func (e *env) newService() *Service {
	e.t.Helper()
	svc, err := New(context.Background(), e.cfg, Deps{Admin: e.db.Admin, User: e.db.User, Keys: e.keys, API: e.api, ProjectURL: "http://api.test",
		Migrations: testMigrations})
	if err != nil {
		e.t.Fatal(err)
	}
	return svc
}

// signInWith starts another Studio on e's database whose gateway is api
// and whose metrics are metrics, and signs in to it.
func (e *env) signInWith(api http.Handler, metrics prometheus.Gatherer) *client {
	e.t.Helper()
	svc, err := New(context.Background(), e.cfg, Deps{Admin: e.db.Admin, User: e.db.User, Keys: e.keys, API: api, Metrics: metrics})
	if err != nil {
		e.t.Fatal(err)
	}
	srv := httptest.NewServer(svc)
	e.t.Cleanup(srv.Close)
	c := e.signIn(testEmail, testPassword)
	c.base = srv.URL
	return c
}

// client is a browser tab: a session cookie and its CSRF token.
type client struct {
	e      *env
	cookie string
	csrf   string
	base   string
}

// signIn opens a session as an operator through the endpoint.
func (e *env) signIn(email, password string) *client {
	e.t.Helper()
	c := &client{e: e, base: e.srv.URL}
	res := c.do("POST", "/api/session", map[string]string{"email": email, "password": password})
	body := readAll(e.t, res)
	if res.StatusCode != http.StatusOK {
		e.t.Fatalf("sign in: %d %s", res.StatusCode, body)
	}
	var s sessionBody
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		e.t.Fatal(err)
	}
	c.csrf = s.CSRFToken
	for _, ck := range res.Cookies() {
		if ck.Name == sessionCookie {
			c.cookie = ck.Value
		}
	}
	if c.cookie == "" || c.csrf == "" {
		e.t.Fatalf("sign in gave no cookie or token: %v", res.Header)
	}
	return c
}

// request builds a call as this tab makes it: same origin, cookie and
// CSRF header. body is JSON unless it is a string or []byte.
func (c *client) request(method, path string, body any) *http.Request {
	c.e.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.e.t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, c.base+path, r)
	if err != nil {
		c.e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Origin", c.base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0")
	if c.cookie != "" {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: c.cookie})
	}
	if c.csrf != "" {
		req.Header.Set(csrfHeader, c.csrf)
	}
	return req
}

func (c *client) do(method, path string, body any) *http.Response {
	c.e.t.Helper()
	return send(c.e.t, c.request(method, path, body))
}

// json calls and decodes the answer, failing unless the status is want.
func (c *client) json(method, path string, body any, want int, out any) {
	c.e.t.Helper()
	res := c.do(method, path, body)
	b := readAll(c.e.t, res)
	if res.StatusCode != want {
		c.e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, res.StatusCode, want, b)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(b), out); err != nil {
			c.e.t.Fatalf("%s %s: %v in %s", method, path, err, b)
		}
	}
}

func send(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// exec runs SQL as the database owner.
func (e *env) exec(sql string, args ...any) {
	e.t.Helper()
	if _, err := e.db.Admin.Exec(context.Background(), sql, args...); err != nil {
		e.t.Fatalf("%s: %v", sql, err)
	}
}

// auditCount counts audit rows.
func (e *env) auditCount() int {
	e.t.Helper()
	var n int
	if err := e.db.Admin.QueryRow(context.Background(), `SELECT count(*) FROM basalt.studio_audit`).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

// addUser creates an auth user with an id and email.
func (e *env) addUser(id, email string) {
	e.t.Helper()
	e.exec(`INSERT INTO auth.users (instance_id, id, aud, role, email) VALUES ('00000000-0000-0000-0000-000000000000', $1, 'authenticated', 'authenticated', $2)`, id, email)
}
