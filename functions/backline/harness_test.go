package backline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/backline"
	"github.com/basaltdev/basalt/functions/backline/sandbox"
	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// Fixed test credentials of the fake provider accounts.
const (
	flwKey  = "FLWSECK_TEST-backline"
	flwHash = "verif-hash-backline"
	psKey   = "sk_test_backline"
)

// testBundle is one test's world: a database, the functions service behind
// a stand-in gateway, and the provider sandbox it pays through.
type testBundle struct {
	t    *testing.T
	ctx  context.Context
	db   *pgtest.DB
	keys *jwt.Keys
	fn   *httptest.Server // /functions/v1 with the prefix stripped
	prov *httptest.Server // the fake providers
	sb   *sandbox.Sandbox
	// clientIP is what the stand-in gateway puts in X-Real-Ip.
	clientIP atomic.Value
}

// devSandbox configures the functions as `basalt dev` does: the sandbox is
// served as the function "sandbox" and reached in process.
func devSandbox(b *testBundle, c *backline.Config, _ *sandbox.Config) { c.UseSandbox(b.fn.URL) }

// option adjusts the functions' and the fake providers' configuration.
type option func(*testBundle, *backline.Config, *sandbox.Config)

// noWebhooks stops the fake providers from sending webhooks, so only the
// browser's return can complete a payment.
func noWebhooks(_ *testBundle, _ *backline.Config, sc *sandbox.Config) {
	sc.FlutterwaveWebhookURL, sc.PaystackWebhookURL = "", ""
}

func setup(t *testing.T, opts ...option) *testBundle {
	t.Helper()
	b := &testBundle{t: t, ctx: context.Background(), db: pgtest.NewDB(t)}
	b.clientIP.Store("203.0.113.7")
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b.keys = keys

	fnMux, provMux := http.NewServeMux(), http.NewServeMux()
	b.fn = httptest.NewServer(fnMux)
	t.Cleanup(b.fn.Close)
	b.prov = httptest.NewServer(provMux)
	t.Cleanup(b.prov.Close)

	sc := sandbox.Config{BaseURL: b.prov.URL, FlutterwaveSecretKey: flwKey, FlutterwaveSecretHash: flwHash,
		PaystackSecretKey: psKey, FlutterwaveWebhookURL: b.fn.URL + "/flutterwave-webhook",
		PaystackWebhookURL: b.fn.URL + "/paystack-webhook"}
	cfg := backline.Config{
		SiteURL:     "http://app.test",
		Flutterwave: backline.ProviderConfig{BaseURL: b.prov.URL + "/flutterwave", SecretKey: flwKey, SecretHash: flwHash},
		Paystack:    backline.ProviderConfig{BaseURL: b.prov.URL + "/paystack", SecretKey: psKey},
	}
	for _, o := range opts {
		o(b, &cfg, &sc)
	}
	b.sb = sandbox.New(sc)
	provMux.Handle("/", b.sb)
	bl, err := backline.New(cfg, b.db.User)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := functions.New(functions.Config{Keys: keys, Timeout: 30 * time.Second,
		Log: slog.New(slog.NewTextHandler(logWriter{t}, nil))}, bl.Functions()...)
	if err != nil {
		t.Fatal(err)
	}
	// The stand-in gateway does what the real one guarantees the services:
	// X-Real-Ip is overwritten with the address it trusts.
	fnMux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set(httpx.ClientIPHeader, b.clientIP.Load().(string))
		svc.ServeHTTP(w, r)
	}))
	return b
}

// logWriter sends the service's log to the test's, shown on failure.
type logWriter struct{ t *testing.T }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

var userSeq atomic.Int64

// signUp creates an auth user with the role in its sign-up metadata (the
// app's trigger creates profiles and wallet) and returns id and token.
func (b *testBundle) signUp(role string) (id, token string) {
	b.t.Helper()
	n := userSeq.Add(1)
	email := fmt.Sprintf("fn-user%d@example.com", n)
	meta, _ := json.Marshal(map[string]any{"role": role, "display_name": fmt.Sprintf("User %d", n),
		"username": fmt.Sprintf("fnuser%d", n)})
	err := b.db.Admin.QueryRow(b.ctx, `INSERT INTO auth.users (id, aud, role, email, raw_user_meta_data, created_at, updated_at)
		VALUES (gen_random_uuid(), 'authenticated', 'authenticated', $1, $2, now(), now()) RETURNING id::text`,
		email, meta).Scan(&id)
	if err != nil {
		b.t.Fatalf("sign up: %v", err)
	}
	return id, b.token(id, email)
}

// token signs an access token shaped like the auth service's.
func (b *testBundle) token(id, email string) string {
	b.t.Helper()
	now := time.Now()
	tok, err := b.keys.Sign(gojwt.MapClaims{"sub": id, "role": "authenticated", "aud": "authenticated",
		"email": email, "session_id": "00000000-0000-4000-8000-000000000001",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()})
	if err != nil {
		b.t.Fatal(err)
	}
	return tok
}

// call invokes a function the way functions-js does and returns the
// status and decoded JSON body.
func (b *testBundle) call(name, token string, body any) (int, map[string]any) {
	b.t.Helper()
	var rd io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(v)
	default:
		raw, _ := json.Marshal(v)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(http.MethodPost, b.fn.URL+"/"+name, rd)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("apikey", b.keys.AnonKey)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return b.do(req)
}

func (b *testBundle) do(req *http.Request) (int, map[string]any) {
	b.t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out map[string]any
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		b.t.Fatalf("%s: Content-Type %q, body %s", req.URL.Path, ct, raw)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		b.t.Fatalf("%s: body %s: %v", req.URL.Path, raw, err)
	}
	return res.StatusCode, out
}

// pay opens a checkout link, presses a button and returns where the
// browser is sent back to, without following it.
func (b *testBundle) pay(link, action string) *url.URL {
	b.t.Helper()
	if _, err := url.Parse(link); err != nil {
		b.t.Fatalf("checkout_url %q: %v", link, err)
	}
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noFollow.PostForm(link, url.Values{"action": {action}})
	if err != nil {
		b.t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		b.t.Fatalf("checkout %s: status %d", action, res.StatusCode)
	}
	back, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		b.t.Fatal(err)
	}
	return back
}

// scalar reads one value as the database owner.
func scalar[T any](b *testBundle, sql string, args ...any) T {
	b.t.Helper()
	var v T
	if err := b.db.Admin.QueryRow(b.ctx, sql, args...).Scan(&v); err != nil {
		b.t.Fatalf("query %q: %v", sql, err)
	}
	return v
}

// unusedURL is an address nothing listens on, for provider outages.
func unusedURL(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}
