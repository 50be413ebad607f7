// Package replica routes read-only database work to a streaming read replica
// (a hot standby) while keeping every caller's reads consistent with its own
// writes.
//
// The design rests on one number per node, caughtUp: the latest instant t
// such that the replica has replayed all the WAL the primary had written at
// t. Every Poll the router reads pg_current_wal_insert_lsn() on the primary (noting
// when it asked) and then pg_last_wal_replay_lsn() on the replica; caughtUp
// is the start time of the newest primary sample the replica has replayed.
// From it follow:
//
//   - lag = now - caughtUp (zero progress makes it grow by itself, so a
//     replica that stalls or hangs is noticed without a timeout);
//   - read-your-writes: a caller who wrote at time w (after the commit) reads
//     from the replica only once caughtUp > w, that is once a sample taken
//     after the commit has been replayed. Writes cost nothing extra: no LSN
//     is fetched per write.
//
// Writes are remembered per user (the JWT sub) in memory, and announced to
// the other nodes with NOTIFY on the primary, sent inside the write's own
// transaction for REST (delivered when it commits) and right after the
// response for the other services; each node pins the user from the moment
// it hears. A token issued less than tokenSkew before caughtUp also reads
// from the primary: sign-up and sign-in write rows (a profile made by a
// trigger, say) before the caller has a sub to be pinned by.
package replica

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
)

// Channel is the NOTIFY channel on which nodes announce who wrote.
const Channel = "basalt_replica_pin"

// notifySQL announces a writer; runs inside a write's transaction or alone.
const notifySQL = "SELECT pg_notify('" + Channel + "', $1)"

// tokenSkew covers the one-second resolution of iat and clock differences
// between the node that issued a token and this one.
const tokenSkew = 2 * time.Second

// Config tunes the router.
type Config struct {
	// MaxLag is how far behind the replica may be before every read goes
	// to the primary (default 5s).
	MaxLag time.Duration
	// Poll is how often the replica's replay position is read (default 100ms).
	Poll time.Duration
	// Listener is the node's shared listener on the primary; nil: the
	// router listens on a connection of its own.
	Listener *pg.Listener
}

func (c *Config) defaults() {
	if c.MaxLag <= 0 {
		c.MaxLag = 5 * time.Second
	}
	if c.Poll <= 0 {
		c.Poll = 100 * time.Millisecond
	}
}

// Router decides, per read, between the replica pool and the primary.
type Router struct {
	cfg     Config
	primary *pgxpool.Pool // admin pool on the primary: WAL positions, NOTIFY
	replica *pgxpool.Pool // authenticator on the replica: the reads
	log     *slog.Logger
	m       *metrics

	poll atomic.Pointer[pollState]
	// listening is when the current LISTEN for pins began; nil while the
	// listener is disconnected (pins from other nodes may be missed).
	listening atomic.Pointer[time.Time]
	// health is the last logged health, so each change is logged once.
	health atomic.Int32

	pinMu sync.Mutex
	pins  map[string]time.Time // user -> when its last write was seen

	samples []sample // poller only
	stop    context.CancelFunc
	done    sync.WaitGroup
}

// pollState is what the last poll learned.
type pollState struct {
	up       bool      // the replica answered and is a standby
	reason   string    // why not, when !up
	caughtUp time.Time // see the package comment; zero: not known yet
}

// New starts polling the replica and listening for pins. primary is a pool
// on the primary that may LISTEN and read its WAL position; replica is
// the pool reads run on. Close stops both.
func New(cfg Config, primary, replica *pgxpool.Pool, log *slog.Logger) *Router {
	cfg.defaults()
	if log == nil {
		log = slog.Default()
	}
	r := &Router{cfg: cfg, primary: primary, replica: replica, log: log, m: newMetrics(), pins: map[string]time.Time{}}
	r.poll.Store(&pollState{reason: "not polled yet"})
	ctx, stop := context.WithCancel(context.Background())
	r.stop = stop
	r.done.Add(2)
	go func() { defer r.done.Done(); r.pollLoop(ctx) }()
	go func() { defer r.done.Done(); r.listenLoop(ctx) }()
	return r
}

// Close stops the poller and the listener.
func (r *Router) Close() {
	r.stop()
	r.done.Wait()
}

// Collectors are the router's Prometheus metrics, for the gateway's registry.
func (r *Router) Collectors() []prometheus.Collector { return r.m.collectors() }

