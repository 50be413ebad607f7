// Package realtime is Basalt's /realtime/v1: the Phoenix channels protocol
// of Supabase Realtime (vsn 1.0.0 JSON objects, vsn 2.0.0 JSON arrays plus
// binary broadcasts), broadcast, presence and postgres_changes, so that
// supabase-js's channel() works unchanged.
//
// A socket (conn.go) reads and handles its client's frames in order and
// writes through a bounded queue. Channels (channel.go) hold a join's
// config, token and claims. The hub (hub.go) fans broadcasts and presence
// out to this node's channels, and the cluster (cluster.go) carries them to
// other nodes through LISTEN/NOTIFY. postgres_changes come from one logical
// replication slot (package realtime/changes), with each change checked
// against every subscriber's claims in PostgreSQL.
package realtime

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/ratelimit"
	"github.com/basaltdev/basalt/internal/telemetry"
	"github.com/basaltdev/basalt/realtime/changes"
)

// Service is the realtime API (mounted at /realtime/v1).
type Service struct {
	cfg      Config
	admin    *pgxpool.Pool // bookkeeping and the replication reader's queries
	user     *pgxpool.Pool // authenticator: everything done as a caller
	keys     *jwt.Keys
	log      *slog.Logger
	now      func() time.Time
	mux      *http.ServeMux
	hub      *hub
	upgrader websocket.Upgrader
	changes  *changes.Engine
	cluster  *cluster
	metrics  *telemetry.RealtimeMetrics // nil: no metrics

	conns   atomic.Int64 // open sockets
	clients *clients     // connected users and rates, by client
	joins   *joinLimiter

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	// closing ends when Close starts closing sockets (closeSockets).
	closing      context.Context
	closeSockets context.CancelFunc
	closeOnce    sync.Once
}

var _ http.Handler = (*Service)(nil)

// Option configures a Service.
type Option func(*Service)

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// WithMetrics keeps the realtime metrics (open sockets, slot lag) up to
// date.
func WithMetrics(m *telemetry.RealtimeMetrics) Option { return func(s *Service) { s.metrics = m } }

// New builds the service and starts its background work: the rate
// counters, the replication reader (when PostgresChanges is on and the
// database has wal_level=logical) and the cluster listener. Close stops
// them.
func New(cfg Config, admin, user *pgxpool.Pool, keys *jwt.Keys, opts ...Option) (*Service, error) {
	if keys == nil {
		return nil, errors.New("realtime: keys are required")
	}
	if admin == nil || user == nil {
		return nil, errors.New("realtime: the admin and user pools are required")
	}
	cfg.defaults()
	s := &Service{cfg: cfg, admin: admin, user: user, keys: keys, log: slog.New(slog.DiscardHandler),
		now: time.Now, mux: http.NewServeMux(), hub: newHub(), done: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	s.joins = newJoinLimiter(ratelimit.New(admin, s.now), cfg, s.log)
	s.clients = newClients(cfg)
	s.upgrader = websocket.Upgrader{
		// Reads reuse the HTTP server's buffer of the connection; write
		// buffers are lent from a pool only while a message is written,
		// so an idle socket holds none.
		WriteBufferSize: 4096,
		WriteBufferPool: &sync.Pool{},
		// Browsers connect from any app origin, as to the reference.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.closing, s.closeSockets = context.WithCancel(context.Background())
	s.routes()
	go s.tick()
	s.cluster = newCluster(s)
	if s.metrics != nil {
		s.metrics.ReportNodeSockets(s.cluster.node, s.NodeSockets)
	}
	if !cfg.PostgresChanges {
		ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
		changes.DropIdleSlot(ctx, admin, cfg.SlotName, s.log)
		cancel()
	} else {
		ccfg := changes.Config{SlotName: cfg.SlotName}
		if s.metrics != nil {
			ccfg.SlotLag = func(slot string, bytes float64, reading bool) {
				if reading {
					s.metrics.SlotLagBytes.WithLabelValues(slot).Set(bytes)
				} else {
					s.metrics.SlotLagBytes.DeleteLabelValues(slot)
				}
			}
		}
		if cfg.Cluster {
			ccfg.Publish = s.cluster.publishChange
			ccfg.Fence = s.cluster.fence
		}
		eng, err := changes.New(s.ctx, ccfg, admin, user, s.log)
		if err != nil {
			s.Close()
			return nil, err
		}
		s.changes = eng // nil when the database has no logical replication
	}
	go s.cluster.run(s.ctx)
	return s, nil
}

// drainTimeout bounds the graceful part of Close.
const drainTimeout = 5 * time.Second

// Close stops the service gracefully: changes committed before the call
// are delivered to this node's subscribers, every socket's queue is
// written and the socket closed (1001), then the background work stops.
// The replication slot stays for the next reader.
func (s *Service) Close() {
	s.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(s.ctx, drainTimeout)
		defer cancel()
		if s.changes != nil {
			s.changes.Drain(ctx)
		}
		s.closeSockets()
		for s.conns.Load() > 0 && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		s.stop()
	})
}

