package pgcluster_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

// newCluster describes a cluster in a fresh temp dir, or skips when the
// machine has no server binaries (fails under PGTEST_REQUIRED=1).
func newCluster(t *testing.T) *pgcluster.Cluster {
	t.Helper()
	bin, err := pgcluster.FindBinDir()
	if err != nil {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	// Short, world-traversable path: the server may run as another user and
	// the socket path must stay short.
	dir, err := os.MkdirTemp("", "pgc")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &pgcluster.Cluster{
		BinDir:    bin,
		DataDir:   filepath.Join(dir, "pg"),
		SocketDir: filepath.Join(dir, "run"),
		Port:      freePort(t),
		Password:  "s3cret",
		Settings:  map[string]string{"wal_level": "logical", "fsync": "off", "max_connections": "20"},
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = c.Stop(ctx, "immediate")
		_ = os.RemoveAll(dir)
	})
	return c
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func query(t *testing.T, url, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pg.Connect(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var out string
	if err := pool.QueryRow(ctx, sql).Scan(&out); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func exec1(t *testing.T, url, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pg.Connect(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func start(t *testing.T, c *pgcluster.Cluster) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := c.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
}

func stop(t *testing.T, c *pgcluster.Cluster, mode string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Stop(ctx, mode); err != nil {
		t.Fatal(err)
	}
}

func TestLifecycle(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	start(t, c)
	if !c.Running() {
		t.Fatal("Running() = false after Start")
	}
	sock := c.SocketURL("postgres", "postgres")
	if got := query(t, sock, `SHOW wal_level`); got != "logical" {
		t.Errorf("wal_level = %q, want logical (settings written at init)", got)
	}
	// TCP needs the password; the socket is trusted.
	if got := query(t, c.TCPURL("postgres", "s3cret", "postgres"), `SELECT current_user::text`); got != "postgres" {
		t.Errorf("TCP user = %q", got)
	}
	ctx := context.Background()
	if _, err := pg.Connect(ctx, c.TCPURL("postgres", "wrong", "postgres"), nil); err == nil {
		t.Error("TCP login with a wrong password succeeded")
	}
	exec1(t, sock, `CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before restart')`)

	// A second server on the same data dir is refused with a clear message.
	if err := c.Start(ctx); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Errorf("second Start = %v, want already running", err)
	}

	// Clean stop: no pid file, server gone.
	stop(t, c, "fast")
	if c.Running() {
		t.Error("Running() = true after Stop")
	}
	if _, err := os.Stat(filepath.Join(c.DataDir, "postmaster.pid")); !os.IsNotExist(err) {
		t.Errorf("postmaster.pid left after a clean stop: %v", err)
	}
	if err := c.Stop(ctx, "fast"); err != nil {
		t.Errorf("Stop on a stopped cluster = %v, want nil", err)
	}

	// Restart keeps the data; Init on an existing cluster writes the
	// settings of this version (a setting added, one changed), once.
	c.Settings["work_mem"] = "'7MB'"
	c.Settings["max_connections"] = "25"
	start(t, c)
	if got := query(t, sock, `SELECT v FROM kept`); got != "before restart" {
		t.Errorf("after restart: %q", got)
	}
	if got := query(t, sock, `SHOW work_mem`); got != "7MB" {
		t.Errorf("work_mem = %q after a restart with a new setting, want 7MB", got)
	}
	if got := query(t, sock, `SHOW max_connections`); got != "25" {
		t.Errorf("max_connections = %q after a restart with a changed setting, want 25", got)
	}
	conf, err := os.ReadFile(filepath.Join(c.DataDir, "postgresql.conf"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(conf), "# written by basalt"); n != 1 {
		t.Errorf("postgresql.conf has %d blocks written by basalt, want 1", n)
	}
}

func TestStalePID(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	start(t, c)
	exec1(t, c.SocketURL("postgres", "postgres"), `CREATE TABLE kept (v text); INSERT INTO kept VALUES ('x')`)
	stop(t, c, "fast")
	pidFile := filepath.Join(c.DataDir, "postmaster.pid")

	// A pid file naming a dead process (left by a crash before a reboot)...
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	writePID(t, pidFile, dead.Process.Pid, c.DataDir)
	start(t, c)
	if got := query(t, c.SocketURL("postgres", "postgres"), `SELECT v FROM kept`); got != "x" {
		t.Errorf("after stale pid (dead process): %q", got)
	}
	stop(t, c, "fast")

	// ...or a live process that is not PostgreSQL (the pid was reused).
	writePID(t, pidFile, os.Getpid(), c.DataDir)
	start(t, c)
	stop(t, c, "fast")
}

func TestCrashRecovery(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	start(t, c)
	exec1(t, c.SocketURL("postgres", "postgres"), `CREATE TABLE kept (v text); INSERT INTO kept VALUES ('committed')`)
	b, err := os.ReadFile(filepath.Join(c.DataDir, "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(first)
	// Kill the postmaster like a power cut would, then wait until it and its
	// children are gone.
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	if c.Running() {
		t.Fatal("Running() = true with a killed postmaster")
	}
	var err2 error
	for i := 0; i < 50; i++ { // backends notice the dead postmaster within moments
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err2 = c.Start(ctx)
		cancel()
		if err2 == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err2 != nil {
		t.Fatalf("start after crash: %v", err2)
	}
	if got := query(t, c.SocketURL("postgres", "postgres"), `SELECT v FROM kept`); got != "committed" {
		t.Errorf("after crash recovery: %q", got)
	}
}

func writePID(t *testing.T, path string, pid int, dataDir string) {
	t.Helper()
	// The real file's first lines: pid, data dir, start time, port.
	if err := os.WriteFile(path, []byte(fmt.Sprintf("%d\n%s\n0\n5432\n", pid, dataDir)), 0o600); err != nil {
		t.Fatal(err)
	}
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d still alive", pid)
}

func TestFindBinDirErrorSaysWhatToInstall(t *testing.T) {
	t.Parallel()
	msg := pgcluster.ErrNoBinaries.Error()
	for _, want := range []string{"PostgreSQL 15", "apt-get install", "PG_BIN", "DATABASE_URL"} {
		if !strings.Contains(msg, want) {
			t.Errorf("ErrNoBinaries lacks %q", want)
		}
	}
}

// A standby made by StartStandby is in recovery, refuses writes and
// replays what the primary commits afterwards.
func TestStandby(t *testing.T) {
	if _, err := pgcluster.FindBinDir(); err != nil {
		if os.Getenv("PGTEST_REQUIRED") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	primary, stop, err := pgcluster.StartTemp(ctx, "pgp", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	standby, stopStandby, err := pgcluster.StartTempStandby(ctx, primary, "pgs")
	if err != nil {
		t.Fatal(err)
	}
	defer stopStandby()
	purl, surl := primary.SocketURL("postgres", "postgres"), standby.SocketURL("postgres", "postgres")
	if got := query(t, surl, "SELECT pg_is_in_recovery()::text"); got != "true" {
		t.Fatalf("standby in recovery: %s", got)
	}
	exec1(t, purl, "CREATE TABLE t AS SELECT 'replicated'::text AS v")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if got := query(t, surl, "SELECT count(*)::text FROM pg_class WHERE relname = 't'"); got == "1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the standby never replayed the new table")
		}
	}
	if got := query(t, surl, "SELECT v FROM t"); got != "replicated" {
		t.Errorf("standby reads %q", got)
	}
}

// TestPreloadsStatStatements: the server loads pg_stat_statements, as
// Supabase's does, so EXPLAIN VERBOSE reports a query identifier; a cluster
// whose settings name their own preloads keeps them.
func TestPreloadsStatStatements(t *testing.T) {
	t.Parallel()
	bin, err := pgcluster.FindBinDir()
	if err != nil {
		t.Skip(err)
	}
	if real, err := filepath.EvalSymlinks(filepath.Join(bin, "postgres")); err == nil {
		bin = filepath.Dir(real)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(bin), "lib", "pg_stat_statements.so")); err != nil {
		t.Skipf("this PostgreSQL has no pg_stat_statements: %v", err)
	}
	c := newCluster(t)
	start(t, c)
	sock := c.SocketURL("postgres", "postgres")
	if got := query(t, sock, `SHOW shared_preload_libraries`); got != "pg_stat_statements" {
		t.Errorf("shared_preload_libraries = %q", got)
	}
	plan := query(t, sock, `EXPLAIN (VERBOSE, FORMAT JSON) SELECT 1`)
	if !strings.Contains(plan, `"Query Identifier"`) {
		t.Errorf("no query identifier in %s", plan)
	}
	exec1(t, sock, `CREATE EXTENSION pg_stat_statements`)
	query(t, sock, `SELECT count(*)::text FROM pg_stat_statements`)

	own := newCluster(t)
	own.Settings["shared_preload_libraries"] = "''"
	start(t, own)
	if got := query(t, own.SocketURL("postgres", "postgres"), `SHOW shared_preload_libraries`); got != "" {
		t.Errorf("own setting: shared_preload_libraries = %q", got)
	}
}
