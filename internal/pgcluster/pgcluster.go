// Package pgcluster creates, starts and stops a private PostgreSQL cluster from
// the machine's server binaries. It backs both `basalt dev` (a long-lived
// cluster under .basalt/pg) and internal/pgtest (a throwaway one per test
// package).
//
// PostgreSQL refuses to run as root. When the current process is root, every
// server command runs as an unprivileged system user (postgres by default)
// through runuser, and the directories the cluster needs are chowned to it.
package pgcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/basaltdev/basalt/internal/lazy"
	"github.com/basaltdev/basalt/internal/proc"
)

// MinMajorVersion is the oldest PostgreSQL major version Basalt supports.
const MinMajorVersion = 15

// ErrNoBinaries is returned when no PostgreSQL server binaries can be found.
var ErrNoBinaries = errors.New(`no PostgreSQL server binaries found: Basalt needs initdb and pg_ctl from PostgreSQL 15 or newer. ` +
	`Install them (Debian/Ubuntu: "apt-get install postgresql-15", macOS: "brew install postgresql@15"), ` +
	`then put their folder on PATH or set PG_BIN to it (for example PG_BIN=/usr/lib/postgresql/15/bin), ` +
	`or point Basalt at an existing database with "basalt serve" and DATABASE_URL`)

// FindBinDir returns the folder holding initdb, pg_ctl and postgres: PATH first, then
// $PG_BIN, then the newest /usr/lib/postgresql/*/bin. Versions older than
// MinMajorVersion are skipped.
func FindBinDir() (string, error) {
	var candidates []string
	if p, err := exec.LookPath("initdb"); err == nil {
		candidates = append(candidates, filepath.Dir(p))
	}
	if d := os.Getenv("PG_BIN"); d != "" {
		candidates = append(candidates, d)
	}
	globbed, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(globbed, func(i, j int) bool { return versionOfDir(globbed[i]) > versionOfDir(globbed[j]) })
	candidates = append(candidates, globbed...)
	for _, dir := range candidates {
		if !isExecutable(filepath.Join(dir, "initdb")) || !isExecutable(filepath.Join(dir, "pg_ctl")) ||
			!isExecutable(filepath.Join(dir, "postgres")) {
			continue
		}
		if v, err := MajorVersion(dir); err == nil && v >= MinMajorVersion {
			return dir, nil
		}
	}
	return "", ErrNoBinaries
}

func versionOfDir(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

var versionRE = lazy.NewRegexp(`(\d+)(?:\.\d+)?`)

// MajorVersion runs `initdb --version` from dir and returns the major version.
func MajorVersion(dir string) (int, error) {
	out, err := exec.Command(filepath.Join(dir, "initdb"), "--version").Output()
	if err != nil {
		return 0, fmt.Errorf("initdb --version: %w", err)
	}
	m := versionRE.FindStringSubmatch(string(out))
	if m == nil {
		return 0, fmt.Errorf("initdb --version: unexpected output %q", out)
	}
	return strconv.Atoi(m[1])
}

// Cluster is one PostgreSQL data directory and the server that runs on it.
type Cluster struct {
	BinDir    string // folder of initdb, pg_ctl, postgres
	DataDir   string // the cluster's data directory
	SocketDir string // unix socket folder; keep the path under ~100 bytes
	Port      int    // TCP port on 127.0.0.1; 0 means unix socket only
	Superuser string // bootstrap superuser name (default postgres)
	Password  string // superuser password for TCP connections (optional)
	// Settings are extra postgresql.conf lines (name -> value), written at init.
	Settings map[string]string
	// CronDatabase, when set and the server has pg_cron, preloads pg_cron
	// with this database as the one whose jobs it runs (see preload).
	CronDatabase string
	// RunAs is the system user that runs the server when we are root.
	RunAs string
	// Log receives the server's output lines; nil discards them.
	Log func(string)

	uid, gid int // resolved RunAs ids; -1 when not root
	// srv is the server process this Cluster started last, if any.
	srv atomic.Pointer[server]
}

// resolveUser fills uid/gid when the process runs as root.
func (c *Cluster) resolveUser() error {
	c.uid, c.gid = -1, -1
	if os.Geteuid() != 0 {
		return nil
	}
	name := c.RunAs
	if name == "" {
		name = "postgres"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return fmt.Errorf("running as root, PostgreSQL needs an unprivileged user %q to run as (create it with \"useradd --system %s\"): %w", name, name, err)
	}
	c.RunAs = name
	c.uid, _ = strconv.Atoi(u.Uid)
	c.gid, _ = strconv.Atoi(u.Gid)
	return nil
}

func (c *Cluster) defaults() error {
	if c.BinDir == "" {
		d, err := FindBinDir()
		if err != nil {
			return err
		}
		c.BinDir = d
	}
	if c.Superuser == "" {
		c.Superuser = "postgres"
	}
	if c.SocketDir == "" {
		c.SocketDir = c.DataDir
	}
	return c.resolveUser()
}

// command builds an exec.Cmd for a server binary, dropping to RunAs when root.
func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	bin := filepath.Join(c.BinDir, name)
	var cmd *exec.Cmd
	if c.uid >= 0 {
		cmd = exec.CommandContext(ctx, bin, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(c.uid), Gid: uint32(c.gid)}}
	} else {
		cmd = exec.CommandContext(ctx, bin, args...)
	}
	cmd.Env = append(os.Environ(), "LC_ALL=C", "LANG=C")
	cmd.Dir = "/"
	return cmd
}

