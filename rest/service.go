// Package rest serves /rest/v1 the way PostgREST does: it turns the URL
// grammar (select, filters, logic trees, order, paging, embedding) into one
// SQL statement with bound values and quoted identifiers, runs it as the
// caller's role inside one transaction, and forwards the JSON Postgres
// builds without decoding it. Functions are called through package rpc at
// /rpc/{fn}. The schema cache is read from pg_catalog at start and reloaded
// on NOTIFY pgrst (sent by the DDL event trigger in sql/platform).
//
// A request passes five stages, and the files are named after them. A GET
// goes through them in this order and enters each file once:
//
//	request   request.go (ServeHTTP: path, caller, profile, query string,
//	          Prefer), request_body.go (bodies, for writes)
//	plan      plan.go (which table, which action; the read handler),
//	          plan_media.go (Accept), plan_select.go (select grammar),
//	          plan_embed.go (embeds, relationships, "Perhaps you meant"),
//	          plan_filter.go (filters, order, paging), plan_write.go
//	SQL       sql_select.go (the SELECT over the tree, its conditions and
//	          count), sql.go (the statement's shape and checks),
//	          sql_write.go (INSERT, UPDATE, DELETE)
//	execute   execute.go (the caller's setup), execute_tx.go (pool and
//	          transaction), execute_pipeline.go (one round trip, prepared
//	          statements)
//	respond   respond.go (status, headers, body), errors.go (errors)
//
// write.go and rpc_handler.go hold the write and function handlers, which
// pass the same stages; openapi.go answers the root; schema.go and its
// helpers load the schema cache every stage reads.
package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
)

// Service implements the PostgREST-compatible REST API. Mount it under
// /rest/v1 with the prefix stripped.
type Service struct {
	cfg   Config
	user  *pgxpool.Pool
	admin *pgxpool.Pool
	log   *slog.Logger
	// loginRole is the user pool's role (authenticator).
	loginRole string

	cache    atomic.Pointer[Cache]
	gen      atomic.Uint64 // bumped per reload; names prepared statements
	reloadMu sync.Mutex
	stop     context.CancelFunc
	// listener is the node's shared listener (WithListener); nil: the
	// service listens on a connection of its own.
	listener *pg.Listener
	// connected and notified are signalled by the pgrst subscription;
	// unsubscribe ends it.
	connected, notified chan struct{}
	unsubscribe         func()
	// trace, when set (tests), sees every main statement before it runs.
	trace      func(sql string, args []any)
	traceSetup func(sql string, args []any)
	// exchangeTimeout is the const of that name; tests shorten it.
	exchangeTimeout time.Duration
	anonClaims      []byte
	done            chan struct{}
	// replica, when set, takes read-only statements (replica.go).
	replica Replica
	// roles is REST's role allow-list: the API roles and the configured
	// anonymous role.
	roles pg.Roles
}

var _ http.Handler = (*Service)(nil)

// Option changes how New builds the service.
type Option func(*Service)

// WithStatementHook calls fn with every main statement and its arguments
// before it runs (benchmarks replay them against pgx directly; also handy
// when debugging generated SQL).
func WithStatementHook(fn func(sql string, args []any)) Option {
	return func(s *Service) { s.trace = fn }
}

// WithSetupHook calls fn with every request's setup statement (role,
// search_path and request.* settings) and its arguments before it runs, so
// benchmarks can replay a request's whole database work.
func WithSetupHook(fn func(sql string, args []any)) Option {
	return func(s *Service) { s.traceSetup = fn }
}

// WithListener has the service hear NOTIFY pgrst on the node's shared
// listener instead of a connection of its own.
func WithListener(l *pg.Listener) Option { return func(s *Service) { s.listener = l } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Service) { s.log = l } }

// New starts listening for reload notifications, then loads the schema
// cache with the admin pool. Requests run on the user pool (authenticator).
func New(cfg Config, user *pgxpool.Pool, admin *pgxpool.Pool, opts ...Option) (*Service, error) {
	cfg.defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if user == nil || admin == nil {
		return nil, errors.New("rest: user and admin pools are required")
	}
	s := &Service{cfg: cfg, user: user, admin: admin, log: slog.Default(), done: make(chan struct{}), exchangeTimeout: exchangeTimeout}
	// Requests without a user JWT all carry the same claims.
	s.anonClaims, _ = json.Marshal(map[string]string{"role": cfg.AnonRole})
	s.roles = pg.NewRoles(cfg.AnonRole)
	for _, o := range opts {
		o(s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// In-database configuration lives on the role the user pool logs in as.
	if err := user.QueryRow(ctx, "SELECT current_user").Scan(&s.loginRole); err != nil {
		return nil, fmt.Errorf("rest: read login role: %w", err)
	}
	// LISTEN first, load second: a change made in between is in the
	// load, and the listener's first connect needs no second load.
	s.subscribe(ctx)
	if err := s.Reload(ctx); err != nil {
		s.unsubscribe()
		return nil, err
	}
	lctx, stop := context.WithCancel(context.Background())
	s.stop = stop
	go s.listen(lctx)
	return s, nil
}

// Close stops the reload listener.
func (s *Service) Close() {
	if s.stop != nil {
		s.stop()
		<-s.done
	}
}

// Reload rebuilds the schema cache and swaps it in; requests in flight
// keep the snapshot they started with.
func (s *Service) Reload(ctx context.Context) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	c, err := loadCache(ctx, s.admin, s.cfg.Schemas)
	if err != nil {
		return err
	}
	c.cfg = s.cfg.withDBSettings(c.RoleSettings[s.loginRole], s.log)
	c.cfg.postgis = c.PostGIS
	c.searchPaths = searchPaths(&c.cfg)
	s.cache.Store(c)
	s.gen.Add(1)
	return nil
}

// reloadPayload reports whether a NOTIFY pgrst asks for a reload: as
// PostgREST, "reload schema", "reload config" or nothing.
func reloadPayload(p string) bool { return p == "" || p == "reload schema" || p == "reload config" }

// listenWait bounds how long New waits for LISTEN pgrst to be in effect
// before it loads the cache anyway (the listener's first connect then
// reloads it).
const listenWait = 5 * time.Second

// subscribe starts hearing NOTIFY pgrst and waits, up to listenWait, until
// LISTEN is in effect, so that the load that follows misses nothing (when
// it is not in time, the listener's first connect reloads).
func (s *Service) subscribe(ctx context.Context) {
	l, stop := pg.OwnListener(s.listener, s.admin, s.log)
	s.connected = make(chan struct{}, 1)
	s.notified = make(chan struct{}, 1)
	sub := l.Subscribe("pgrst", pg.Handler{
		Filter:    reloadPayload,
		Notify:    func(string) { pg.Poke(s.notified) },
		Connected: func() { pg.Poke(s.connected) },
	})
	s.unsubscribe = func() { sub.Close(); stop() }
	t := time.NewTimer(listenWait)
	defer t.Stop()
	select {
	case <-s.connected:
	case <-t.C:
	case <-ctx.Done():
	}
}

// listen reloads on NOTIFY pgrst, debouncing bursts of DDL, and after the
// listener reconnects (notifications may have been missed meanwhile).
func (s *Service) listen(ctx context.Context) {
	defer close(s.done)
	defer s.unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.connected:
		case <-s.notified:
			// Debounce: collect the rest of a burst before reloading.
			t := time.NewTimer(100 * time.Millisecond)
		burst:
			for {
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-s.notified:
					t.Reset(100 * time.Millisecond)
				case <-t.C:
					break burst
				}
			}
		}
		if err := s.Reload(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("rest: schema reload", "err", err)
		}
	}
}