// ReadPool returns the pool a read-only request of the caller in ctx runs
// on: the replica, or nil for the primary.
func (r *Router) ReadPool(ctx context.Context) *pgxpool.Pool {
	ps := r.poll.Load()
	if !ps.up {
		r.m.fallback("unavailable")
		return nil
	}
	if time.Since(ps.caughtUp) > r.cfg.MaxLag {
		r.m.fallback("lag")
		return nil
	}
	since := r.listening.Load()
	if since == nil {
		// Writes announced by other nodes could go unheard.
		r.m.fallback("unavailable")
		return nil
	}
	// Writes made anywhere before the listener (re)connected are unknown:
	// they count as everyone's until the replica has replayed them.
	if !ps.caughtUp.After(*since) || r.wroteSince(ctx, ps.caughtUp) {
		r.m.pinned.Inc()
		r.m.reads.WithLabelValues("primary").Inc()
		return nil
	}
	r.m.toReplica.Inc()
	return r.replica
}

// wroteSince reports whether the caller wrote, or got its token, at or
// after caughtUp: its reads must then see the primary.
func (r *Router) wroteSince(ctx context.Context, caughtUp time.Time) bool {
	c := jwt.FromContext(ctx).Claims
	if c == nil {
		return false
	}
	if iat, err := gojwt.MapClaims(c.Map).GetIssuedAt(); err == nil && iat != nil && caughtUp.Before(iat.Add(tokenSkew)) {
		return true
	}
	if c.Subject == "" {
		return false
	}
	r.pinMu.Lock()
	w, ok := r.pins[c.Subject]
	r.pinMu.Unlock()
	return ok && !caughtUp.After(w)
}

// ReadFailed is told that a read on the replica failed with err; lost says
// the connection broke (or could not be made); pg.Unavailable decides the
// same from the error. It reports whether the read
// should be run again on the primary: yes when the replica is the problem
// (gone, in conflict with recovery, or behind on DDL the schema cache
// already knows), no for the caller's own mistakes.
func (r *Router) ReadFailed(err error, lost bool) bool {
	if lost || pg.Unavailable(err) {
		r.markDown("failed mid-request: " + err.Error())
		r.m.fallback("error")
		return true
	}
	if retryOnPrimary(err) {
		r.m.fallback("error")
		return true
	}
	return false
}

// WriteNotice is a statement to run inside a write's transaction: it tells
// every node, when the transaction commits, that the caller wrote. Empty
// when the caller has no user to pin.
func (r *Router) WriteNotice(ctx context.Context) (string, []any) {
	sub := subject(ctx)
	if sub == "" {
		return "", nil
	}
	return notifySQL, []any{sub}
}

// Wrote records, after its commit, that the caller in ctx wrote.
func (r *Router) Wrote(ctx context.Context) {
	if sub := subject(ctx); sub != "" {
		r.pin(sub, time.Now())
	}
}

// MarkWrites wraps a service whose writes do not go through WriteNotice
// (auth, storage, functions): after a request with a method that may write,
// the caller is pinned here and announced to the other nodes.
func (r *Router) MarkWrites(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h.ServeHTTP(w, req)
		switch req.Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return
		}
		sub := subject(req.Context())
		if sub == "" {
			return
		}
		r.pin(sub, time.Now())
		// Sent before the handler's buffered response is flushed, so other
		// nodes usually hear before the client can ask them.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(req.Context()), time.Second)
		defer cancel()
		if _, err := r.primary.Exec(ctx, notifySQL, sub); err != nil {
			r.log.Warn("read replica: could not announce a write to the other nodes", "err", err)
		}
	})
}

func subject(ctx context.Context) string {
	if c := jwt.FromContext(ctx).Claims; c != nil {
		return c.Subject
	}
	return ""
}

func (r *Router) pin(sub string, at time.Time) {
	r.pinMu.Lock()
	if at.After(r.pins[sub]) {
		r.pins[sub] = at
	}
	r.pinMu.Unlock()
}

// forgetPins drops pins the replica has caught up with.
func (r *Router) forgetPins(caughtUp time.Time) {
	r.pinMu.Lock()
	for k, w := range r.pins {
		if caughtUp.After(w) {
			delete(r.pins, k)
		}
	}
	r.pinMu.Unlock()
}