// stop ends the background work and drops every socket at once.
func (s *Service) stop() {
	s.cancel()
	if s.changes != nil {
		s.changes.Close()
	}
	s.cluster.wait()
}

// ServeHTTP implements http.Handler.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// tick advances the rate counters once a second and purges old stored
// messages once an hour.
func (s *Service) tick() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	purge := time.NewTicker(time.Hour)
	defer purge.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
			s.clients.tick()
		case <-purge.C:
			s.purgeMessages()
		}
	}
}

// messageRetention is how long realtime.messages keeps a row: the
// reference keeps three days of daily partitions.
const messageRetention = "72 hours"

// purgeMessages deletes stored messages past the retention.
func (s *Service) purgeMessages() {
	ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
	defer cancel()
	if _, err := s.admin.Exec(ctx, `DELETE FROM realtime.messages WHERE inserted_at < now() - $1::interval`, messageRetention); err != nil {
		s.log.Warn("realtime: purge old messages", "err", err)
	}
}

// websocket upgrades a client after checking its apikey as the reference's
// socket connect does.
func (s *Service) websocket(w http.ResponseWriter, r *http.Request) {
	token := r.Header.Get("x-api-key")
	if token == "" {
		token = r.URL.Query().Get("apikey")
	}
	if token == "" {
		s.writeUpgradeError(w, upgradeError{http.StatusUnauthorized, "API key is missing"})
		return
	}
	claims, err := s.verifyToken(token)
	if err != nil {
		var te *tokenError
		msg := "Error connecting to Realtime"
		status := http.StatusInternalServerError
		if errors.As(err, &te) {
			msg, status = te.upgrade, http.StatusUnauthorized
		}
		s.writeUpgradeError(w, upgradeError{status, msg})
		return
	}
	// Only the caller's own share, or a full project, refuses an upgrade:
	// the socket's joins say whether a signed-in user uses it.
	addr := httpx.ClientIP(r)
	key := clientOf(claims, addr)
	if s.connectedUsers() >= int64(s.cfg.MaxConcurrentUsers) || s.clientUsers(key) >= int64(s.cfg.MaxConcurrentUsersPerClient) {
		s.writeUpgradeError(w, upgradeError{http.StatusTooManyRequests, "Too many connected users"})
		return
	}
	if s.joins.saturated(key, s.now()) {
		s.writeUpgradeError(w, upgradeError{http.StatusTooManyRequests, "Too many joins per second"})
		return
	}
	vsn := vsn1
	if strings.HasPrefix(r.URL.Query().Get("vsn"), "2.") {
		vsn = vsn2
	}
	headers := pg.RequestHeaders(r)
	ws, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	c := &conn{s: s, ws: ws, vsn: vsn, token: token, claims: claims, headers: headers, addr: addr,
		channels: map[string]*channel{}, opened: time.Now()}
	c.client.Store(s.clients.acquire(key))
	s.conns.Add(1)
	if s.metrics != nil {
		s.metrics.Sockets.Inc()
	}
	// No goroutine per socket waits for the service to stop: a graceful
	// stop writes out the socket's queue and closes it with 1001; a hard
	// one (or the end of the graceful stop's bound) drops it.
	graceful := context.AfterFunc(s.closing, func() {
		c.closeGracefully(websocket.CloseGoingAway, "", endCause{why: "server stopping", byServer: true})
	})
	hard := context.AfterFunc(s.ctx, func() { c.abort(endCause{why: "server shutting down", byServer: true}) })
	// The socket is read on a goroutine of its own and the HTTP handler
	// returns: the server's state for the request (its write buffer, the
	// handler's deep stack) is freed instead of held for the socket's life.
	// The access log line is written at the upgrade; the socket's end has
	// its own line.
	go func() {
		defer graceful()
		defer hard()
		c.readLoop()
	}()
}

// connectedUsers is the project's count of sockets that joined a channel:
// this node's, plus what the other nodes last reported (see cluster).
func (s *Service) connectedUsers() int64 { return s.clients.users.Load() + s.cluster.peerUsers() }

// NodeSockets is connectedUsers by node id: this node's (NodeID) and, in
// cluster mode, what each other node last reported.
func (s *Service) NodeSockets() map[string]int64 {
	out := s.cluster.peerUsersByNode()
	out[s.cluster.node] = s.clients.users.Load()
	return out
}

// NodeID names this node among the project's (a fresh id each start).
func (s *Service) NodeID() string { return s.cluster.node }

// Peers is how many other nodes of the project this node heard from in
// the last few seconds.
func (s *Service) Peers() int { return s.cluster.peers() }

// ReadsChanges reports whether this node is the one reading the
// replication slot now.
func (s *Service) ReadsChanges() bool { return s.changes != nil && s.changes.Streaming() }
