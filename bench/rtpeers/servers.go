package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sys/unix"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/sql/platform"
)

// proc is a server running as a child process: what the benchmark
// measures is its CPU time and resident memory, apart from the load
// generator's.
type proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	url  string // http://127.0.0.1:port
	log  string // its output
	// again starts the same server anew (restart).
	again func(context.Context) (*proc, error)
}

// startProc runs bin with args and env in dir, its output in a log file
// under tmp, and waits until ready(url) succeeds.
func startProc(ctx context.Context, name, tmp, dir string, port int, env []string, ready string, bin string, args ...string) (*proc, error) {
	if err := evict(bin); err != nil {
		return nil, err
	}
	logPath := filepath.Join(tmp, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, done: make(chan struct{}), url: "http://127.0.0.1:" + strconv.Itoa(port), log: logPath,
		again: func(ctx context.Context) (*proc, error) {
			return startProc(ctx, name, tmp, dir, port, env, ready, bin, args...)
		}}
	go func() {
		_ = cmd.Wait()
		_ = logf.Close()
		close(p.done)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-p.done:
			return nil, fmt.Errorf("%s exited at start: %s", name, tail(logPath))
		default:
		}
		if resp, err := http.Get(p.url + ready); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			p.stop()
			return nil, fmt.Errorf("%s not ready after 60 s: %s", name, tail(logPath))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// evict drops a binary's pages from the page cache, so that every server
// starts as after a reboot: its resident memory counts the file pages it
// touches, and how many of them the kernel maps at once depends on how the
// file came into the cache (a binary the linker has just written is cached
// in large pieces, one read back from disk by readahead).
func evict(bin string) error {
	f, err := os.Open(bin)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := unix.Fdatasync(int(f.Fd())); err != nil {
		return fmt.Errorf("evict %s: %w", bin, err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("evict %s: %w", bin, err)
	}
	return nil
}

// pid is the server's process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// cpu is the server's CPU time so far.
func (p *proc) cpu() time.Duration {
	d, _ := bench.ProcessCPU(p.pid())
	return d
}

// memory is the server's resident set now.
func (p *proc) memory() bench.Memory {
	m, _ := bench.ProcessMemory(p.pid())
	return m
}

// restart stops the server and starts it again, the same command on the
// same port, its binary dropped from the page cache first.
func (p *proc) restart(ctx context.Context) error {
	p.stop()
	np, err := p.again(ctx)
	if err != nil {
		return err
	}
	*p = *np
	return nil
}

// stop ends the server (SIGTERM, then SIGKILL after 10 s).
func (p *proc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// tail is the end of a log file, for errors.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	return last(string(b))
}

// last is the end of a text, for errors.
func last(s string) string {
	if len(s) > 2000 {
		s = s[len(s)-2000:]
	}
	return strings.TrimSpace(s)
}

// basaltStack is a throwaway PostgreSQL cluster with the platform
// migrations and the benchmark's tables, and `basalt serve` on it.
type basaltStack struct {
	*proc
	name    string // Basalt, or Basalt (baseline): another build compared in the same run
	cluster *pgcluster.Cluster
	admin   *pgxpool.Pool
	keys    *jwt.Keys
	stopDB  func()
}

// basaltEnv lifts the realtime quotas (the reference's per-project
// defaults: 100 events a second) out of the way: the benchmark measures
// the server, not a small project's quota.
var basaltEnv = []string{
	"REALTIME_MAX_CONCURRENT_USERS=100000",
	"REALTIME_MAX_CONCURRENT_USERS_PER_CLIENT=100000",
	"REALTIME_MAX_JOINS_PER_SECOND=100000",
	"REALTIME_MAX_JOINS_PER_SECOND_PER_CLIENT=100000",
	"REALTIME_MAX_EVENTS_PER_SECOND=1000000000",
	"REALTIME_MAX_EVENTS_PER_SECOND_PER_CLIENT=1000000000",
	"REALTIME_AUTHENTICATED_RESERVE_PERCENT=0",
	"BASALT_LOG_LEVEL=warn",
}

// startBasalt starts PostgreSQL (commits flushed at once, as on a
// production server), applies the platform migrations, runs setupSQL as
// the owner, then starts `basalt serve` with no app migrations.
func startBasalt(ctx context.Context, name, bin, dir, setupSQL string) (*basaltStack, error) {
	tmp := filepath.Join(dir, "stack-"+strings.ToLower(strings.NewReplacer(" ", "-", "(", "", ")", "").Replace(name)))
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return nil, err
	}
	settings := map[string]string{"synchronous_commit": "on", "fsync": "on", "full_page_writes": "on"}
	if *pgstatFlag {
		// The statement statistics cost every statement a few
		// microseconds, and Basalt runs two per request where a peer may
		// run one: they are only collected when asked for.
		settings["shared_preload_libraries"] = "pg_stat_statements"
		settings["pg_stat_statements.track"] = "all"
	}
	c, stopDB, err := pgcluster.StartTemp(ctx, "brtp", settings)
	if err != nil {
		return nil, err
	}
	st := &basaltStack{name: name, cluster: c, stopDB: stopDB}
	fail := func(err error) (*basaltStack, error) {
		st.close()
		return nil, err
	}
	if pid, ok := c.PID(); ok {
		bench.CountDatabaseCPU(pid)
	}
	dbURL := c.SocketURL("postgres", "postgres")
	if st.admin, err = pg.Connect(ctx, dbURL, nil); err != nil {
		return fail(err)
	}
	if _, err := migrate.Up(ctx, st.admin, nil, migrate.Source{Name: "platform", FS: platform.FS}); err != nil {
		return fail(err)
	}
	if *pgstatFlag {
		if _, err := st.admin.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
			return fail(err)
		}
	}
	if setupSQL != "" {
		if _, err := st.admin.Exec(ctx, setupSQL); err != nil {
			return fail(fmt.Errorf("benchmark schema: %w", err))
		}
	}
	if st.keys, err = jwt.Generate(time.Now()); err != nil {
		return fail(err)
	}
	keysPath := filepath.Join(tmp, "keys.json")
	if err := st.keys.Save(keysPath); err != nil {
		return fail(err)
	}
	sqlDir := filepath.Join(tmp, "sql") // no app migrations
	if err := os.MkdirAll(sqlDir, 0o755); err != nil {
		return fail(err)
	}
	port, err := bench.FreePort()
	if err != nil {
		return fail(err)
	}
	env := append(os.Environ(), basaltEnv...)
	env = append(env, "DATABASE_URL="+dbURL, "BASALT_AUTHENTICATOR_URL="+c.SocketURL("authenticator", "postgres"), "BASALT_KEYS_FILE="+keysPath, "BASALT_SQL_DIR="+sqlDir,
		"BASALT_HOST=127.0.0.1", "BASALT_API_PORT="+strconv.Itoa(port), "BASALT_APP_PORT=0")
	if st.proc, err = startProc(ctx, "basalt", tmp, tmp, port, env, "/health/ready", bin, "serve"); err != nil {
		return fail(err)
	}
	return st, nil
}

// dbCPU is PostgreSQL's CPU time so far (the postmaster and its
// backends).
func (st *basaltStack) dbCPU() time.Duration {
	pid, ok := st.cluster.PID()
	if !ok {
		return 0
	}
	d, _ := bench.ProcessCPU(pid)
	return d
}

func (st *basaltStack) close() {
	if st.proc != nil {
		st.proc.stop()
	}
	if st.admin != nil {
		st.admin.Close()
	}
	st.stopDB()
}

// wsURL is the realtime websocket of the stack for a token.
func (st *basaltStack) wsURL(token string) string {
	return "ws" + strings.TrimPrefix(st.url, "http") + "/realtime/v1/websocket?vsn=2.0.0&apikey=" + token
}

// errNoPeer is why a comparison runs Basalt alone.
var errNoPeer = errors.New("not built")
