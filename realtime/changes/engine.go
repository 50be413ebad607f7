// Package changes delivers postgres_changes: it reads committed changes
// from one logical replication slot (pgoutput, publication
// supabase_realtime), matches them against the subscribers' bindings and
// filters, checks row-level security for every subscriber in PostgreSQL
// (one pipelined round trip per change, as each subscriber's caller), and
// hands each subscriber the event payload realtime-js expects.
//
// Only one node reads the slot: the one holding an advisory lock. It
// processes each change for its own subscribers and hands it to Publish so
// other nodes can process it for theirs (Ingest). The slot is permanent:
// it confirms a transaction only once its changes were handed on, so the
// next reader (another node, or this one restarted) resumes where the last
// one stopped. A change read twice that way is recognised by its position
// in the stream and processed once per node; a subscriber receives only
// the changes committed after it subscribed.
package changes

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
)

// Publication is the publication the slot streams.
const Publication = "supabase_realtime"

// Config tunes the engine.
type Config struct {
	// SlotName is the replication slot's name (the database name is
	// appended, since slots are cluster-wide).
	SlotName string
	// Publish, when set, receives every change the leader read, encoded
	// for Ingest on other nodes. A change is confirmed to the slot only
	// once Publish returned nil.
	Publish func(ctx context.Context, change []byte) error
	// Fence, when set, returns once every change other nodes published
	// before the call has been passed to Ingest here. A new reader calls it
	// before applying changes of its own, and a node that stops calls it to
	// deliver what the reader published up to then.
	Fence func(ctx context.Context) error
	// SlotLag, when set, is told every 10 s while this node reads the
	// slot how many WAL bytes the slot has not confirmed yet, and once
	// with reading false when it stops.
	SlotLag func(slot string, bytes float64, reading bool)
}

// Binding is one postgres_changes item of a join.
type Binding struct {
	ID                   int64
	Event, Schema, Table string
	Filter               string
	HasFilter            bool
	Select               []string
	SelectInvalid        bool
	Raw                  json.RawMessage // the item as sent, for error messages
}

func (b Binding) raw() string { return string(b.Raw) }

// Subscriber is one channel's bindings, the caller its RLS checks run as,
// and where its events go.
type Subscriber struct {
	bindings []*sbinding
	caller   atomic.Pointer[pg.Caller]
	deliver  func(payload json.RawMessage)
	// from is the WAL position the subscription started at (see Validate):
	// changes whose transaction committed before it are not delivered.
	from atomic.Uint64
}

// sbinding is a binding with its parsed parameters.
type sbinding struct {
	Binding
	p     params
	err   error
	valid atomic.Bool
}

// NewSubscriber parses bindings; deliver receives each event's payload
// ({"ids":[…],"data":{…}}).
func NewSubscriber(caller pg.Caller, bindings []Binding, deliver func(json.RawMessage)) *Subscriber {
	s := &Subscriber{deliver: deliver}
	s.caller.Store(&caller)
	for _, b := range bindings {
		sb := &sbinding{Binding: b}
		// Nothing matches before Validate accepted it: a value that does
		// not cast would fail the evaluation of every change of the table.
		sb.p, sb.err = parseParams(b)
		s.bindings = append(s.bindings, sb)
	}
	return s
}

// SetCaller replaces the claims RLS checks use (an access_token push).
func (s *Subscriber) SetCaller(c pg.Caller) { s.caller.Store(&c) }

// Engine matches changes to subscribers.
type Engine struct {
	cfg   Config
	admin *pgxpool.Pool
	user  *pgxpool.Pool
	log   *slog.Logger
	rels  *relCache

	mu   sync.RWMutex
	subs map[*Subscriber]struct{}

	cancel context.CancelFunc
	done   chan struct{}
	// streaming is set while this node reads the slot; elsewhere is set
	// while another node holds the lock.
	streaming, elsewhere atomic.Bool

	// lastVisible is the last transaction seen visible (see waitVisible).
	lastVisible atomic.Int64

	// order serialises processing; last is the position of the last
	// change processed here (see deliver).
	order sync.Mutex
	last  position

	// confirmed is the slot position this node's reader has confirmed;
	// drainTo and drainNow are how Drain asks the reader to catch up.
	confirmed atomic.Uint64
	drainTo   atomic.Uint64
	drainNow  context.Context
	drain     context.CancelFunc
}

