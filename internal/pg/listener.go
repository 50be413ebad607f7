package pg

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ListenerName is the application_name of a listener's connection, so
// that pg_stat_activity tells it apart.
const ListenerName = "basalt listener"

// DefaultQueue bounds the notifications a payload subscriber may have
// waiting.
const DefaultQueue = 1024

// Listener holds one connection per node that LISTENs for the control
// plane's notifications (schema reloads, API keys, deployed functions,
// queued HTTP requests, read-replica pins) and hands each to the
// subscribers of its channel. The connection is taken out of the pool for
// good (LISTEN state belongs to it), every channel is LISTENed in one round
// trip, and after a failure one loop reconnects with backoff, logging one
// warning per outage.
//
// The reader never waits for a subscriber: each has its own goroutine and
// queue, so a slow one delays only itself.
//
// Realtime's cross-node messages do not come through here: they are the
// data plane, many and latency-critical, and share no connection with
// these, so that a burst of broadcasts cannot hold up a schema reload, nor
// a reload's subscribers a broadcast (head-of-line blocking).
type Listener struct {
	db  *pgxpool.Pool
	log *slog.Logger

	mu        sync.Mutex
	subs      []*Subscription
	session   int                // bumped per connection in which LISTEN took effect
	listening map[string]bool    // channels LISTENed on the current connection
	interrupt context.CancelFunc // wakes the reader to LISTEN new channels
	wake      chan struct{}      // a first subscriber while idle
	stop      context.CancelFunc
	done      chan struct{}
}

// Handler says what a subscriber wants from its channel. Every function
// runs on the subscriber's own goroutine, in the order of the events.
type Handler struct {
	// Filter, when set, drops notifications whose payload it refuses. It
	// runs on the reader: it must be quick.
	Filter func(payload string) bool
	// Notify runs for notifications. Without Payloads they coalesce:
	// Notify("") runs once for any number heard while it was busy.
	Notify func(payload string)
	// Payloads hands Notify every payload, in order, through a queue of
	// Queue (default DefaultQueue). When the queue is full, notifications
	// are dropped: Lost runs, and Connected once the queue has drained, as
	// when the connection breaks, so the subscriber treats the gap as it
	// treats an outage.
	Payloads bool
	Queue    int
	// Connected runs once LISTEN is in effect on a new connection (the
	// first and after every reconnect): anything sent before may have
	// been missed.
	Connected func()
	// Lost runs when notifications stop being heard (the connection
	// broke): until the next Connected they may be missed.
	Lost func()
}

// Subscription is one subscriber's registration; Close ends it.
type Subscription struct {
	l       *Listener
	channel string
	h       Handler

	mu      sync.Mutex
	events  []event
	queued  int  // notifications in events
	gap     bool // the queue overflowed: dropping until it drains
	session int  // the session whose Connected was queued
	closed  bool
	wake    chan struct{}
	done    chan struct{}
}

type eventKind int

const (
	evNotify eventKind = iota
	evConnected
	evLost
)

type event struct {
	kind    eventKind
	payload string
}

// NewListener returns a listener on db (a pool whose role may LISTEN). It
// connects once it has a subscriber; Close stops it.
func NewListener(db *pgxpool.Pool, log *slog.Logger) *Listener {
	if log == nil {
		log = slog.Default()
	}
	ctx, stop := context.WithCancel(context.Background())
	l := &Listener{db: db, log: log, wake: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	go l.run(ctx)
	return l
}

// OwnListener returns l, or when l is nil a listener of its own on db that
// stop closes: a service built alone (tests, benchmarks) listens by itself,
// one built by a node shares the node's.
func OwnListener(l *Listener, db *pgxpool.Pool, log *slog.Logger) (_ *Listener, stop func()) {
	if l != nil {
		return l, func() {}
	}
	l = NewListener(db, log)
	return l, l.Close
}

// Close ends every subscription and closes the connection.
func (l *Listener) Close() {
	l.stop()
	<-l.done
	l.mu.Lock()
	subs := l.subs
	l.subs = nil
	l.mu.Unlock()
	for _, s := range subs {
		s.Close()
	}
}

// Subscribe registers h for channel (an identifier; it is quoted). When
// the listener is connected already, the channel is LISTENed at once and
// Connected runs once it is in effect.
func (l *Listener) Subscribe(channel string, h Handler) *Subscription {
	if h.Queue <= 0 {
		h.Queue = DefaultQueue
	}
	s := &Subscription{l: l, channel: channel, h: h, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.run()
	l.mu.Lock()
	l.subs = append(l.subs, s)
	if l.interrupt != nil {
		l.interrupt()
	}
	l.mu.Unlock()
	Poke(l.wake)
	return s
}

// Close stops s; its functions do not run after Close returns.
func (s *Subscription) Close() {
	l := s.l
	l.mu.Lock()
	l.subs = slices.DeleteFunc(l.subs, func(o *Subscription) bool { return o == s })
	l.mu.Unlock()
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.wake)
	}
	s.mu.Unlock()
	<-s.done
}

// push queues e for s; it never blocks.
func (s *Subscription) push(e event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	if e.kind == evNotify {
		switch {
		case !s.h.Payloads:
			if n := len(s.events); n > 0 && s.events[n-1].kind == evNotify {
				return // coalesced
			}
			e.payload = ""
		case s.gap:
			return
		case s.queued >= s.h.Queue:
			s.gap = true
			s.events = append(s.events, event{kind: evLost})
			s.l.log.Warn("database notifications: a subscriber fell behind; treating it as an outage", "channel", s.channel, "queue", s.h.Queue)
			return
		default:
			s.queued++
		}
	}
	s.events = append(s.events, e)
	Poke(s.wake)
}

