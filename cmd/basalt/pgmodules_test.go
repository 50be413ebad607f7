package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/basaltdev/basalt/backup"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/pgmodules"
)

// startServeNode runs `basalt serve` on db's URLs until the test ends and
// returns its API URL once /health answers 200.
func startServeNode(t *testing.T, db *pgtest.DB, extra map[string]string) string {
	t.Helper()
	port := freePort(t)
	vars := map[string]string{
		"DATABASE_URL": db.AdminURL, "BASALT_AUTHENTICATOR_URL": db.UserURL, "JWT_SECRET": strings.Repeat("k", 40),
		"BASALT_API_PORT": port, "BASALT_APP_PORT": "0", "BASALT_HOST": "127.0.0.1", "BASALT_SQL_DIR": t.TempDir(),
	}
	for k, v := range extra {
		vars[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuf{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve"}, out, out, func(k string) string { return vars[k] }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve stop: %v\n%s", err, out.String())
		}
	})
	base := "http://127.0.0.1:" + port
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(base + "/health"); err == nil {
			_ = res.Body.Close()
			if res.StatusCode == 200 {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not healthy:\n%s", out.String())
		}
	}
}

// Two Basalt nodes on one database with pg_cron: each cron tick runs once
// (pg_cron runs in the database), a failing job is recorded as failed, each
// webhook request is sent by one node, and /health says cron is on.
func TestTwoNodesCronAndWebhooks(t *testing.T) {
	t.Parallel()
	db := pgtest.CronDB(t)
	ctx := context.Background()
	st, err := pgmodules.Cron(ctx, db.Admin)
	if err != nil || !st.Enabled {
		t.Fatalf("pg_cron not enabled in the cron database: %+v %v", st, err)
	}
	// The finest schedule this pg_cron takes: seconds from 1.5 on, else
	// standard cron syntax, whose finest tick is a minute.
	schedule, tick, ticks := "* * * * *", "minute", 1
	if st.Seconds {
		schedule, tick, ticks = "1 seconds", "second", 3
	}

	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p struct {
			Record struct{ ID int } `json:"record"`
		}
		_ = json.NewDecoder(r.Body).Decode(&p)
		mu.Lock()
		hits[fmt.Sprint(p.Record.ID)]++
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	mustExec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Admin.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	mustExec(`DROP TABLE IF EXISTS public.two_node_ticks, public.two_node_rows`)
	mustExec(`CREATE TABLE public.two_node_ticks (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp())`)
	mustExec(`CREATE TABLE public.two_node_rows (id int PRIMARY KEY)`)
	mustExec(fmt.Sprintf(`CREATE TRIGGER two_node_hook AFTER INSERT ON public.two_node_rows FOR EACH ROW
		EXECUTE FUNCTION supabase_functions.http_request('%s', 'POST')`, srv.URL))
	t.Cleanup(func() {
		_, _ = db.Admin.Exec(ctx, `SELECT cron.unschedule(jobname) FROM cron.job WHERE jobname LIKE 'two_node_%'`)
		_, _ = db.Admin.Exec(ctx, `DROP TABLE IF EXISTS public.two_node_ticks, public.two_node_rows`)
	})

	nodes := []string{}
	for i := 0; i < 2; i++ {
		nodes = append(nodes, startServeNode(t, db, map[string]string{"BASALT_NET_ALLOWED_CIDRS": "127.0.0.0/8"}))
	}
	var okJob, failJob int64
	if err := db.Admin.QueryRow(ctx, `SELECT cron.schedule('two_node_ok', $1, 'INSERT INTO public.two_node_ticks DEFAULT VALUES')`, schedule).Scan(&okJob); err != nil {
		t.Fatal(err)
	}
	if err := db.Admin.QueryRow(ctx, `SELECT cron.schedule('two_node_fail', $1, 'SELECT 1/0')`, schedule).Scan(&failJob); err != nil {
		t.Fatal(err)
	}

	// Webhooks while the nodes run: 100 rows, each sent once.
	mustExec(`INSERT INTO public.two_node_rows SELECT generate_series(1, 100)`)

	// Wait for the ticks: runs recorded for both jobs.
	deadline := time.Now().Add(150 * time.Second)
	for {
		var ok, failed int
		if err := db.Admin.QueryRow(ctx, `SELECT count(*) FILTER (WHERE jobid = $1 AND status = 'succeeded'),
			count(*) FILTER (WHERE jobid = $2 AND status = 'failed') FROM cron.job_run_details`, okJob, failJob).Scan(&ok, &failed); err != nil {
			t.Fatal(err)
		}
		if ok >= ticks && failed >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after waiting for %d %s tick(s): %d succeeded runs, %d failed runs", ticks, tick, ok, failed)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// One run, and one row, per tick, although two nodes serve the database.
	var runs, rows, perTick int
	if err := db.Admin.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM cron.job_run_details WHERE jobid = $1 AND status = 'succeeded'),
		(SELECT count(*) FROM public.two_node_ticks),
		(SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM public.two_node_ticks GROUP BY date_trunc($2, at)) x)`,
		okJob, tick).Scan(&runs, &rows, &perTick); err != nil {
		t.Fatal(err)
	}
	if rows != runs || perTick != 1 {
		t.Errorf("%d recorded runs, %d rows, at most %d row(s) in one %s: want one per tick", runs, rows, perTick, tick)
	}
	var msg string
	if err := db.Admin.QueryRow(ctx, `SELECT return_message FROM cron.job_run_details WHERE jobid = $1 AND status = 'failed' LIMIT 1`, failJob).Scan(&msg); err != nil || !strings.Contains(msg, "division by zero") {
		t.Errorf("failed run's message = %q (%v)", msg, err)
	}

	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		n := len(hits)
		mu.Unlock()
		if n == 100 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhooks received for %d of 100 rows", n)
		}
	}
	var answered int
	for deadline := time.Now().Add(10 * time.Second); answered < 100 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err := db.Admin.QueryRow(ctx, `SELECT count(*) FROM net._http_response r JOIN supabase_functions.hooks h ON h.request_id = r.id
			WHERE h.hook_name = 'two_node_hook'`).Scan(&answered); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	for id, n := range hits {
		if n != 1 {
			t.Errorf("row %s: webhook received %d times", id, n)
		}
	}
	mu.Unlock()
	if answered != 100 {
		t.Errorf("%d of 100 webhook answers recorded", answered)
	}

	res, err := http.Get(nodes[0] + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	var health struct {
		Details struct {
			Cron pgmodules.CronStatus `json:"cron"`
		} `json:"details"`
	}
	if err := json.Unmarshal(body, &health); err != nil || !health.Details.Cron.Enabled || health.Details.Cron.Version == "" {
		t.Errorf("/health = %s, want details.cron enabled", body)
	}
}

// Without pg_cron in its database, /health says so and how to turn it on.
func TestHealthSaysHowToEnableCron(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	base := startServeNode(t, db, nil)
	res, err := http.Get(base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	var health struct {
		Status  string `json:"status"`
		Details struct {
			Cron pgmodules.CronStatus `json:"cron"`
		} `json:"details"`
	}
	if err := json.Unmarshal(body, &health); err != nil {
		t.Fatal(err)
	}
	// This package's cluster preloads pg_cron for another database.
	want := fmt.Sprintf("pg_cron runs jobs of database '%s', not '%s': set cron.database_name = '%s'", pgtest.CronDatabase, db.Name, db.Name)
	if health.Status != "ok" || health.Details.Cron.Enabled || !strings.Contains(health.Details.Cron.Problem, want) {
		t.Errorf("/health = %s, want cron off with %q", body, want)
	}
}

// A backup holding pg_cron's jobs restores into a database without pg_cron
// (everything but the jobs, with a note saying so) and into one where
// pg_cron runs (the jobs too, moved to the new database's name).
func TestBackupRestoreCronJobs(t *testing.T) {
	ctx := context.Background()
	src := pgtest.CronDB(t)
	if _, err := src.Admin.Exec(ctx, `CREATE TABLE public.kept_rows (id int PRIMARY KEY); INSERT INTO public.kept_rows VALUES (7);
		SELECT cron.schedule('restore_me', '0 3 * * *', 'SELECT 1')`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = src.Admin.Exec(ctx, `SELECT cron.unschedule('restore_me'); DROP TABLE IF EXISTS public.kept_rows`)
	})
	tmp, err := os.MkdirTemp("", "bcron")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if err := os.Chmod(tmp, 0o755); err != nil { // the embedded cluster runs as postgres under root
		t.Fatal(err)
	}
	archive := filepath.Join(tmp, "cron.tar.gz")
	if err := run(ctx, []string{"backup", "--out", archive}, io.Discard, io.Discard,
		mapEnv(map[string]string{"DATABASE_URL": src.AdminURL, "STORAGE_FILE_DIR": t.TempDir()})); err != nil {
		t.Fatalf("backup: %v", err)
	}

	plain := pgtest.NewEmptyDB(t)
	var out strings.Builder
	if err := run(ctx, []string{"restore", "--from", archive}, &out, io.Discard,
		mapEnv(map[string]string{"DATABASE_URL": plain.AdminURL, "STORAGE_FILE_DIR": t.TempDir()})); err != nil {
		t.Fatalf("restore into a database without pg_cron: %v", err)
	}
	if !strings.Contains(out.String(), "note: "+backup.CronNotRestored) {
		t.Errorf("restore output lacks the cron note:\n%s", out.String())
	}
	var kept int
	if err := plain.Admin.QueryRow(ctx, `SELECT id FROM public.kept_rows`).Scan(&kept); err != nil || kept != 7 {
		t.Errorf("restored row: %d (%v)", kept, err)
	}

	dataDir := filepath.Join(tmp, "data")
	devVars := map[string]string{"BASALT_DB_PORT": freePort(t)}
	out.Reset()
	if err := run(ctx, []string{"restore", "--from", archive, "--data-dir", dataDir}, &out, io.Discard, mapEnv(devVars)); err != nil {
		t.Fatalf("restore into the embedded cluster: %v", err)
	}
	if strings.Contains(out.String(), "note:") {
		t.Errorf("restore into a cluster with pg_cron left a note:\n%s", out.String())
	}
	cfg, err := config.Load(config.Dev, mapEnv(map[string]string{"BASALT_DATA_DIR": dataDir, "BASALT_DB_PORT": devVars["BASALT_DB_PORT"]}))
	if err != nil {
		t.Fatal(err)
	}
	c, err := embeddedCluster(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := startEmbedded(ctx, c); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background(), "fast") })
	db, err := pg.Connect(ctx, c.SocketURL(embeddedUser, embeddedDB), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var database string
	if err := db.QueryRow(ctx, `SELECT database FROM cron.job WHERE jobname = 'restore_me'`).Scan(&database); err != nil || database != embeddedDB {
		t.Errorf("restored job's database = %q (%v), want %q", database, err, embeddedDB)
	}
}
