// Package accesslog stores the gateway's access log in Postgres
// (basalt.access_logs), so every node's requests can be searched in one
// place (Studio's Logs screen) without a log stack of its own.
//
// Writing never slows a request: Add puts the entry on a bounded queue
// (internal/copyqueue) and returns; a goroutine copies batches into the
// table. When the database cannot keep up the queue fills, and entries past
// it are dropped and counted (basalt_access_log_dropped_total). The table is
// unlogged (no WAL per request; a crash of PostgreSQL empties it) and bounded
// by age and by rows; each node sweeps it.
package accesslog

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/copyqueue"
)

// Entry is one answered request.
type Entry struct {
	At         time.Time
	RequestID  string
	Service    string
	Method     string
	Path       string
	Query      string
	Status     int
	Bytes      int64
	DurationMS float64
	ClientIP   string
	UserAgent  string
	// UserID and Role are the caller's verified JWT subject and role.
	UserID, Role string
}

// Config bounds the writer and the table.
type Config struct {
	// Retention: rows older than this are deleted (BASALT_LOG_RETENTION,
	// 168h).
	Retention time.Duration
	// MaxRows: the newest rows kept across the cluster
	// (BASALT_LOG_RETENTION_ROWS, 1,000,000).
	MaxRows int64
	// Queue is how many entries wait for the database before new ones are
	// dropped (BASALT_LOG_QUEUE, 10,000).
	Queue int
	// Node names this process in its rows (host:port of its API).
	Node string
	// Batch is the most rows one COPY writes; Every is how often a
	// partial batch is written; Sweep how often old rows are deleted.
	Batch int
	Every time.Duration
	Sweep time.Duration
}

// ConfigFromEnv reads the settings (listed in studio/README.md).
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	r := config.NewReader(getenv)
	c := Config{
		Retention: r.PositiveDuration("BASALT_LOG_RETENTION", 7*24*time.Hour),
		MaxRows:   r.IntBetween("BASALT_LOG_RETENTION_ROWS", 1_000_000, 1, 1<<40),
		Queue:     int(r.IntBetween("BASALT_LOG_QUEUE", 10_000, 1, 10_000_000)),
	}
	return c, r.Err()
}

// Writer queues entries and writes them in batches (copyqueue).
type Writer struct {
	db      *pgxpool.Pool
	cfg     Config
	dropped prometheus.Counter
	written prometheus.Counter
	q       *copyqueue.Writer[Entry]
}

// New starts a writer; Close flushes and stops it. Its counters are
// registered on reg when it is not nil.
func New(db *pgxpool.Pool, cfg Config, log *slog.Logger, reg prometheus.Registerer) (*Writer, error) {
	if cfg.Sweep <= 0 {
		cfg.Sweep = time.Minute
	}
	w := &Writer{
		db: db, cfg: cfg,
		dropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "basalt_access_log_dropped_total",
			Help: "Access log entries dropped because the queue to the database was full."}),
		written: prometheus.NewCounter(prometheus.CounterOpts{Name: "basalt_access_log_written_total",
			Help: "Access log entries written to basalt.access_logs."}),
	}
	if reg != nil {
		for _, c := range []prometheus.Collector{w.dropped, w.written} {
			if err := reg.Register(c); err != nil {
				return nil, fmt.Errorf("accesslog: register metrics: %w", err)
			}
		}
	}
	w.q = copyqueue.New(db, copyqueue.Config[Entry]{
		Table: pgx.Identifier{"basalt", "access_logs"}, Columns: columns, Row: w.row,
		Queue: cfg.Queue, Batch: cfg.Batch, Every: cfg.Every, Sweep: w.sweep, SweepEvery: cfg.Sweep,
		What:    "access log",
		Dropped: func(n int) { w.dropped.Add(float64(n)) },
		Written: func(n int) { w.written.Add(float64(n)) },
	}, log)
	return w, nil
}

// Add queues e; it never blocks. A full queue drops e and counts it.
func (w *Writer) Add(e Entry) { w.q.Add(e) }

// Dropped is how many entries were dropped so far.
func (w *Writer) Dropped() float64 { return float64(w.q.Dropped()) }

// Close writes what is queued and stops; later entries are ignored.
func (w *Writer) Close() { w.q.Close() }

var columns = []string{"at", "node", "request_id", "service", "method", "path", "query", "status", "bytes",
	"duration_ms", "client_ip", "user_agent", "user_id", "role"}

func (w *Writer) row(e Entry) []any {
	return []any{e.At, w.cfg.Node, e.RequestID, e.Service, e.Method, clip(e.Path, 2048), clip(e.Query, 2048),
		e.Status, e.Bytes, e.DurationMS, e.ClientIP, clip(e.UserAgent, 512), e.UserID, e.Role}
}

// sweep deletes rows past the retention age, then all but the newest
// MaxRows.
func (w *Writer) sweep(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, err := w.db.Exec(ctx, `DELETE FROM basalt.access_logs WHERE at < now() - make_interval(secs => $1)`,
		w.cfg.Retention.Seconds()); err != nil {
		return err
	}
	if w.cfg.MaxRows > 0 {
		_, err := w.db.Exec(ctx, `DELETE FROM basalt.access_logs WHERE id <= (
			SELECT id FROM basalt.access_logs ORDER BY id DESC OFFSET $1 LIMIT 1)`, w.cfg.MaxRows)
		return err
	}
	return nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
