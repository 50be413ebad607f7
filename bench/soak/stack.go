package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/basaltdev/basalt/bench"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

// status is what `basalt status --json` prints (the fields the soak uses).
type status struct {
	APIURL         string `json:"api_url"`
	DBURL          string `json:"db_url"`
	AnonKey        string `json:"anon_key"`
	ServiceRoleKey string `json:"service_role_key"`
	PID            int    `json:"pid"`
}

// stack is a `basalt dev` child process with a private data dir and fixed
// ports, so it can be killed and started again on the same URLs, keys and
// data, as a supervisor would.
type stack struct {
	root    string // module root: the child's working directory (sql/, frontend/)
	bin     string
	tmp     string // everything the run creates, removed at the end
	dataDir string
	env     []string
	logPath string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
	st   status
	runs int // processes started so far
	// restarted runs after every start but the first (setRestarted).
	restarted func()
}

// setRestarted has f run after each later start of basalt, which applies
// the seed again.
func (s *stack) setRestarted(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.restarted = f
}

// newStack prepares a private data dir and free loopback ports.
func newStack(root, bin, tmp string) (*stack, error) {
	ports := make([]int, 3)
	for i := range ports {
		p, err := bench.FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	s := &stack{root: root, bin: bin, tmp: tmp, dataDir: filepath.Join(tmp, "data"), logPath: filepath.Join(tmp, "basalt.log")}
	s.env = append(os.Environ(),
		"BASALT_API_PORT="+strconv.Itoa(ports[0]),
		"BASALT_DB_PORT="+strconv.Itoa(ports[1]),
		"BASALT_APP_PORT="+strconv.Itoa(ports[2]),
		"BASALT_DATA_DIR="+s.dataDir,
		// The load generator plays many clients behind one trusted proxy:
		// each virtual user (and each stream) has its own address, so the
		// per-address limits see what they would in production.
		"BASALT_TRUSTED_PROXY_HEADER=X-Forwarded-For",
		// The realtime default (100 client pushes and deliveries a second,
		// the reference's per-tenant default) is a small project's quota:
		// 50 clients tracking on one presence channel alone cost 2,500
		// deliveries. The soak measures the service, not that quota.
		"REALTIME_MAX_EVENTS_PER_SECOND=20000",
	)
	return s, nil
}

// start runs `basalt dev` and waits until it is ready: its state names
// the new process and /health answers 200 (the database is reachable).
// Start-up can fail while PostgreSQL still cleans up after a kill, so it
// is tried a few times.
func (s *stack) start(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if err = s.startOnce(ctx); err == nil {
			s.mu.Lock()
			f := s.restarted
			s.mu.Unlock()
			if f != nil {
				f()
			}
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		time.Sleep(time.Second)
	}
	return err
}

func (s *stack) startOnce(ctx context.Context) error {
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.bin, "dev", "--data-dir", s.dataDir)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = s.root, s.env, logf, logf
	// Its own process group: a Ctrl-C reaches the soak, which stops basalt
	// in order (load first, then a clean shutdown).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return err
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		_ = logf.Close()
		close(done)
	}()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.runs++
	s.mu.Unlock()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		select {
		case <-done:
			return fmt.Errorf("basalt dev exited during start-up:\n%s", s.logTail(40))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("basalt dev not ready after 3 minutes:\n%s", s.logTail(40))
		}
		st, err := s.readStatus(ctx)
		if err != nil || st.PID != cmd.Process.Pid {
			continue
		}
		if healthy(ctx, st.APIURL) {
			s.mu.Lock()
			s.st = st
			s.mu.Unlock()
			return nil
		}
	}
}

// readStatus asks the binary, as scripts do, for the URLs and keys.
func (s *stack) readStatus(ctx context.Context) (status, error) {
	var st status
	cmd := exec.CommandContext(ctx, s.bin, "status", "--json", "--data-dir", s.dataDir)
	cmd.Dir, cmd.Env = s.root, s.env
	out, err := cmd.Output()
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(out, &st)
}

// healthy reports whether /health answers 200: the gateway is up and the
// database answers.
func healthy(ctx context.Context, apiURL string) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, apiURL+"/health", nil)
	if err != nil {
		return false
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_ = res.Body.Close()
	return res.StatusCode == http.StatusOK
}

// status is the last status read from a ready process.
func (s *stack) status() status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// pid is the current basalt process (0 when none runs).
func (s *stack) pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	select {
	case <-s.done:
		return 0
	default:
		return s.cmd.Process.Pid
	}
}

// signal sends sig to basalt and waits up to wait for it to exit; a
// process still running then is killed.
func (s *stack) signal(sig syscall.Signal, wait time.Duration) error {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	if cmd == nil {
		return nil
	}
	if err := cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-done:
		return nil
	case <-time.After(wait):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("basalt did not exit within %s of %s; killed", wait, sig)
	}
}

// stop shuts basalt down cleanly (it stops its PostgreSQL too).
func (s *stack) stop() error { return s.signal(syscall.SIGTERM, time.Minute) }

// kill is kill -9 of the basalt process; its PostgreSQL keeps running
// until the next start takes it over.
func (s *stack) kill() error { return s.signal(syscall.SIGKILL, 10*time.Second) }

// killPostgres is kill -9 of the postmaster, found through the pid file
// of the cluster's data directory; its backends exit on their own.
func killPostgres(pgDataDir string) (int, error) {
	pid, err := postmasterPID(pgDataDir)
	if err != nil {
		return 0, err
	}
	return pid, syscall.Kill(pid, syscall.SIGKILL)
}

// postmasterPID is the live postmaster of the cluster in pgDataDir.
func postmasterPID(pgDataDir string) (int, error) {
	pid, ok := (&pgcluster.Cluster{DataDir: pgDataDir}).PID()
	if !ok {
		return 0, fmt.Errorf("no running postmaster in %s", pgDataDir)
	}
	return pid, nil
}

// logTail is the end of basalt's log, for error messages.
func (s *stack) logTail(lines int) string {
	b, err := os.ReadFile(s.logPath)
	if err != nil {
		return ""
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}
