package deploy_test

import (
	"context"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/functions/deploy"
	"github.com/basaltdev/basalt/internal/pgtest"
)

// TestLogSinkWrites: a console line and a request's record reach
// basalt.function_logs with their fields, read back newest first; a line
// over 10,000 bytes is cut.
func TestLogSinkWrites(t *testing.T) {
	t.Parallel()
	db := pgtest.NewDB(t)
	store, err := deploy.NewStore(db.Admin, []byte("a-secret-of-at-least-32-bytes-long!!"))
	if err != nil {
		t.Fatal(err)
	}
	sink := deploy.NewLogSink(db.Admin, time.Hour, slog.New(slog.DiscardHandler))
	sink.Line("hello", "v1", deno.LogLine{Level: "warn", RequestID: "r1", Message: strings.Repeat("x", 12000)})
	sink.Invocation("hello", "v1", deno.Invocation{RequestID: "r1", Method: "POST", Path: "/hello", Status: 502,
		Duration: 1500 * time.Microsecond, Error: "boom"})
	sink.Close()
	got, err := store.Logs(context.Background(), "hello", "r1", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d rows, want 2: %+v", len(got), got)
	}
	var line, req deploy.LogEntry
	for _, e := range got {
		switch e.Kind {
		case "log":
			line = e
		case "request":
			req = e
		}
	}
	if line.Level != "warn" || line.Version != "v1" || len(line.Message) != 10000+len("…") {
		t.Errorf("log line: level %q version %q, %d bytes", line.Level, line.Version, len(line.Message))
	}
	if req.Level != "error" || req.Message != "boom" || req.Method == nil || *req.Method != "POST" ||
		req.Status == nil || *req.Status != 502 || req.DurationMS == nil || *req.DurationMS != 1.5 {
		t.Errorf("request row: %+v", req)
	}
}

// TestLogSinkIdleHoldsNoQueue: the sink takes memory for lines as they come:
// a node whose functions log nothing holds none of the 10,000 lines its
// queue may hold (1.5 MB). Not parallel: it reads the process's allocation
// count.
func TestLogSinkIdleHoldsNoQueue(t *testing.T) {
	db := pgtest.NewDB(t)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sink := deploy.NewLogSink(db.Admin, time.Hour, slog.New(slog.DiscardHandler))
	runtime.ReadMemStats(&after)
	defer sink.Close()
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Fatalf("NewLogSink allocated %d bytes, want under 64 KB", n)
	}
}
