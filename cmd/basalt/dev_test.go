package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// syncBuf is a goroutine-safe bytes.Buffer for the dev process output.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// devRun starts `basalt dev` in-process and returns its stop function.
func devRun(t *testing.T, getenv func(string) string, dataDir string) (stop func() error, out *syncBuf) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out = &syncBuf{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"dev", "--data-dir", dataDir}, out, out, getenv) }()
	health := "http://127.0.0.1:" + getenv("BASALT_API_PORT") + "/health"
	deadline := time.Now().Add(2 * time.Minute)
	for {
		select {
		case err := <-done:
			cancel()
			t.Fatalf("basalt dev exited early: %v\n%s", err, out.String())
		default:
		}
		if res, err := http.Get(health); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("basalt dev not healthy:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	return func() error { cancel(); return <-done }, out
}

// devTempDir is a folder for a `basalt dev` test, removed afterwards,
// that the cluster's server user can enter; without server binaries the
// test is skipped (failed under PGTEST_REQUIRED).
func devTempDir(t *testing.T, prefix string) string {
	t.Helper()
	if _, err := pgcluster.FindBinDir(); err != nil {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	return tmp
}

// writeFiles writes files (path below root: contents), making folders.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDevLifecycle(t *testing.T) {
	tmp := devTempDir(t, "bdev")
	sqlDir := filepath.Join(tmp, "sql")
	writeFiles(t, sqlDir, map[string]string{
		"app/0001_notes.sql": `CREATE TABLE public.notes (id int PRIMARY KEY, body text);`,
		"seed/01_notes.sql":  `INSERT INTO public.notes VALUES (1, 'seeded') ON CONFLICT (id) DO NOTHING;`,
		"seed/02_more.sql":   `INSERT INTO public.notes VALUES (2, (SELECT body FROM public.notes WHERE id = 1) || ' again') ON CONFLICT (id) DO NOTHING;`,
	})
	vars := map[string]string{
		"BASALT_API_PORT": freePort(t), "BASALT_DB_PORT": freePort(t), "BASALT_APP_PORT": freePort(t),
		"BASALT_SQL_DIR": sqlDir, "BASALT_APP_DIR": filepath.Join(tmp, "dist"),
	}
	getenv := func(k string) string { return vars[k] }
	dataDir := filepath.Join(tmp, "data")

	stop, out := devRun(t, getenv, dataDir)
	var status bytes.Buffer
	if err := run(context.Background(), []string{"status", "--json", "--data-dir", dataDir}, &status, &status, getenv); err != nil {
		t.Fatalf("status: %v", err)
	}
	var st map[string]any
	if err := json.Unmarshal(status.Bytes(), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, status.String())
	}
	for _, k := range []string{"api_url", "db_url", "app_url", "anon_key", "service_role_key", "jwt_secret", "jwks_url", "publishable_key", "secret_key"} {
		if s, _ := st[k].(string); s == "" {
			t.Errorf("status lacks %s", k)
		}
	}
	if st["api_url"] != "http://127.0.0.1:"+vars["BASALT_API_PORT"] {
		t.Errorf("api_url = %v", st["api_url"])
	}
	if !strings.Contains(out.String(), "service_role key") || !strings.Contains(out.String(), st["anon_key"].(string)) {
		t.Errorf("banner missing:\n%s", out.String())
	}
	checkDevStudio(t, st, out.String())
	// The printed DB URL works over TCP with the password.
	ctx := context.Background()
	db, err := pg.Connect(ctx, st["db_url"].(string), nil)
	if err != nil {
		t.Fatal(err)
	}
	var body string
	if err := db.QueryRow(ctx, `SELECT body FROM public.notes WHERE id = 2`).Scan(&body); err != nil || body != "seeded again" {
		t.Errorf("seed: %q %v", body, err)
	}
	if _, err := db.Exec(ctx, `INSERT INTO public.notes VALUES (3, 'written by a user')`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	// A second dev on the same data dir is refused while the first runs.
	err = run(ctx, []string{"dev", "--data-dir", dataDir}, &bytes.Buffer{}, &bytes.Buffer{}, getenv)
	if err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second dev: %v, want already running", err)
	}

	if err := stop(); err != nil {
		t.Fatalf("dev stop: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "postgres stopped") {
		t.Errorf("postgres not stopped cleanly:\n%s", out.String())
	}
	if err := run(ctx, []string{"status", "--json", "--data-dir", dataDir}, &bytes.Buffer{}, &bytes.Buffer{}, getenv); !errors.Is(err, errNotRunning) {
		t.Errorf("status after stop: %v, want not running", err)
	}

	// Restart: same keys, data kept, seeds re-run without duplicating.
	stop, out = devRun(t, getenv, dataDir)
	status.Reset()
	if err := run(ctx, []string{"status", "--json", "--data-dir", dataDir}, &status, &status, getenv); err != nil {
		t.Fatal(err)
	}
	var st2 map[string]any
	_ = json.Unmarshal(status.Bytes(), &st2)
	if st2["anon_key"] != st["anon_key"] || st2["jwt_secret"] != st["jwt_secret"] {
		t.Error("keys changed across restarts")
	}
	db, err = pg.Connect(ctx, st2["db_url"].(string), nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM public.notes`).Scan(&n); err != nil || n != 3 {
		t.Errorf("rows after restart = %d (%v), want 3", n, err)
	}
	db.Close()
	if !strings.Contains(out.String(), `"applied":0`) {
		t.Errorf("restart re-applied migrations:\n%s", out.String())
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}

func TestNewMigration(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "app")
	p1, err := newMigration(dir, "Create tracks table")
	if err != nil || filepath.Base(p1) != "0001_create_tracks_table.sql" {
		t.Fatalf("first = %q, %v", p1, err)
	}
	p2, err := newMigration(dir, "wallets")
	if err != nil || filepath.Base(p2) != "0002_wallets.sql" {
		t.Fatalf("second = %q, %v", p2, err)
	}
	if _, err := newMigration(dir, "!!!"); err == nil {
		t.Error("a name without letters was accepted")
	}
}

func TestUsage(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"version"}, &out, &out, os.Getenv); err != nil || !strings.HasPrefix(out.String(), "basalt ") {
		t.Errorf("version: %q %v", out.String(), err)
	}
	var ue usageError
	if err := run(context.Background(), []string{"frobnicate"}, &out, &out, os.Getenv); !errors.As(err, &ue) {
		t.Errorf("unknown command: %v, want usage error", err)
	}
}
