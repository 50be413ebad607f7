package storage_test

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

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
	"github.com/basaltdev/basalt/storage/s3backend"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// Fixed user ids for the two-user policy tests.
const (
	alice = "11111111-1111-4111-8111-111111111111"
	bob   = "22222222-2222-4222-8222-222222222222"
)

// backendKinds are the backends every scenario runs against.
var backendKinds = []string{"fs", "s3"}

// env is one service over a fresh database and backend.
type env struct {
	t       *testing.T
	svc     *storage.Service
	db      *pgtest.DB
	keys    *jwt.Keys
	backend storage.Backend
	clock   *clock
	service string // service_role key
	anon    string // anon key
	alice   string // authenticated user tokens
	bob     string
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newBackend returns a file backend in a temp dir, or an S3 backend talking
// real S3 HTTP to an in-process fake server.
func newBackend(t *testing.T, kind string) storage.Backend {
	t.Helper()
	switch kind {
	case "fs":
		b, err := fsbackend.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		return b
	case "s3":
		ts := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
		t.Cleanup(ts.Close)
		b, err := s3backend.New(context.Background(), storage.S3Config{
			Endpoint: strings.TrimPrefix(ts.URL, "http://"), Bucket: "basalt-test", Region: "us-east-1",
			AccessKey: "test", SecretKey: "testsecret", UseSSL: false, Prefix: "p",
		})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	t.Fatalf("unknown backend %q", kind)
	return nil
}

func newEnv(t *testing.T, kind string, configure ...func(*storage.Config)) *env {
	t.Helper()
	return newEnvWith(t, newBackend(t, kind), configure...)
}

func newEnvWith(t *testing.T, backend storage.Backend, configure ...func(*storage.Config)) *env {
	t.Helper()
	db := pgtest.NewDB(t)
	clk := &clock{t: time.Now()}
	keys, err := jwt.Generate(clk.now())
	if err != nil {
		t.Fatal(err)
	}
	cfg := storage.Config{ImageTransform: true}
	for _, f := range configure {
		f(&cfg)
	}
	svc, err := storage.New(cfg, db.Admin, db.User, keys, backend, storage.WithClock(clk.now))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, svc: svc, db: db, keys: keys, backend: backend, clock: clk,
		service: keys.ServiceRoleKey, anon: keys.AnonKey}
	e.alice = e.userToken(alice)
	e.bob = e.userToken(bob)
	return e
}

// userToken signs an access token for an authenticated user.
func (e *env) userToken(sub string) string {
	tok, err := e.keys.Sign(gojwt.MapClaims{"sub": sub, "role": "authenticated", "aud": "authenticated",
		"exp": e.clock.now().Add(time.Hour).Unix()})
	if err != nil {
		e.t.Fatal(err)
	}
	return tok
}

// sql runs fixture SQL as the database owner.
func (e *env) sql(q string, args ...any) {
	e.t.Helper()
	if _, err := e.db.Admin.Exec(context.Background(), q, args...); err != nil {
		e.t.Fatalf("sql %q: %v", q, err)
	}
}

// req is one request to the service.
type req struct {
	method, path string
	token        string // verified and put in the context, as the gateway does
	body         io.Reader
	json         any
	header       map[string]string
}

func (e *env) do(r req) *httptest.ResponseRecorder {
	e.t.Helper()
	body := r.body
	if r.json != nil {
		b, _ := json.Marshal(r.json)
		body = bytes.NewReader(b)
	}
	hr := httptest.NewRequest(r.method, "http://basalt"+r.path, body)
	if r.json != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.header {
		hr.Header.Set(k, v)
	}
	if r.token != "" {
		cl, err := e.keys.Verify(r.token, e.clock.now())
		hr = hr.WithContext(jwt.NewContext(hr.Context(), &jwt.Caller{Token: r.token, Claims: cl, Err: err}))
	}
	rec := httptest.NewRecorder()
	e.svc.ServeHTTP(rec, hr)
	return rec
}

// ok runs r and fails unless it answers 200, returning the decoded body.
func (e *env) ok(r req) map[string]any {
	e.t.Helper()
	rec := e.do(r)
	if rec.Code != http.StatusOK {
		e.t.Fatalf("%s %s = %d %s, want 200", r.method, r.path, rec.Code, rec.Body)
	}
	var m map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &m)
	return m
}

// wantErr checks an error response: HTTP status, and the body's statusCode,
// code and message.
func wantErr(t *testing.T, rec *httptest.ResponseRecorder, httpStatus int, statusCode, code, message string) {
	t.Helper()
	if rec.Code != httpStatus {
		t.Errorf("HTTP status = %d, want %d (body %s)", rec.Code, httpStatus, rec.Body)
	}
	var body map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("error body %q: %v", rec.Body, err)
	}
	if body["statusCode"] != statusCode || body["code"] != code || body["message"] != message {
		t.Errorf("error body = %v, want statusCode %s code %s message %q", body, statusCode, code, message)
	}
}

// bucket creates a bucket as service_role.
func (e *env) bucket(id string, public bool, extra ...map[string]any) {
	e.t.Helper()
	body := map[string]any{"id": id, "name": id, "public": public}
	for _, x := range extra {
		for k, v := range x {
			body[k] = v
		}
	}
	e.ok(req{method: "POST", path: "/bucket", token: e.service, json: body})
}

// put uploads raw bytes as token.
func (e *env) put(token, bucket, name, contentType string, data []byte, upsert bool) *httptest.ResponseRecorder {
	e.t.Helper()
	h := map[string]string{"Content-Type": contentType, "Cache-Control": "max-age=3600"}
	if upsert {
		h["x-upsert"] = "true"
	}
	return e.do(req{method: "POST", path: "/object/" + bucket + "/" + name, token: token, body: bytes.NewReader(data), header: h})
}

// get downloads bucket/name as token.
func (e *env) get(token, bucket, name string, header map[string]string) *httptest.ResponseRecorder {
	e.t.Helper()
	return e.do(req{method: "GET", path: "/object/" + bucket + "/" + name, token: token, header: header})
}

// backendKeys lists every key in the backend.
func (e *env) backendKeys() []string {
	e.t.Helper()
	var keys []string
	err := e.backend.Walk(context.Background(), "", func(k string, _ time.Time) error {
		keys = append(keys, k)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return keys
}

// count returns a single integer from SQL.
func (e *env) count(q string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.Admin.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
	return n
}