// New starts the engine, or returns nil (and logs one line) when the
// database has no logical replication.
func New(ctx context.Context, cfg Config, admin, user *pgxpool.Pool, log *slog.Logger) (*Engine, error) {
	var level string
	if err := admin.QueryRow(ctx, "SHOW wal_level").Scan(&level); err != nil {
		return nil, fmt.Errorf("realtime: read wal_level: %w", err)
	}
	if level != "logical" {
		log.Warn("realtime: postgres_changes are off: the database runs with wal_level=" + level +
			" (set wal_level=logical and restart PostgreSQL to turn them on)")
		return nil, nil
	}
	var replication bool
	if err := admin.QueryRow(ctx, `SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user`).Scan(&replication); err != nil {
		return nil, fmt.Errorf("realtime: read the database role: %w", err)
	}
	if !replication {
		log.Warn("realtime: postgres_changes are off: the database role may not read a replication slot " +
			"(ALTER ROLE ... WITH REPLICATION to turn them on)")
		return nil, nil
	}
	if cfg.SlotName == "" {
		cfg.SlotName = "basalt_realtime"
	}
	e := &Engine{cfg: cfg, admin: admin, user: user, log: log, rels: newRelCache(admin),
		subs: map[*Subscriber]struct{}{}, done: make(chan struct{})}
	e.drainNow, e.drain = context.WithCancel(context.Background())
	ctx, e.cancel = context.WithCancel(ctx)
	go e.run(ctx)
	return e, nil
}

// Close stops reading the slot; the slot stays for the next reader.
func (e *Engine) Close() {
	e.cancel()
	e.drain()
	<-e.done
}

// Subscribe starts delivering matching changes to s.
func (e *Engine) Subscribe(s *Subscriber) {
	e.mu.Lock()
	e.subs[s] = struct{}{}
	e.mu.Unlock()
}

// Unsubscribe stops delivering to s.
func (e *Engine) Unsubscribe(s *Subscriber) {
	e.mu.Lock()
	delete(e.subs, s)
	e.mu.Unlock()
}

// Validate checks s's bindings against the database: parameters that
// parse, at least one published table, filter columns that exist and
// values that cast. The first failure is returned, worded as the
// reference words it.
//
// As the reference creates a channel's subscriptions in one transaction,
// one failing binding leaves the channel with none.
//
// On success s receives every change whose transaction commits from now
// on (the current WAL position is its start): once Validate returns,
// nothing committed later is missed, and nothing committed before it
// started (a backlog the slot still holds) is sent.
func (e *Engine) Validate(ctx context.Context, s *Subscriber) error {
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	e.Ready(wctx)
	cancel()
	for _, b := range s.bindings {
		err := b.err
		if err == nil {
			err = e.validate(ctx, b)
		}
		if err != nil {
			return err
		}
	}
	// Every commit record written after this position is of a transaction
	// that committed after it was read.
	var from string
	if err := e.admin.QueryRow(ctx, `SELECT pg_current_wal_insert_lsn()::text`).Scan(&from); err != nil {
		return fmt.Errorf("Unable to subscribe to changes with given parameters. An exception happened: %s", pgMessage(err))
	}
	lsn, err := pglogrepl.ParseLSN(from)
	if err != nil {
		return err
	}
	s.from.Store(uint64(lsn))
	for _, b := range s.bindings {
		b.valid.Store(true)
	}
	return nil
}

// subscribers returns a snapshot of the subscribers.
func (e *Engine) subscribers() []*Subscriber {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]*Subscriber, 0, len(e.subs))
	for s := range e.subs {
		out = append(out, s)
	}
	return out
}

// Ready waits until some node reads the slot, so that "Subscribed to
// PostgreSQL" means changes committed from then on are delivered; it
// reports false if ctx ended first.
func (e *Engine) Ready(ctx context.Context) bool {
	for !e.streaming.Load() && !e.elsewhere.Load() {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
	return true
}

// Streaming reports whether this node reads the slot now.
func (e *Engine) Streaming() bool { return e.streaming.Load() }
