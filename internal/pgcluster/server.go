package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// startTimeout bounds the wait for a starting server, as pg_ctl -t 60 did.
const startTimeout = 60 * time.Second

// server is one run of the postmaster. It is a child of this process, not
// daemonised by pg_ctl, so its exit is seen the moment it happens, with its
// status ("signal: killed"), and it is reaped by us: under a PID 1 that does
// not reap orphans a daemonised postmaster would linger as a zombie.
type server struct {
	pid     int
	proc    *os.Process
	started time.Time
	logFrom int64         // size of server.log when this run began
	done    chan struct{} // closed once the process has exited and been reaped
	err     error         // the exit as Wait reported it; read after done
	// stopping is set by Stop: the exit that follows was asked for.
	stopping atomic.Bool
}

// exited reports whether the process has ended.
func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// status describes how the process ended, once it has.
func (s *server) status() string {
	if s.err == nil {
		return "exit status 0"
	}
	return s.err.Error()
}

// stopSignals are the postmaster's shutdown modes, as pg_ctl sends them.
var stopSignals = map[string]syscall.Signal{
	"smart":     syscall.SIGTERM,
	"fast":      syscall.SIGINT,
	"immediate": syscall.SIGQUIT,
}

// stop asks the postmaster to shut down in mode and waits until it has.
func (s *server) stop(ctx context.Context, mode string) error {
	sig, ok := stopSignals[mode]
	if !ok {
		return fmt.Errorf("unknown shutdown mode %q (want smart, fast or immediate)", mode)
	}
	s.stopping.Store(true)
	if err := s.proc.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signal postgres (pid %d): %w", s.pid, err)
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	select {
	case <-s.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("postgres (pid %d) did not stop (%s shutdown): %w", s.pid, mode, ctx.Err())
	}
}

// spawn starts postgres on DataDir with its output appended to server.log.
// It runs in a session of its own, as pg_ctl starts it, so a Ctrl-C in the
// terminal reaches only us and we stop the server cleanly.
func (c *Cluster) spawn() (*server, error) {
	f, err := os.OpenFile(c.logPath(), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open server log: %w", err)
	}
	defer f.Close() // the child holds its own descriptor
	if c.uid >= 0 {
		_ = f.Chown(c.uid, c.gid)
	}
	var logFrom int64
	if st, err := f.Stat(); err == nil {
		logFrom = st.Size()
	}
	listen := ""
	if c.Port > 0 {
		listen = "127.0.0.1"
	}
	// Not tied to a context: the server outlives the call that started it.
	args := []string{"-D", c.DataDir, "-k", c.SocketDir, "-h", listen, "-p", strconv.Itoa(c.portOrDefault())}
	cmd := c.command(context.Background(), "postgres", append(args, c.preload()...)...)
	cmd.Stdout, cmd.Stderr = f, f
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start postgres: %w", err)
	}
	s := &server{pid: cmd.Process.Pid, proc: cmd.Process, started: time.Now(),
		logFrom: logFrom, done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// waitReady waits until the postmaster reports "ready" in postmaster.pid
// (what pg_ctl -w waits for), exits, or ctx or startTimeout ends.
func (c *Cluster) waitReady(ctx context.Context, s *server) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if c.pidFileReady(s.pid) {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("postgres exited during start-up (%s)", s.status())
		case <-ctx.Done():
			return fmt.Errorf("wait for postgres to accept connections: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// pidFileReady reports whether postmaster.pid names pid and says the
// server accepts connections (line 8, the postmaster status).
func (c *Cluster) pidFileReady(pid int) bool {
	b, err := os.ReadFile(filepath.Join(c.DataDir, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	return len(lines) >= 8 && strings.TrimSpace(lines[0]) == strconv.Itoa(pid) &&
		strings.TrimSpace(lines[7]) == "ready"
}

// abort stops a server that failed to start, at once, and waits for it.
func (c *Cluster) abort(s *server) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = s.stop(ctx, "immediate")
}

func (c *Cluster) logPath() string { return filepath.Join(c.DataDir, "server.log") }

// logTail returns up to the last n lines the server run s wrote to the
// server log, to say why it failed to start or stopped.
func (c *Cluster) logTail(s *server, n int) string {
	f, err := os.Open(c.logPath())
	if err != nil {
		return ""
	}
	defer f.Close()
	const window = 8 << 10 // the log of a long-lived dev cluster grows
	from := s.logFrom
	if st, err := f.Stat(); err == nil && st.Size()-from > window {
		from = st.Size() - window
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return ""
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// preloadLibrary is the library Supabase's PostgreSQL preloads: with it,
// statements get query ids (EXPLAIN VERBOSE shows "Query Identifier") and
// pg_stat_statements can be created and read.
const preloadLibrary = "pg_stat_statements"

// cronLibrary is pg_cron, preloaded when the cluster names a CronDatabase.
const cronLibrary = "pg_cron"

// cronWorkers is max_worker_processes with pg_cron: jobs run in background
// workers (one each while it runs), next to the launcher, logical
// replication and parallel query.
const cronWorkers = "32"

// preload returns the server flags that load preloadLibrary and, with a
// CronDatabase, pg_cron and its settings, for the libraries the server's
// library folder has, unless the settings choose their own preloads. They
// are given at every start, so clusters created before them get them too.
//
// pg_cron runs each job in a background worker
// (cron.use_background_workers) rather than through a libpq connection it
// opens itself: a connection would need cron.host to reach this cluster's
// socket or TCP port and an authentication rule that lets the job's owner
// in without a password, and both the socket folder and the password
// differ between `basalt dev`, tests and a moved data dir. A background
// worker joins the database as the job's owner with no connection at all.
func (c *Cluster) preload() []string {
	if _, set := c.Settings["shared_preload_libraries"]; set {
		return nil
	}
	var libs []string
	if c.HasLibrary(preloadLibrary) {
		libs = append(libs, preloadLibrary)
	}
	cron := c.CronDatabase != "" && c.HasLibrary(cronLibrary)
	if cron {
		libs = append(libs, cronLibrary)
	}
	if len(libs) == 0 {
		return nil
	}
	flags := []string{"-c", "shared_preload_libraries=" + strings.Join(libs, ",")}
	if cron {
		flags = append(flags, "-c", "cron.database_name="+c.CronDatabase,
			"-c", "cron.use_background_workers=on", "-c", "max_worker_processes="+cronWorkers)
	}
	return flags
}

// HasLibrary reports whether the server's library folder has the loadable
// module name (for example "pg_cron").
func (c *Cluster) HasLibrary(name string) bool {
	for _, dir := range c.libDirs() {
		if _, err := os.Stat(filepath.Join(dir, name+".so")); err == nil {
			return true
		}
	}
	return false
}

// libDirs are where the server's loadable modules may live: pg_config's
// answer when it is next to the server, else the lib folder beside its bin
// folder (Debian's /usr/lib/postgresql/N, source builds, the PGDG
// packages). The bin folder is the real one behind a symlinked postgres.
func (c *Cluster) libDirs() []string {
	bin := c.BinDir
	if real, err := filepath.EvalSymlinks(filepath.Join(bin, "postgres")); err == nil {
		bin = filepath.Dir(real)
	}
	var dirs []string
	if out, err := exec.Command(filepath.Join(bin, "pg_config"), "--pkglibdir").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	}
	return append(dirs, filepath.Join(filepath.Dir(bin), "lib"), filepath.Join(filepath.Dir(bin), "lib", "postgresql"))
}
