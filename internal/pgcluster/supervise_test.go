package pgcluster_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/basaltdev/basalt/internal/pgcluster"
)

// logBuf collects a Supervisor's JSON log lines.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// records returns the log records whose msg is msg.
func (l *logBuf) records(t *testing.T, msg string) []map[string]any {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.b.String()), "\n") {
		var rec map[string]any
		if line == "" {
			continue
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor polls cond every 20 ms until it holds or the timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSupervisorRestartsKilledServer(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	start(t, c)
	sock := c.SocketURL("postgres", "postgres")
	exec1(t, sock, `CREATE TABLE kept (v text); INSERT INTO kept VALUES ('committed')`)
	logs := &logBuf{}
	sup := &pgcluster.Supervisor{Cluster: c, Log: slog.New(slog.NewJSONHandler(logs, nil)),
		MinDelay: 100 * time.Millisecond, MaxDelay: 400 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); sup.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	// A setting the server refuses makes the first restarts fail, so the
	// back-off and the reason in the log are seen; it is removed once two
	// attempts have failed.
	conf := filepath.Join(c.DataDir, "postgresql.conf")
	orig, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, append(append([]byte{}, orig...), "max_connections = 'many'\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	pid, ok := c.PID()
	if !ok {
		t.Fatal("no server running")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "two failed restarts", func() bool { return len(logs.records(t, "postgres restart failed")) >= 2 })
	if err := os.WriteFile(conf, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "the restarted server", func() bool {
		p, ok := c.PID()
		return ok && p != pid && len(logs.records(t, "postgres restarted")) == 1
	})
	if got := query(t, sock, `SELECT v FROM kept`); got != "committed" {
		t.Errorf("after the restart: %q", got)
	}

	exits := logs.records(t, "postgres exited unexpectedly; restarting it")
	if len(exits) != 1 || exits[0]["status"] != "signal: killed" || exits[0]["restart_in"] != "100ms" {
		t.Errorf("exit records = %v, want one with status \"signal: killed\" and restart_in 100ms\n%s", exits, logs)
	}
	failed := logs.records(t, "postgres restart failed")
	if !strings.Contains(failed[0]["err"].(string), `invalid value for parameter "max_connections"`) {
		t.Errorf("a failed restart does not say why: %v", failed[0]["err"])
	}
	// The wait doubles after each failed attempt, capped at MaxDelay.
	for i, want := range []string{"200ms", "400ms", "400ms"} {
		if i < len(failed) && failed[i]["retry_in"] != want {
			t.Errorf("attempt %d: retry_in = %v, want %s", i+1, failed[i]["retry_in"], want)
		}
	}

	// Stop while supervised: the exit was asked for, so Run returns and
	// nothing restarts the server.
	stop(t, c, "fast")
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after Stop")
	}
	if c.Running() {
		t.Error("server running after Stop")
	}
	if n := len(logs.records(t, "postgres exited unexpectedly; restarting it")); n != 1 {
		t.Errorf("a requested stop was reported as an unexpected exit (%d records)", n)
	}
}

func TestSupervisorStopsOnCancel(t *testing.T) {
	t.Parallel()
	c := newCluster(t)
	start(t, c)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); (&pgcluster.Supervisor{Cluster: c}).Run(ctx) }()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	// Supervision ended; the server is still up until the owner stops it.
	if !c.Running() {
		t.Fatal("cancelling supervision stopped the server")
	}
	stop(t, c, "fast")
	if c.Running() {
		t.Error("server running after Stop")
	}
}
