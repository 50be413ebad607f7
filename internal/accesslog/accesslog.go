// Package accesslog stores the gateway's access log in Postgres
// (basalt.access_logs), so every node's requests can be searched in one
// place (Studio's Logs screen) without a log stack of its own.
//
// Writing never slows a request: Add puts the entry on a bounded queue and
// returns; a goroutine copies batches into the table. The queue takes memory
// as entries arrive, not its whole bound up front: an idle node holds none.
// When the database cannot keep up the queue fills, and entries past it are
// dropped and counted (basalt_access_log_dropped_total). The table is
// unlogged (no WAL per request; a crash of PostgreSQL empties it) and bounded
// by age and by rows; each node sweeps it.
package accesslog

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/basaltdev/basalt/internal/config"
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

// Writer queues entries and writes them in batches.
type Writer struct {
	db      *pgxpool.Pool
	cfg     Config
	log     *slog.Logger
	dropped prometheus.Counter
	written prometheus.Counter
	wake    chan struct{} // a batch is full, or Close was called
	done    chan struct{}

	mu     sync.Mutex
	queue  [][]Entry // batches waiting for the writer; the last one fills up to cfg.Batch
	queued int       // entries in queue, at most cfg.Queue
	closed bool
}

// New starts a writer; Close flushes and stops it. Its counters are
// registered on reg when it is not nil.
func New(db *pgxpool.Pool, cfg Config, log *slog.Logger, reg prometheus.Registerer) (*Writer, error) {
	if cfg.Queue <= 0 {
		cfg.Queue = 10_000
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 1000
	}
	if cfg.Every <= 0 {
		cfg.Every = 250 * time.Millisecond
	}
	if cfg.Sweep <= 0 {
		cfg.Sweep = time.Minute
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Writer{
		db: db, cfg: cfg, log: log, wake: make(chan struct{}, 1), done: make(chan struct{}),
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
	go w.run()
	return w, nil
}

// Add queues e; it never blocks. A full queue drops e and counts it.
func (w *Writer) Add(e Entry) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	if w.queued >= w.cfg.Queue {
		w.mu.Unlock()
		w.dropped.Inc()
		return
	}
	if len(w.queue) == 0 || len(w.queue[len(w.queue)-1]) >= w.cfg.Batch {
		w.queue = append(w.queue, nil)
	}
	last := &w.queue[len(w.queue)-1]
	*last = append(*last, e)
	w.queued++
	full := len(*last) >= w.cfg.Batch
	w.mu.Unlock()
	if full {
		w.signal()
	}
}

// signal wakes the writer; a wake already pending covers this one.
func (w *Writer) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Dropped is how many entries were dropped so far.
func (w *Writer) Dropped() float64 { return counterValue(w.dropped) }

var columns = []string{"at", "node", "request_id", "service", "method", "path", "query", "status", "bytes",
	"duration_ms", "client_ip", "user_agent", "user_id", "role"}

func (w *Writer) run() {
	defer close(w.done)
	tick := time.NewTicker(w.cfg.Every)
	defer tick.Stop()
	sweep := time.NewTicker(w.cfg.Sweep)
	defer sweep.Stop()
	flush := func(batch []Entry) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		n, err := w.db.CopyFrom(ctx, pgx.Identifier{"basalt", "access_logs"}, columns,
			pgx.CopyFromSlice(len(batch), func(i int) ([]any, error) {
				e := batch[i]
				return []any{e.At, w.cfg.Node, e.RequestID, e.Service, e.Method, clip(e.Path, 2048), clip(e.Query, 2048),
					e.Status, e.Bytes, e.DurationMS, e.ClientIP, clip(e.UserAgent, 512), e.UserID, e.Role}, nil
			}))
		if err != nil {
			w.dropped.Add(float64(len(batch)))
			w.log.Warn("access log: entries lost", "entries", len(batch), "err", err)
		} else {
			w.written.Add(float64(n))
		}
	}
	for {
		select {
		case <-w.wake:
		case <-tick.C:
		case <-sweep.C:
			if err := w.sweep(context.Background()); err != nil {
				w.log.Warn("access log: old entries not deleted", "err", err)
			}
			continue
		}
		// Write one batch; what is left waits for the next wake, a tick at
		// the latest, or is written now when it fills a batch or the
		// writer is closing.
		batch, more, closed := w.take()
		if len(batch) > 0 {
			flush(batch)
		}
		if closed && !more {
			return
		}
		if more {
			w.signal()
		}
	}
}

// take removes the oldest batch from the queue and reports whether what is
// left should be written at once: a full batch or, once the writer is
// closed, anything.
func (w *Writer) take() (batch []Entry, more, closed bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.queue) > 0 {
		batch = w.queue[0]
		w.queue[0] = nil
		w.queue = w.queue[1:]
		w.queued -= len(batch)
	}
	if len(w.queue) == 0 {
		w.queue = nil
	}
	full := len(w.queue) > 1 || len(w.queue) == 1 && len(w.queue[0]) >= w.cfg.Batch
	return batch, full || w.closed && len(w.queue) > 0, w.closed
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

// Close writes what is queued and stops; later entries are ignored.
func (w *Writer) Close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.signal()
	<-w.done
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		return 0
	}
	return m.GetCounter().GetValue()
}
