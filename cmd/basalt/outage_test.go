package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

// outageSQL is the app schema of the outage tests: something for every
// service to read, so each request below really needs the database.
const outageSQL = `
CREATE TABLE public.notes (id int PRIMARY KEY, body text);
INSERT INTO public.notes VALUES (1, 'kept');
GRANT SELECT ON public.notes TO anon;
CREATE FUNCTION public.note_count() RETURNS bigint LANGUAGE sql AS $$ SELECT count(*) FROM public.notes $$;
-- The transfer-payment function's SQL entry point, reduced to an answer.
CREATE FUNCTION public.settle_sponsored_stream(uuid, uuid, text, numeric, uuid) RETURNS jsonb
	LANGUAGE sql AS $$ SELECT jsonb_build_object('success', true) $$;
`

// writeOutageSQL writes outageSQL as the app's only migration under dir.
func writeOutageSQL(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app", "0001_outage.sql"), []byte(outageSQL), 0o644); err != nil {
		t.Fatal(err)
	}
}

// probe is one request to a service that needs the database to answer.
type probe struct {
	name         string
	method, path string
	body         string
	bearer       string   // Authorization token; the apikey rides along
	ok           int      // status with the database up
	bodyKeys     []string // keys the service's 503 body carries
}

// outageProbes are requests to every service, each answered from the
// database; bodyKeys are each service's error shape.
func outageProbes(t *testing.T, keys *jwt.Keys) []probe {
	t.Helper()
	user, err := keys.SignHS256(gojwt.MapClaims{"sub": "5d6c0f2e-8a41-4b7e-9f3a-2c1d0e9b8a77", "role": "authenticated",
		"aud": "authenticated", "exp": time.Now().Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	transfer := `{"artist_id":"11111111-1111-1111-1111-111111111111","sponsor_id":"22222222-2222-2222-2222-222222222222","reference":"outage-1"}`
	rest := []string{"code", "details", "hint", "message"}
	return []probe{
		{name: "rest", method: "GET", path: "/rest/v1/notes?select=body", bearer: keys.AnonKey, ok: 200, bodyKeys: rest},
		{name: "rpc", method: "POST", path: "/rest/v1/rpc/note_count", body: `{}`, bearer: keys.AnonKey, ok: 200, bodyKeys: rest},
		{name: "auth", method: "GET", path: "/auth/v1/admin/users", bearer: keys.ServiceRoleKey, ok: 200,
			bodyKeys: []string{"code", "error_code", "msg"}},
		{name: "storage", method: "GET", path: "/storage/v1/bucket", bearer: keys.ServiceRoleKey, ok: 200,
			bodyKeys: []string{"statusCode", "code", "error", "message"}},
		{name: "functions", method: "POST", path: "/functions/v1/transfer-payment", body: transfer, bearer: user, ok: 200,
			bodyKeys: []string{"code", "message"}},
	}
}

// probeResult is one answer.
type probeResult struct {
	status     int
	retryAfter string
	body       []byte
}

// do sends p to the API at base with the anon apikey.
func (p probe) do(t *testing.T, base, apikey string) probeResult {
	t.Helper()
	var body io.Reader
	if p.body != "" {
		body = strings.NewReader(p.body)
	}
	req, err := http.NewRequest(p.method, base+p.path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("apikey", apikey)
	req.Header.Set("Authorization", "Bearer "+p.bearer)
	if p.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", p.name, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return probeResult{status: res.StatusCode, retryAfter: res.Header.Get("Retry-After"), body: b}
}

// outageWatch runs the probes against base while the database is down and
// until it is back, and checks every answer: the normal status, or 503
// with Retry-After and the service's error shape; never another 5xx.
type outageWatch struct {
	t       *testing.T
	base    string
	apikey  string
	probes  []probe
	seen503 map[string]int
}

func newOutageWatch(t *testing.T, base string, keys *jwt.Keys) *outageWatch {
	return &outageWatch{t: t, base: base, apikey: keys.AnonKey, probes: outageProbes(t, keys), seen503: map[string]int{}}
}

// round sends every probe once (and /health) and reports whether all of
// them answered as with the database up.
func (w *outageWatch) round() (allOK bool) {
	t := w.t
	t.Helper()
	allOK = true
	for _, p := range w.probes {
		r := p.do(t, w.base, w.apikey)
		switch {
		case r.status == p.ok:
		case r.status == http.StatusServiceUnavailable:
			allOK = false
			w.seen503[p.name]++
			if r.retryAfter == "" {
				t.Errorf("%s: 503 without Retry-After: %s", p.name, r.body)
			}
			var m map[string]any
			if err := json.Unmarshal(r.body, &m); err != nil {
				t.Errorf("%s: 503 body is not a JSON object: %s", p.name, r.body)
				break
			}
			for _, k := range p.bodyKeys {
				if _, ok := m[k]; !ok {
					t.Errorf("%s: 503 body lacks %q: %s", p.name, k, r.body)
				}
			}
		default:
			allOK = false
			t.Errorf("%s: status %d, want %d or 503: %s", p.name, r.status, p.ok, r.body)
		}
	}
	res, err := http.Get(w.base + "/health")
	if err != nil {
		t.Fatalf("health: %v", err)
	}
	_ = res.Body.Close()
	switch res.StatusCode {
	case http.StatusOK:
	case http.StatusServiceUnavailable:
		allOK = false
		w.seen503["health"]++
		if res.Header.Get("Retry-After") == "" {
			t.Error("health: 503 without Retry-After")
		}
	default:
		t.Errorf("health: status %d", res.StatusCode)
	}
	return allOK
}

// untilRecovered runs rounds until every probe answers normally, failing
// the test after timeout. down reports whether the outage is still on (the
// test's own condition); rounds continue while it is.
func (w *outageWatch) untilRecovered(timeout time.Duration, down func() bool) {
	t := w.t
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok := w.round()
		if t.Failed() {
			t.FailNow()
		}
		if ok && !down() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not recovered after %s (503s so far: %v)", timeout, w.seen503)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkAll503 fails unless every probe and /health answered 503 at least once.
func (w *outageWatch) checkAll503() {
	w.t.Helper()
	for _, p := range append(w.probes, probe{name: "health"}) {
		if w.seen503[p.name] == 0 {
			w.t.Errorf("%s never answered 503 during the outage (503s: %v)", p.name, w.seen503)
		}
	}
}

// TestDevRestartsKilledPostgres kills the embedded server like a crash
// would: basalt dev restarts it, every service answers 503 with
// Retry-After meanwhile (never 500), and all of them recover on their own.
func TestDevRestartsKilledPostgres(t *testing.T) {
	if _, err := pgcluster.FindBinDir(); err != nil {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	t.Parallel()
	tmp, err := os.MkdirTemp("", "bout")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	sqlDir := filepath.Join(tmp, "sql")
	writeOutageSQL(t, sqlDir)
	vars := map[string]string{
		"BASALT_API_PORT": freePort(t), "BASALT_DB_PORT": freePort(t), "BASALT_APP_PORT": "0",
		"BASALT_SQL_DIR": sqlDir, "BASALT_APP_DIR": filepath.Join(tmp, "dist"),
	}
	getenv := func(k string) string { return vars[k] }
	dataDir := filepath.Join(tmp, "data")
	stop, out := devRun(t, getenv, dataDir)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("dev stop: %v\n%s", err, out.String())
		}
		if !strings.Contains(out.String(), "postgres stopped") {
			t.Errorf("postgres not stopped cleanly after the restart:\n%s", out.String())
		}
	}()
	keys, _, err := jwt.LoadOrCreate(filepath.Join(dataDir, "keys.json"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w := newOutageWatch(t, "http://127.0.0.1:"+vars["BASALT_API_PORT"], keys)
	if !w.round() {
		t.Fatalf("services not answering normally before the kill:\n%s", out.String())
	}

	pidFile := filepath.Join(dataDir, "pg", "postmaster.pid")
	pid := pidIn(t, pidFile)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	w.untilRecovered(20*time.Second, func() bool {
		p, err := os.ReadFile(pidFile)
		return err != nil || strings.HasPrefix(string(p), strconv.Itoa(pid)+"\n")
	})
	w.checkAll503()
	for _, want := range []string{"postgres exited unexpectedly", `"status":"signal: killed"`, "postgres restarted"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, out.String())
		}
	}
}

// pidIn reads the postmaster pid from a postmaster.pid file.
func pidIn(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(first)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pid
}

// TestServeRidesOutDatabaseOutage stops the external database under
// basalt serve: every service answers 503 with Retry-After (never 500)
// until it is back, then all of them recover without a restart of serve.
func TestServeRidesOutDatabaseOutage(t *testing.T) {
	if _, err := pgcluster.FindBinDir(); err != nil {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	t.Parallel()
	ctx := context.Background()
	c, stopCluster, err := pgcluster.StartTemp(ctx, "bsrv", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stopCluster)
	tmp := t.TempDir()
	sqlDir := filepath.Join(tmp, "sql")
	writeOutageSQL(t, sqlDir)
	port := freePort(t)
	secret := strings.Repeat("s", 40)
	vars := map[string]string{
		"DATABASE_URL": c.SocketURL("postgres", "postgres"), "BASALT_AUTHENTICATOR_URL": c.SocketURL("authenticator", "postgres"),
		"JWT_SECRET": secret, "BASALT_API_PORT": port, "BASALT_APP_PORT": "0", "BASALT_HOST": "127.0.0.1",
		"BASALT_SQL_DIR": sqlDir, "STORAGE_FILE_DIR": filepath.Join(tmp, "storage"),
	}
	sctx, cancel := context.WithCancel(ctx)
	out := &syncBuf{}
	done := make(chan error, 1)
	go func() { done <- run(sctx, []string{"serve"}, out, out, func(k string) string { return vars[k] }) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve stop: %v\n%s", err, out.String())
		}
	}()
	base := "http://127.0.0.1:" + port
	waitHealthy(t, base, done, out)
	keys, err := keysFromConfig(config.Config{JWTSecret: secret})
	if err != nil {
		t.Fatal(err)
	}
	w := newOutageWatch(t, base, keys)
	if !w.round() {
		t.Fatalf("services not answering normally before the outage:\n%s", out.String())
	}

	if err := c.Stop(ctx, "fast"); err != nil {
		t.Fatal(err)
	}
	// Down for a while: nothing but 503s.
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if w.round() {
			t.Fatal("every service answered normally with the database stopped")
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	// Back: requests keep flowing while it starts up, then recover.
	var back atomic.Bool
	started := make(chan error, 1)
	go func() { err := c.Start(ctx); back.Store(err == nil); started <- err }()
	w.untilRecovered(20*time.Second, func() bool { return !back.Load() })
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	w.checkAll503()
}

// waitHealthy polls /health until it answers 200, failing if serve exits.
func waitHealthy(t *testing.T, base string, done <-chan error, out *syncBuf) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if res, err := http.Get(base + "/health"); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited: %v\n%s", err, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not healthy:\n%s", out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
