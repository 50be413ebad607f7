// Package studio is Basalt Studio, the operator's dashboard: its admin
// endpoints (postgres-meta's /pg/... shapes, and Studio's own under /api/)
// and the React app built from studio/web, embedded in the binary.
//
// Studio is a service like the others: it imports no other service. It
// reads the catalogs as the admin role, acts as a chosen role or user
// through the caller primitive (internal/pg), and reaches GoTrue's admin
// API and the storage API through the API handler in process, with the
// service-role key, which never leaves the server.
package studio

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/ratelimit"
	"github.com/basaltdev/basalt/internal/telemetry"
)

// Deps is what Studio works with.
type Deps struct {
	Admin *pgxpool.Pool // DATABASE_URL role: catalogs, the SQL editor, Studio's tables
	User  *pgxpool.Pool // role authenticator: "view as" a role or user
	Keys  *jwt.Keys
	// API is the gateway, called in process for health probes and for
	// GoTrue's admin API and the storage API on the operator's behalf.
	API http.Handler
	// Metrics is what /metrics serves; Home reads the request counters.
	Metrics prometheus.Gatherer
	// Migrations are the migration sources `basalt migrate` applies (the
	// platform's and the project's), which the Database screen lists.
	Migrations []migrate.Source
	// Backups runs `basalt backup` and `basalt restore` for the Database
	// screen; nil leaves them to the command line.
	Backups Backups
	// ProjectURL is the API URL clients use.
	ProjectURL string
	Log        *slog.Logger
}

// Service serves Studio: the app and its endpoints.
type Service struct {
	cfg     Config
	d       Deps
	log     *slog.Logger
	limiter *ratelimit.Store
	mux     *http.ServeMux
	routes  []route
	probes  probeCounts
	csp     string
	started time.Time // the Last-Modified of index.html
}

var _ http.Handler = (*Service)(nil)

// New builds Studio and creates the operator the environment names.
func New(ctx context.Context, cfg Config, d Deps) (*Service, error) {
	if d.Admin == nil || d.User == nil || d.Keys == nil {
		return nil, fmt.Errorf("studio: the admin and user pools and the keys are required")
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if err := bootstrap(ctx, d.Admin, cfg); err != nil {
		return nil, fmt.Errorf("studio operator from the environment: %w", err)
	}
	s := &Service{cfg: cfg, d: d, log: d.Log, limiter: ratelimit.New(d.Admin, nil), mux: http.NewServeMux(),
		csp: contentSecurityPolicy(d.ProjectURL), started: time.Now()}
	s.routes = s.routeTable()
	for _, rt := range s.routes {
		s.mux.Handle(rt.Method+" "+rt.Pattern, s.wrap(rt))
	}
	return s, nil
}

// ServeHTTP gives every request its client address, request id and
// security headers, refuses hosts Studio does not answer for, then routes.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The address is ours to decide: nothing a client sends is kept.
	r.Header.Set(httpx.ClientIPHeader, s.clientIP(r))
	id := newRequestID()
	w.Header().Set("X-Request-Id", id)
	r = r.WithContext(telemetry.WithRequestID(r.Context(), id))
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Content-Security-Policy", s.csp)
	if !s.hostAllowed(r) {
		writeError(w, http.StatusMisdirectedRequest, "Studio does not answer for host "+r.Host)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// contentSecurityPolicy lets the app load only its own files and call
// only Studio, and the API's realtime websocket (the inspector joins
// channels there, with a token Studio signed).
func contentSecurityPolicy(projectURL string) string {
	connect := "'self'"
	if u, err := url.Parse(projectURL); err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https") {
		ws := "ws://"
		if u.Scheme == "https" {
			ws = "wss://"
		}
		connect += " " + ws + u.Host
	}
	return "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
		"media-src 'self' blob:; connect-src " + connect + "; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
}

// clientIP is the socket peer, or the last entry of the trusted proxy
// header when one is configured (the gateway's rule).
func (s *Service) clientIP(r *http.Request) string {
	if h := s.cfg.TrustedProxyHeader; h != "" {
		if v := r.Header.Get(h); v != "" {
			parts := strings.Split(v, ",")
			if ip := strings.TrimSpace(parts[len(parts)-1]); net.ParseIP(ip) != nil {
				return ip
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// hostAllowed refuses requests for hosts Studio is not reached at. Open on
// loopback, a page on any other site could otherwise point its own name at
// 127.0.0.1 (DNS rebinding) and read Studio as same-origin.
func (s *Service) hostAllowed(r *http.Request) bool {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if s.cfg.Open {
		return loopbackHost(host)
	}
	if s.cfg.PublicURL != "" {
		return strings.EqualFold(r.Host, hostOf(s.cfg.PublicURL)) || strings.EqualFold(host, hostOf(s.cfg.PublicURL))
	}
	return true
}

// hostOf returns the host[:port] of an origin.
func hostOf(origin string) string {
	_, rest, _ := strings.Cut(origin, "://")
	return rest
}

func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