func (s *Subscription) run() {
	defer close(s.done)
	for range s.wake {
		for {
			s.mu.Lock()
			if s.closed {
				s.mu.Unlock()
				return
			}
			if len(s.events) == 0 {
				gap := s.gap
				s.gap = false
				s.mu.Unlock()
				if gap {
					// Drained: notifications are heard again; those
					// dropped count as missed.
					s.call(event{kind: evConnected})
				}
				break
			}
			e := s.events[0]
			s.events = s.events[1:]
			if e.kind == evNotify && s.h.Payloads {
				s.queued--
			}
			s.mu.Unlock()
			s.call(e)
		}
	}
}

func (s *Subscription) call(e event) {
	switch {
	case e.kind == evNotify && s.h.Notify != nil:
		s.h.Notify(e.payload)
	case e.kind == evConnected && s.h.Connected != nil:
		s.h.Connected()
	case e.kind == evLost && s.h.Lost != nil:
		s.h.Lost()
	}
}

// Backoff between reconnects.
const (
	listenRetryMin = 50 * time.Millisecond
	listenRetryMax = 5 * time.Second
)

func (l *Listener) run(ctx context.Context) {
	defer close(l.done)
	retry := listenRetryMin
	down := false // in an outage, warned about
	for {
		// Hold no connection while no one listens.
		for l.idle() {
			select {
			case <-ctx.Done():
				return
			case <-l.wake:
			}
		}
		connected, err := l.listen(ctx, func() {
			retry = listenRetryMin
			if down {
				l.log.Info("database notifications: listening again")
				down = false
			}
		})
		if ctx.Err() != nil {
			return
		}
		if connected {
			l.lost()
		}
		if !down {
			l.log.Warn("database notifications: not listening; reconnecting, notifications meanwhile may be missed", "err", err)
			down = true
		} else {
			l.log.Debug("database notifications: reconnect failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
		retry = min(2*retry, listenRetryMax)
	}
}

func (l *Listener) idle() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.subs) == 0
}

// lost tells every subscriber that heard Connected on the connection that
// just broke.
func (l *Listener) lost() {
	l.mu.Lock()
	session := l.session
	subs := slices.Clone(l.subs)
	l.listening = nil
	l.mu.Unlock()
	for _, s := range subs {
		s.mu.Lock()
		was := s.session == session
		s.mu.Unlock()
		if was {
			s.push(event{kind: evLost})
		}
	}
}

// listen runs one connection until it fails; connected reports whether
// LISTEN took effect on it (up runs then).
func (l *Listener) listen(ctx context.Context, up func()) (connected bool, err error) {
	pooled, err := l.db.Acquire(ctx)
	if err != nil {
		return false, err
	}
	// LISTEN state belongs to this connection: it never goes back.
	conn := pooled.Hijack()
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "SET application_name = '"+ListenerName+"'"); err != nil {
		return false, err
	}
	for {
		wctx, cancel := context.WithCancel(ctx)
		l.mu.Lock()
		l.interrupt = cancel
		var fresh []string
		for _, s := range l.subs {
			if !l.listening[s.channel] && !slices.Contains(fresh, s.channel) {
				fresh = append(fresh, s.channel)
			}
		}
		l.mu.Unlock()
		if len(fresh) > 0 {
			if err := l.listenTo(ctx, conn, fresh); err != nil {
				cancel()
				return connected, err
			}
			if !connected {
				connected = true
				up()
			}
		}
		l.announce()
		n, err := conn.WaitForNotification(wctx)
		interrupted := wctx.Err() != nil && ctx.Err() == nil
		cancel()
		if err != nil {
			if interrupted && !conn.IsClosed() {
				continue // interrupted: a new channel to LISTEN
			}
			return connected, err
		}
		l.dispatch(n.Channel, n.Payload)
	}
}

// plainName reports whether a channel name needs no quotes: lower-case
// letters, digits and underscores, not starting with a digit (ours are not
// keywords).
func plainName(c string) bool {
	for i, r := range c {
		if !(r >= 'a' && r <= 'z' || r == '_' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return c != ""
}

// listenTo LISTENs for channels in one round trip.
func (l *Listener) listenTo(ctx context.Context, conn *pgx.Conn, channels []string) error {
	stmts := make([]string, len(channels))
	for i, c := range channels {
		// Plain names stay bare, as pg_stat_activity then shows them.
		if !plainName(c) {
			c = pgx.Identifier{c}.Sanitize()
		}
		stmts[i] = "LISTEN " + c
	}
	if _, err := conn.Exec(ctx, strings.Join(stmts, "; ")); err != nil {
		return err
	}
	l.mu.Lock()
	if l.listening == nil {
		l.listening = map[string]bool{}
		l.session++
	}
	for _, c := range channels {
		l.listening[c] = true
	}
	l.mu.Unlock()
	return nil
}

// announce queues Connected for the subscribers whose channel is LISTENed
// on this connection and who have not heard it yet.
func (l *Listener) announce() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.subs {
		if !l.listening[s.channel] {
			continue
		}
		s.mu.Lock()
		fresh := s.session != l.session
		s.session = l.session
		s.mu.Unlock()
		if fresh {
			s.push(event{kind: evConnected})
		}
	}
}

func (l *Listener) dispatch(channel, payload string) {
	l.mu.Lock()
	subs := slices.Clone(l.subs)
	session := l.session
	l.mu.Unlock()
	for _, s := range subs {
		if s.channel != channel || (s.h.Filter != nil && !s.h.Filter(payload)) {
			continue
		}
		s.mu.Lock()
		heard := s.session == session
		s.mu.Unlock()
		if heard {
			s.push(event{kind: evNotify, payload: payload})
		}
	}
}

// Poke signals on c (capacity 1) without waiting: a signal already
// pending absorbs the new one.
func Poke(c chan<- struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
