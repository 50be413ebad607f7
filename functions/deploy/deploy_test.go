package deploy_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"

	"github.com/basaltdev/basalt/functions"
	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/functions/deploy"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/internal/telemetry"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// node is one Basalt node's functions service over a shared database.
type node struct {
	url    string
	source *deploy.Source
	logs   *deploy.LogSink
}

func startNode(t *testing.T, db *pgtest.DB, keys *jwt.Keys, bin string) *node {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	store, err := deploy.NewStore(db.Admin, keys.Secret)
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	src, err := deploy.NewSource(ctx, store, filepath.Join(work, "deployed"), nil)
	if err != nil {
		t.Fatal(err)
	}
	go src.Run(ctx)
	logs := deploy.NewLogSink(db.Admin, time.Hour, slog.New(slog.DiscardHandler))
	rt, err := deno.New(deno.Config{DenoBin: bin, WorkDir: filepath.Join(work, "run"), CacheDir: filepath.Join(work, "cache"),
		Logs: logs, Env: func() map[string]string { return src.Secrets() }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rt.Close)
	svc, err := functions.New(functions.Config{Keys: keys, Deno: rt, Sources: []functions.Source{src},
		Admin: deploy.NewAdmin(store, src, func(n string) bool { return n == "gofn" })},
		functions.Function{Name: "gofn", Handler: func(w http.ResponseWriter, r *http.Request) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		svc.ServeHTTP(w, r.WithContext(telemetry.WithRequestID(r.Context(), "rid-"+time.Now().Format("150405.000000"))))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(logs.Close)
	return &node{url: srv.URL, source: src, logs: logs}
}

func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "supabase")
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, "functions")
}

