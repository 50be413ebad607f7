// Package copyqueue writes rows that come from the request path (access
// lines, function logs) into a Postgres table in batches, off that path.
//
// Add never blocks: it puts the row on a bounded queue and returns; a
// goroutine copies batches into the table (COPY). The queue takes memory as
// rows arrive, not its whole bound up front, so an idle node holds none of
// it. When the database cannot keep up the queue fills, and rows past it are
// dropped and counted; so are the rows of a batch the database refused.
package copyqueue

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
)

// Config says where rows go and bounds the queue.
type Config[T any] struct {
	// Table and Columns receive Row's values, in Columns' order.
	Table   pgx.Identifier
	Columns []string
	Row     func(T) []any
	// Queue is how many rows wait for the database before new ones are
	// dropped (10,000); Batch the most one COPY writes (1,000); Every how
	// often a partial batch is written (250 ms).
	Queue int
	Batch int
	Every time.Duration
	// Sweep, when set, runs every SweepEvery (an hour) on the writer's
	// goroutine: deleting rows past their retention.
	Sweep      func(context.Context) error
	SweepEvery time.Duration
	// What names the rows in the log ("access log").
	What string
	// Dropped and Written, when set, are told of rows dropped and written
	// (the owner's metrics).
	Dropped, Written func(n int)
}

// Writer queues rows and writes them in batches.
type Writer[T any] struct {
	db      *pgxpool.Pool
	cfg     Config[T]
	log     *slog.Logger
	dropped atomic.Int64
	// reported is how many of the dropped rows the log has told of (the
	// writer's goroutine only): one line per flush, not one per row.
	reported int64
	wake     chan struct{} // a batch is full, or Close was called
	done     chan struct{}

	mu     sync.Mutex
	queue  [][]T // batches waiting for the writer; the last one fills up to cfg.Batch
	queued int   // rows in queue, at most cfg.Queue
	closed bool
}

// New starts a writer; Close writes what is queued and stops it.
func New[T any](db *pgxpool.Pool, cfg Config[T], log *slog.Logger) *Writer[T] {
	if cfg.Queue <= 0 {
		cfg.Queue = 10_000
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 1000
	}
	if cfg.Every <= 0 {
		cfg.Every = 250 * time.Millisecond
	}
	if cfg.SweepEvery <= 0 {
		cfg.SweepEvery = time.Hour
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := &Writer[T]{db: db, cfg: cfg, log: log, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go w.run()
	return w
}

// Add queues row; it never blocks. A full queue, or a closed writer, drops
// it (only the first is counted).
func (w *Writer[T]) Add(row T) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	if w.queued >= w.cfg.Queue {
		w.mu.Unlock()
		w.drop(1)
		return
	}
	if len(w.queue) == 0 || len(w.queue[len(w.queue)-1]) >= w.cfg.Batch {
		w.queue = append(w.queue, nil)
	}
	last := &w.queue[len(w.queue)-1]
	*last = append(*last, row)
	w.queued++
	full := len(*last) >= w.cfg.Batch
	w.mu.Unlock()
	if full {
		w.signal()
	}
}

// Dropped is how many rows were dropped so far.
func (w *Writer[T]) Dropped() int64 { return w.dropped.Load() }

// Close writes what is queued and stops; later rows are ignored.
func (w *Writer[T]) Close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.signal()
	<-w.done
}

func (w *Writer[T]) drop(n int) {
	w.dropped.Add(int64(n))
	if w.cfg.Dropped != nil {
		w.cfg.Dropped(n)
	}
}

// signal wakes the writer; a wake already pending covers this one.
func (w *Writer[T]) signal() { pg.Poke(w.wake) }

func (w *Writer[T]) run() {
	defer close(w.done)
	tick := time.NewTicker(w.cfg.Every)
	defer tick.Stop()
	var sweep <-chan time.Time
	if w.cfg.Sweep != nil {
		t := time.NewTicker(w.cfg.SweepEvery)
		defer t.Stop()
		sweep = t.C
	}
	for {
		select {
		case <-w.wake:
		case <-tick.C:
		case <-sweep:
			if err := w.cfg.Sweep(context.Background()); err != nil {
				w.log.Warn(w.cfg.What+": old rows not deleted", "err", err)
			}
			continue
		}
		// Write one batch; what is left waits for the next wake, a tick at
		// the latest, or is written now when it fills a batch or the
		// writer is closing.
		batch, more, closed := w.take()
		if len(batch) > 0 {
			w.write(batch)
		}
		if closed && !more {
			return
		}
		if more {
			w.signal()
		}
	}
}

func (w *Writer[T]) write(batch []T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := w.db.CopyFrom(ctx, w.cfg.Table, w.cfg.Columns,
		pgx.CopyFromSlice(len(batch), func(i int) ([]any, error) { return w.cfg.Row(batch[i]), nil }))
	if err != nil {
		w.drop(len(batch))
		w.reported += int64(len(batch))
		w.log.Warn(w.cfg.What+": rows lost", "rows", len(batch), "err", err)
		return
	}
	if w.cfg.Written != nil {
		w.cfg.Written(int(n))
	}
	if d := w.dropped.Load() - w.reported; d > 0 {
		w.log.Warn(w.cfg.What+": rows dropped (queue full)", "rows", d)
		w.reported += d
	}
}

// take removes the oldest batch from the queue and reports whether what is
// left should be written at once: a full batch or, once the writer is
// closed, anything.
func (w *Writer[T]) take() (batch []T, more, closed bool) {
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