func (c *Cluster) run(ctx context.Context, name string, args ...string) error {
	cmd := c.command(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	if c.Log != nil {
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if l != "" {
				c.Log(l)
			}
		}
	}
	return nil
}

// ensureDir creates dir and hands it to the server user.
func (c *Cluster) ensureDir(dir string, mode os.FileMode) error {
	if err := os.MkdirAll(dir, mode); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		return err
	}
	if c.uid >= 0 {
		if err := os.Chown(dir, c.uid, c.gid); err != nil {
			return fmt.Errorf("chown %s to %s: %w", dir, c.RunAs, err)
		}
	}
	return nil
}

// Initialized reports whether DataDir already holds a cluster.
func (c *Cluster) Initialized() bool {
	_, err := os.Stat(filepath.Join(c.DataDir, "PG_VERSION"))
	return err == nil
}

// Init runs initdb when DataDir has no cluster yet, and writes Settings
// either way (see writeSettings).
func (c *Cluster) Init(ctx context.Context) error {
	if err := c.defaults(); err != nil {
		return err
	}
	if c.Initialized() {
		return c.writeSettings()
	}
	// Parents must be traversable by the server user.
	if err := os.MkdirAll(filepath.Dir(c.DataDir), 0o755); err != nil {
		return err
	}
	if err := c.ensureDir(c.DataDir, 0o700); err != nil {
		return err
	}
	args := []string{"-D", c.DataDir, "-U", c.Superuser, "--encoding=UTF8", "--no-locale", "--no-sync", "--auth-local=trust"}
	if c.Password == "" {
		args = append(args, "--auth-host=trust")
	} else {
		// TCP clients must present the password; the unix socket stays trusted
		// because only local users that can reach the socket folder use it.
		// initdb refuses a non-empty data dir, so the file sits beside it.
		pw := filepath.Join(filepath.Dir(c.DataDir), "."+filepath.Base(c.DataDir)+".pwfile")
		if err := os.WriteFile(pw, []byte(c.Password+"\n"), 0o600); err != nil {
			return err
		}
		if c.uid >= 0 {
			_ = os.Chown(pw, c.uid, c.gid)
		}
		defer os.Remove(pw)
		args = append(args, "--auth-host=scram-sha-256", "--pwfile="+pw)
	}
	if err := c.run(ctx, "initdb", args...); err != nil {
		return err
	}
	return c.writeSettings()
}

// settingsMark opens the block of postgresql.conf that Basalt owns.
const settingsMark = "\n# written by basalt\n"