func do(t *testing.T, method, url, token string, body io.Reader) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, body)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// eventually retries get until it returns want, for what another node
// picks up from a NOTIFY.
func eventually(t *testing.T, what string, get func() string, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := get()
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: got %q, want %q", what, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestDeployAcrossNodes(t *testing.T) {
	bin, err := deno.FindBin(os.Getenv)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	db := pgtest.NewDB(t)
	keys, err := jwt.Generate(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	sign := func(role string) string {
		tok, err := keys.Sign(gojwt.MapClaims{"role": role, "sub": "operator", "exp": time.Now().Add(time.Hour).Unix()})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	service, anon := sign("service_role"), sign("anon")
	a, b := startNode(t, db, keys, bin), startNode(t, db, keys, bin)

	v1 := writeProject(t, map[string]string{
		"config.toml":              "[functions.greet]\nverify_jwt = false\n",
		"functions/_shared/who.ts": `export const who = "v1";`,
		"functions/greet/index.ts": `import { who } from "../_shared/who.ts";
Deno.serve(() => { console.log("greeting from", who); return new Response(who + " " + (Deno.env.get("GREETING") ?? "none")); });`,
	})
	bundle, err := deploy.Build(v1, "greet")
	if err != nil {
		t.Fatal(err)
	}

	// Only the service role may deploy.
	if code, body := do(t, "PUT", a.url+"/_admin/functions/greet?verify_jwt=false", anon, bytes.NewReader(bundle)); code != 401 {
		t.Fatalf("anon deploy: %d %s", code, body)
	}
	if code, body := do(t, "PUT", a.url+"/_admin/functions/gofn", service, bytes.NewReader(bundle)); code != 409 {
		t.Fatalf("deploy over a Go function: %d %s", code, body)
	}
	if code, body := do(t, "PUT", a.url+"/_admin/functions/greet", service, strings.NewReader("not a bundle")); code != 400 || !strings.Contains(body, "invalid_bundle") {
		t.Fatalf("bad bundle: %d %s", code, body)
	}
	code, body := do(t, "PUT", a.url+"/_admin/functions/greet?verify_jwt=false", service, bytes.NewReader(bundle))
	if code != 201 || !strings.Contains(body, `"version":1`) {
		t.Fatalf("deploy: %d %s", code, body)
	}
	get := func(n *node) func() string {
		return func() string { _, body := do(t, "GET", n.url+"/greet", "", nil); return body }
	}
	eventually(t, "node A after deploy", get(a), "v1 none")
	eventually(t, "node B after deploy", get(b), "v1 none")

	// A secret set through A reaches functions on B.
	code, body = do(t, "POST", a.url+"/_admin/secrets", service, strings.NewReader(`[{"name":"GREETING","value":"hi there"}]`))
	if code != 201 {
		t.Fatalf("set secret: %d %s", code, body)
	}
	// Workers read the environment when they start: a new version starts one.
	v2 := writeProject(t, map[string]string{
		"config.toml":              "[functions.greet]\nverify_jwt = false\n",
		"functions/_shared/who.ts": `export const who = "v2";`,
		"functions/greet/index.ts": `import { who } from "../_shared/who.ts";
Deno.serve(() => new Response(who + " " + (Deno.env.get("GREETING") ?? "none")));`,
	})
	bundle2, err := deploy.Build(v2, "greet")
	if err != nil {
		t.Fatal(err)
	}
	if code, body := do(t, "PUT", b.url+"/_admin/functions/greet?verify_jwt=false", service, bytes.NewReader(bundle2)); code != 201 || !strings.Contains(body, `"version":2`) {
		t.Fatalf("deploy v2: %d %s", code, body)
	}
	eventually(t, "node A after v2", get(a), "v2 hi there")
	eventually(t, "node B after v2", get(b), "v2 hi there")

	// Secret values are never listed, only digests.
	_, body = do(t, "GET", a.url+"/_admin/secrets", service, nil)
	if strings.Contains(body, "hi there") || !strings.Contains(body, `"name":"GREETING"`) {
		t.Fatalf("secrets list: %s", body)
	}
	var sealed []byte
	if err := db.Admin.QueryRow(context.Background(), `SELECT sealed FROM basalt.secrets WHERE name = 'GREETING'`).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("hi there")) {
		t.Fatal("the secret is stored in clear")
	}

	// Rollback to v1 from A: both nodes serve v1 again.
	if code, body := do(t, "POST", a.url+"/_admin/functions/greet/rollback", service, nil); code != 200 || !strings.Contains(body, `"version":1`) {
		t.Fatalf("rollback: %d %s", code, body)
	}
	eventually(t, "node B after rollback", get(b), "v1 hi there")
	eventually(t, "node A after rollback", get(a), "v1 hi there")

	// The list shows both versions, v1 active.
	_, body = do(t, "GET", a.url+"/_admin/functions", service, nil)
	var vs []deploy.Version
	if err := json.Unmarshal([]byte(body), &vs); err != nil || len(vs) != 2 || !vs[0].Active || vs[1].Active {
		t.Fatalf("list: %s %v", body, err)
	}

	// Logs: console lines and invocations, with request ids.
	a.logs.Close()
	b.logs.Close()
	_, body = do(t, "GET", a.url+"/_admin/functions/greet/logs?limit=50", service, nil)
	var es []deploy.LogEntry
	if err := json.Unmarshal([]byte(body), &es); err != nil {
		t.Fatal(body, err)
	}
	var sawLine, sawRequest bool
	for _, e := range es {
		sawLine = sawLine || (e.Kind == "log" && strings.Contains(e.Message, "greeting from v1") && strings.HasPrefix(e.RequestID, "rid-"))
		sawRequest = sawRequest || (e.Kind == "request" && e.Status != nil && *e.Status == 200 && strings.HasPrefix(e.RequestID, "rid-"))
	}
	if !sawLine || !sawRequest {
		t.Fatalf("logs lack a console line or an invocation with its request id: %s", body)
	}

	// Delete: gone from both nodes.
	if code, body := do(t, "DELETE", a.url+"/_admin/functions/greet", service, nil); code != 204 {
		t.Fatalf("delete: %d %s", code, body)
	}
	eventually(t, "node B after delete", func() string { code, _ := do(t, "GET", b.url+"/greet", "", nil); return http.StatusText(code) }, "Not Found")
}

func TestUnpackRefusesEscapes(t *testing.T) {
	dir := writeProject(t, map[string]string{"functions/ok/index.ts": `Deno.serve(() => new Response("ok"))`})
	b, err := deploy.Build(dir, "ok")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := deploy.Unpack(b, t.TempDir(), "ok"); err != nil {
		t.Fatalf("a good bundle: %v", err)
	}
	if _, err := deploy.Unpack(b, t.TempDir(), "other"); err == nil {
		t.Fatal("a bundle without the named function was accepted")
	}
	if _, err := deploy.Unpack(evilBundle(t, "../escape.ts"), t.TempDir(), "ok"); err == nil || !strings.Contains(err.Error(), "leaves the bundle") {
		t.Fatalf("path escape: %v", err)
	}
	if _, err := deploy.Unpack(evilBundle(t, "/etc/x"), t.TempDir(), "ok"); err == nil {
		t.Fatal("absolute path accepted")
	}
}

func evilBundle(t testing.TB, name string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	body := []byte("x")
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body))}); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write(body)
	_ = tw.Close()
	_ = gz.Close()
	return buf.Bytes()
}

// FuzzUnpack: whatever arrives as a bundle, Unpack never writes outside
// its folder and never panics.
func FuzzUnpack(f *testing.F) {
	f.Add(evilBundle(f, "../x"))
	f.Add(evilBundle(f, "functions/ok/index.ts"))
	f.Add([]byte("not gzip"))
	f.Fuzz(func(t *testing.T, b []byte) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "in")
		_, _ = deploy.Unpack(b, dir, "ok")
		entries, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != "in" {
				t.Fatalf("wrote %s outside the bundle folder", e.Name())
			}
		}
	})
}
