package deploy

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/functions/deno"
)

// LogSink writes function logs to basalt.function_logs in batches, off the
// request path. When the database cannot keep up, lines beyond the buffer
// are dropped and counted rather than slowing functions down.
type LogSink struct {
	db        *pgxpool.Pool
	log       *slog.Logger
	rows      chan logRow
	dropped   atomic.Int64
	retention time.Duration
	done      chan struct{}
	mu        sync.RWMutex // held for reading while sending, for writing by Close
	closed    bool
}

type logRow struct {
	at                        time.Time
	fn, version, kind         string
	requestID, level, message string
	method, path              *string
	status                    *int
	durationMS                *float64
}

// NewLogSink starts the writer; Close flushes and stops it. Rows older than
// retention are deleted hourly.
func NewLogSink(db *pgxpool.Pool, retention time.Duration, log *slog.Logger) *LogSink {
	s := &LogSink{db: db, log: log, rows: make(chan logRow, 10000), retention: retention, done: make(chan struct{})}
	go s.run()
	return s
}

// Line records one console line.
func (s *LogSink) Line(fn, version string, l deno.LogLine) {
	msg := l.Message
	if len(msg) > 10000 {
		msg = msg[:10000] + "…"
	}
	s.put(logRow{at: time.Now(), fn: fn, version: version, kind: "log", requestID: l.RequestID, level: l.Level, message: msg})
}

// Invocation records one request.
func (s *LogSink) Invocation(fn, version string, inv deno.Invocation) {
	ms := float64(inv.Duration.Microseconds()) / 1000
	level := "info"
	if inv.Error != "" || inv.Status >= 500 {
		level = "error"
	}
	s.put(logRow{at: time.Now(), fn: fn, version: version, kind: "request", requestID: inv.RequestID, level: level,
		message: inv.Error, method: &inv.Method, path: &inv.Path, status: &inv.Status, durationMS: &ms})
}

func (s *LogSink) put(r logRow) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return // a worker's last words after shutdown
	}
	select {
	case s.rows <- r:
	default:
		s.dropped.Add(1)
	}
}

func (s *LogSink) run() {
	defer close(s.done)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	sweep := time.NewTicker(time.Hour)
	defer sweep.Stop()
	var batch []logRow
	flush := func() {
		if len(batch) == 0 {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := s.db.CopyFrom(ctx, pgx.Identifier{"basalt", "function_logs"},
			[]string{"at", "function", "version", "kind", "request_id", "level", "message", "method", "path", "status", "duration_ms"},
			pgx.CopyFromSlice(len(batch), func(i int) ([]any, error) {
				r := batch[i]
				return []any{r.at, r.fn, r.version, r.kind, r.requestID, r.level, r.message, r.method, r.path, r.status, r.durationMS}, nil
			}))
		if err != nil {
			s.log.Warn("functions: log lines lost", "lines", len(batch), "err", err)
		}
		if n := s.dropped.Swap(0); n > 0 {
			s.log.Warn("functions: log lines dropped (buffer full)", "lines", n)
		}
		batch = batch[:0]
	}
	for {
		select {
		case r, ok := <-s.rows:
			if !ok {
				flush()
				return
			}
			batch = append(batch, r)
			if len(batch) >= 500 {
				flush()
			}
		case <-tick.C:
			flush()
		case <-sweep.C:
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_, err := s.db.Exec(ctx, `DELETE FROM basalt.function_logs WHERE at < now() - $1::interval`,
				s.retention.String())
			cancel()
			if err != nil {
				s.log.Warn("functions: old logs not deleted", "err", err)
			}
		}
	}
}

// Close writes what is buffered and stops; later lines are dropped.
func (s *LogSink) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.rows)
	}
	s.mu.Unlock()
	<-s.done
}

// LogEntry is one row as the logs endpoint returns it.
type LogEntry struct {
	At         time.Time `json:"timestamp"`
	Function   string    `json:"function"`
	Version    string    `json:"version"`
	Kind       string    `json:"kind"`
	RequestID  string    `json:"request_id,omitempty"`
	Level      string    `json:"level"`
	Message    string    `json:"message,omitempty"`
	Method     *string   `json:"method,omitempty"`
	Path       *string   `json:"path,omitempty"`
	Status     *int      `json:"status,omitempty"`
	DurationMS *float64  `json:"duration_ms,omitempty"`
}

// Logs returns the newest rows of fn (all functions when ""), newest first.
func (s *Store) Logs(ctx context.Context, fn, requestID string, limit int) ([]LogEntry, error) {
	rows, err := s.db.Query(ctx, `
		SELECT at, function, version, kind, request_id, level, message, method, path, status, duration_ms
		FROM basalt.function_logs
		WHERE ($1 = '' OR function = $1) AND ($2 = '' OR request_id = $2)
		ORDER BY at DESC, id DESC LIMIT $3`, fn, requestID, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (LogEntry, error) {
		var e LogEntry
		err := r.Scan(&e.At, &e.Function, &e.Version, &e.Kind, &e.RequestID, &e.Level, &e.Message,
			&e.Method, &e.Path, &e.Status, &e.DurationMS)
		return e, err
	})
}