// writeSettings makes the end of postgresql.conf, from settingsMark on, say
// exactly Settings. It runs on every Init, so a data directory made by an
// older version gets the settings added since (an operator's own changes
// belong above the block or in ALTER SYSTEM, which wins over the file).
func (c *Cluster) writeSettings() error {
	path := filepath.Join(c.DataDir, "postgresql.conf")
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var conf strings.Builder
	if i := strings.Index(string(old), settingsMark); i >= 0 {
		conf.Write(old[:i])
	} else {
		conf.Write(old)
	}
	conf.WriteString(settingsMark)
	keys := make([]string, 0, len(c.Settings))
	for k := range c.Settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&conf, "%s = %s\n", k, c.Settings[k])
	}
	if conf.String() == string(old) {
		return nil
	}
	// Written beside and renamed: a crash never leaves half a file.
	tmp := path + ".basalt"
	if err := os.WriteFile(tmp, []byte(conf.String()), 0o600); err != nil {
		return err
	}
	if c.uid >= 0 {
		_ = os.Chown(tmp, c.uid, c.gid)
	}
	return os.Rename(tmp, path)
}

// Start starts the server and waits until it accepts connections. The
// server runs as a child of this process (see server.go), so its exit is
// noticed at once and a Supervisor can restart it. A postmaster.pid left by
// a crash is removed when its process is gone. When Start fails, no server
// it started is left running.
func (c *Cluster) Start(ctx context.Context) error {
	if err := c.defaults(); err != nil {
		return err
	}
	if err := c.ensureDir(c.SocketDir, 0o755); err != nil {
		return err
	}
	if s := c.srv.Load(); s != nil && !s.exited() {
		return fmt.Errorf("a PostgreSQL server is already running on %s (pid %d)", c.DataDir, s.pid)
	}
	if running, err := c.recoverStalePID(); err != nil {
		return err
	} else if running {
		return fmt.Errorf("a PostgreSQL server is already running on %s (see %s)", c.DataDir, filepath.Join(c.DataDir, "postmaster.pid"))
	}
	if c.Port > 0 {
		if err := portFree(c.Port); err != nil {
			return err
		}
	}
	s, err := c.spawn()
	if err != nil {
		return err
	}
	c.srv.Store(s)
	if err := c.waitReady(ctx, s); err != nil {
		// A server that never became ready is not left behind: the caller
		// (or the supervisor's next attempt) starts from a clean slate.
		c.abort(s)
		return fmt.Errorf("start postgres: %w\nserver log:\n%s", err, c.logTail(s, 20))
	}
	return nil
}

func (c *Cluster) portOrDefault() int {
	if c.Port > 0 {
		return c.Port
	}
	return 5432
}

func portFree(port int) error {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return fmt.Errorf("port %d is in use; choose another with BASALT_DB_PORT: %w", port, err)
	}
	return l.Close()
}

// recoverStalePID removes postmaster.pid when the process it names is gone or
// is not a postgres server. It reports whether a live server owns the dir.
func (c *Cluster) recoverStalePID() (bool, error) {
	pidFile := filepath.Join(c.DataDir, "postmaster.pid")
	b, err := os.ReadFile(pidFile)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err == nil && pid > 0 && processIsPostgres(pid) {
		return true, nil
	}
	if err := os.Remove(pidFile); err != nil {
		return false, fmt.Errorf("remove stale %s: %w", pidFile, err)
	}
	return false, nil
}

func processIsPostgres(pid int) bool {
	if !proc.Alive(pid) {
		return false
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return true // cannot tell: assume alive, the safe answer
	}
	name := strings.TrimSpace(string(comm))
	return strings.HasPrefix(name, "postgres") || strings.HasPrefix(name, "postmaster")
}

// Running reports whether a live server owns DataDir.
func (c *Cluster) Running() bool {
	_, ok := c.PID()
	return ok
}

// PID is the process id of the server running on DataDir, if one is.
func (c *Cluster) PID() (int, bool) {
	b, err := os.ReadFile(filepath.Join(c.DataDir, "postmaster.pid"))
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || !processIsPostgres(pid) {
		return 0, false
	}
	return pid, true
}

// Stop stops the server. mode is "fast" (clean, the default), "smart" or
// "immediate". A server this Cluster started is signalled directly and
// marked as stopped on purpose, so a Supervisor does not restart it; one
// left by another process is stopped with pg_ctl.
func (c *Cluster) Stop(ctx context.Context, mode string) error {
	if err := c.defaults(); err != nil {
		return err
	}
	if mode == "" {
		mode = "fast"
	}
	if s := c.srv.Load(); s != nil && !s.exited() {
		return s.stop(ctx, mode)
	}
	if !c.Running() {
		return nil
	}
	return c.run(ctx, "pg_ctl", "-D", c.DataDir, "-m", mode, "-w", "-t", "60", "stop")
}

