package realtime_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/basaltdev/basalt/realtime"
)

// logSink collects a service's JSON log lines.
type logSink struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logSink) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logSink) logger() realtime.Option {
	return realtime.WithLogger(slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug})))
}

// find waits for a line with msg whose attributes include want.
func (l *logSink) find(t *testing.T, msg string, want map[string]any) map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		text := l.b.String()
		l.mu.Unlock()
		for _, line := range strings.Split(text, "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) != nil || m["msg"] != msg {
				continue
			}
			ok := true
			for k, v := range want {
				ok = ok && m[k] == v
			}
			if ok {
				return m
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Fatalf("no %q line with %v in:\n%s", msg, want, l.b.String())
	return nil
}

// TestSocketEndLogged checks that every socket's end is logged with why:
// at info when the server decided it (here the idle timeout and the join
// rate limit), at debug when the client left.
func TestSocketEndLogged(t *testing.T) {
	t.Parallel()
	logs := &logSink{}
	b := setup(t, realtime.Config{PostgresChanges: false, IdleTimeout: 300 * time.Millisecond,
		MaxJoinsPerSecond: 1, ErrorBackoff: time.Millisecond}, logs.logger())

	leaving := b.dial(t, "2.0.0")
	_ = leaving.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, ""), time.Now().Add(time.Second))
	logs.find(t, "realtime: socket closed", map[string]any{"level": "DEBUG", "by_server": false,
		"reason": "client sent close 1001"})

	idle := b.dial(t, "2.0.0")
	if _, _, err := idle.frame(5 * time.Second); err == nil {
		t.Fatal("an idle socket got a frame")
	}
	logs.find(t, "realtime: socket closed", map[string]any{"level": "INFO", "by_server": true,
		"reason": "idle: nothing received for 300ms"})

	limited := b.dial(t, "2.0.0")
	cfg := map[string]any{"config": map[string]any{}}
	limited.join("1", "realtime:a", cfg)
	limited.join("2", "realtime:b", cfg)
	logs.find(t, "realtime: join refused", map[string]any{"level": "INFO", "topic": "realtime:b",
		"reason": "ClientJoinRateLimitReached: Too many joins per second"})
	logs.find(t, "realtime: socket closed", map[string]any{"level": "INFO", "by_server": true,
		"reason": "ClientJoinRateLimitReached: Too many joins per second", "channels": float64(1)})
}
