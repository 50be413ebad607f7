package deploy

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/internal/copyqueue"
)

// LogSink writes function logs to basalt.function_logs in batches, off the
// request path (copyqueue). When the database cannot keep up, lines beyond
// the queue are dropped and counted rather than slowing functions down.
type LogSink struct {
	db        *pgxpool.Pool
	retention time.Duration
	q         *copyqueue.Writer[logRow]
}

type logRow struct {
	at                        time.Time
	fn, version, kind         string
	requestID, level, message string
	method, path              *string
	status                    *int
	durationMS                *float64
}

var logColumns = []string{"at", "function", "version", "kind", "request_id", "level", "message", "method", "path", "status", "duration_ms"}

// NewLogSink starts the writer; Close flushes and stops it. Rows older than
// retention are deleted hourly.
func NewLogSink(db *pgxpool.Pool, retention time.Duration, log *slog.Logger) *LogSink {
	s := &LogSink{db: db, retention: retention}
	s.q = copyqueue.New(db, copyqueue.Config[logRow]{
		Table: pgx.Identifier{"basalt", "function_logs"}, Columns: logColumns,
		Row: func(r logRow) []any {
			return []any{r.at, r.fn, r.version, r.kind, r.requestID, r.level, r.message, r.method, r.path, r.status, r.durationMS}
		},
		Batch: 500, Every: 200 * time.Millisecond, Sweep: s.sweep, What: "functions: log lines",
	}, log)
	return s
}

// Line records one console line.
func (s *LogSink) Line(fn, version string, l deno.LogLine) {
	msg := l.Message
	if len(msg) > 10000 {
		msg = msg[:10000] + "…"
	}
	s.q.Add(logRow{at: time.Now(), fn: fn, version: version, kind: "log", requestID: l.RequestID, level: l.Level, message: msg})
}

// Invocation records one request.
func (s *LogSink) Invocation(fn, version string, inv deno.Invocation) {
	ms := float64(inv.Duration.Microseconds()) / 1000
	level := "info"
	if inv.Error != "" || inv.Status >= 500 {
		level = "error"
	}
	s.q.Add(logRow{at: time.Now(), fn: fn, version: version, kind: "request", requestID: inv.RequestID, level: level,
		message: inv.Error, method: &inv.Method, path: &inv.Path, status: &inv.Status, durationMS: &ms})
}

// Close writes what is queued and stops; later lines are dropped (a
// worker's last words after shutdown).
func (s *LogSink) Close() { s.q.Close() }

// sweep deletes rows past the retention.
func (s *LogSink) sweep(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err := s.db.Exec(ctx, `DELETE FROM basalt.function_logs WHERE at < now() - $1::interval`, s.retention.String())
	return err
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