// SocketURL is a connection URL over the unix socket for user and database.
func (c *Cluster) SocketURL(usr, db string) string {
	return fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d&sslmode=disable", usr, db, c.SocketDir, c.portOrDefault())
}

// TCPURL is a connection URL over TCP loopback (empty when Port is 0).
func (c *Cluster) TCPURL(usr, password, db string) string {
	if c.Port == 0 {
		return ""
	}
	auth := usr
	if password != "" {
		auth += ":" + password
	}
	return fmt.Sprintf("postgresql://%s@127.0.0.1:%d/%s", auth, c.Port, db)
}

// WaitReady polls until a TCP or socket connect succeeds or ctx ends.
func WaitReady(ctx context.Context, network, addr string) error {
	for {
		conn, err := net.DialTimeout(network, addr, time.Second)
		if err == nil {
			return conn.Close()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w", addr, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// tempSettings are the settings of a throwaway cluster: nothing is kept
// across a crash, so durability is off; only the unix socket listens; and
// logical replication is on, as every Basalt database needs.
var tempSettings = map[string]string{
	"fsync":                   "off",
	"synchronous_commit":      "off",
	"full_page_writes":        "off",
	"listen_addresses":        "''",
	"unix_socket_permissions": "0777",
	"max_connections":         "100",
	"wal_level":               "logical",
	"max_replication_slots":   "10",
	"max_wal_senders":         "10",
	"log_min_messages":        "warning",
}

// StartTemp initialises and starts a throwaway cluster in a new temporary
// folder named after prefix (keep it short: the socket path must stay under
// ~100 bytes). settings override tempSettings. The returned stop function
// stops the server at once and removes the folder; call it on every exit
// path. Tests and benchmarks use it; `basalt dev` keeps its own cluster.
func StartTemp(ctx context.Context, prefix string, settings map[string]string) (*Cluster, func(), error) {
	return startTemp(ctx, prefix, settings, "")
}

// StartTempCron is StartTemp with pg_cron preloaded (when the server has
// it) for the database cronDB, which the caller creates.
func StartTempCron(ctx context.Context, prefix string, settings map[string]string, cronDB string) (*Cluster, func(), error) {
	return startTemp(ctx, prefix, settings, cronDB)
}

func startTemp(ctx context.Context, prefix string, settings map[string]string, cronDB string) (*Cluster, func(), error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, nil, err
	}
	// MkdirTemp makes a 0700 folder; the server user must be able to enter it.
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	conf := make(map[string]string, len(tempSettings)+len(settings))
	for k, v := range tempSettings {
		conf[k] = v
	}
	for k, v := range settings {
		conf[k] = v
	}
	c := &Cluster{DataDir: filepath.Join(dir, "data"), SocketDir: dir, Settings: conf, CronDatabase: cronDB}
	stop := func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = c.Stop(sctx, "immediate")
		_ = os.RemoveAll(dir)
	}
	if err := c.Init(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("init throwaway cluster: %w", err)
	}
	if err := c.Start(ctx); err != nil {
		stop()
		return nil, nil, fmt.Errorf("start throwaway cluster: %w", err)
	}
	return c, stop, nil
}

// ServerLogSettings make the server keep its own log as JSON lines
// (PostgreSQL 15's jsonlog) in files under the data directory's log/, for
// Studio to read through SQL (pg_current_logfile, pg_read_file). One file
// per weekday, emptied when its day comes round again: a week of history,
// never more than seven files. log_min_error_statement stays at its
// default (error), so a failed statement is logged with its text.
var ServerLogSettings = map[string]string{
	"logging_collector":        "on",
	"log_destination":          "'jsonlog'",
	"log_directory":            "'log'",
	"log_filename":             "'postgresql-%a.log'",
	"log_truncate_on_rotation": "on",
	"log_rotation_age":         "'1d'",
	"log_rotation_size":        "0",
	"log_file_mode":            "0600",
	"log_timezone":             "'UTC'",
}
