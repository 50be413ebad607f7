// Package gateway is Basalt's HTTP front door. It plays the part Kong plays
// in front of a Supabase project: it checks the project API key, answers CORS
// preflights, verifies the caller's JWT once and hands the result to the
// services in the request context, and routes by prefix to the services
// (/auth/v1, /rest/v1, /realtime/v1, /storage/v1, /functions/v1). Around that
// it adds request ids, JSON access logs, panic recovery, /health and
// Prometheus /metrics. The static app server (NewApp) lives here too.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/basaltdev/basalt/internal/accesslog"
	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/telemetry"
)

// Config tunes the gateway. The zero value is usable.
type Config struct {
	// CORSOrigins lists the origins browsers may call from; empty or "*"
	// allows any origin, as Supabase does.
	CORSOrigins []string
	// TrustedProxyHeader names a header set by a proxy in front of Basalt
	// (X-Forwarded-For, X-Real-Ip, CF-Connecting-IP...) whose value is taken
	// as the client address. Empty: only the socket peer is trusted.
	TrustedProxyHeader string
	// Health, when set, is called by GET /health and GET /health/ready
	// (readiness); an error answers 503 with Retry-After. GET /health/live
	// (liveness) never calls it: a database outage must not get the
	// process restarted.
	Health func(ctx context.Context) error
	// Details, when set, adds "details" to a healthy /health answer: the
	// state of optional parts (pg_cron) and how to turn them on.
	Details func(ctx context.Context) map[string]any
	// Version is reported by GET /health.
	Version string
	// Now is the clock used to check token expiry (default time.Now).
	Now func() time.Time
	// AccessLog, when set, receives every access log entry as well, to keep
	// it searchable (internal/accesslog stores it in Postgres). Add must not
	// block: it runs on the request's goroutine.
	AccessLog interface{ Add(accesslog.Entry) }
	// Registry is where the gateway registers its metrics and what /metrics
	// serves; the binary passes the one its pool collectors and services
	// register on too. Nil: a registry of the gateway's own.
	Registry *prometheus.Registry
	// APIKeys knows the project's valid sb_publishable_/sb_secret_ keys
	// (the binary's is internal/apikeys, shared by every node through
	// Postgres). Nil: the keys' PublishableKey and SecretKey only.
	APIKeys APIKeys
}

// APIKeys tells the role a new-format API key stands for: anon for a valid
// publishable key, service_role for a valid secret key, ok false for
// anything else (unknown or revoked).
type APIKeys interface {
	Role(key string) (role string, ok bool)
}

// Services are the handlers mounted under their prefixes. A nil service
// answers 404 in the gateway's format, as an unrouted path does.
type Services struct {
	Auth, REST, Realtime, Storage, Functions http.Handler
}

// Gateway is the API front door; it implements http.Handler.
type Gateway struct {
	cfg     Config
	keys    *jwt.Keys
	log     *slog.Logger
	routes  []route
	metrics *metrics
	// projectClaims caches the verified claims of the anon and service_role
	// keys: they arrive on nearly every request and never change, so only
	// their expiry is re-checked.
	projectClaims map[string]*jwt.Claims
	tokens        *tokenCache
}

var _ http.Handler = (*Gateway)(nil)

// route is one mounted service.
type route struct {
	prefix  string // "/auth/v1"
	name    string // metrics and log label
	handler http.Handler
}

// New builds a gateway over the services. keys must hold the project's API
// keys and verification keys; log receives the access log.
func New(cfg Config, svcs Services, keys *jwt.Keys, log *slog.Logger) (*Gateway, error) {
	if keys == nil {
		return nil, errors.New("gateway: keys are required")
	}
	if keys.AnonKey == "" || keys.ServiceRoleKey == "" {
		return nil, errors.New("gateway: the anon and service_role API keys are required")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.TrustedProxyHeader != "" {
		cfg.TrustedProxyHeader = http.CanonicalHeaderKey(cfg.TrustedProxyHeader)
	}
	m, err := newMetrics(cfg.Registry)
	if err != nil {
		return nil, fmt.Errorf("gateway: register metrics: %w", err)
	}
	g := &Gateway{cfg: cfg, keys: keys, log: log, metrics: m,
		projectClaims: map[string]*jwt.Claims{}, tokens: newTokenCache(10000)}
	for _, k := range []string{keys.AnonKey, keys.ServiceRoleKey} {
		c, err := keys.Verify(k, cfg.Now())
		if err != nil {
			return nil, fmt.Errorf("gateway: project API key does not verify with the JWT secret: %w", err)
		}
		g.projectClaims[k] = c
	}
	g.routes = []route{
		{"/auth/v1", "auth", svcs.Auth},
		{"/rest/v1", "rest", svcs.REST},
		{"/realtime/v1", "realtime", svcs.Realtime},
		{"/storage/v1", "storage", svcs.Storage},
		{"/functions/v1", "functions", svcs.Functions},
	}
	return g, nil
}

// Registry is the Prometheus registry /metrics serves; services may register
// their own collectors on it.
func (g *Gateway) Registry() *prometheus.Registry { return g.metrics.reg }

// errorBody is the gateway's own error format, the one Kong uses.
type errorBody struct {
	Message   string `json:"message"`
	RequestID string `json:"request_id,omitempty"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	httpx.WriteJSON(w, status, errorBody{Message: msg})
}

// ServeHTTP runs the request through the gateway's stages in order:
// request id and client address, the trace span, recovery, metrics and
// access log, CORS, then routing, the API key check and the service.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	id := requestID(r)
	r.Header.Set("X-Request-Id", id)
	w.Header().Set("X-Request-Id", id)
	r.Header.Set(httpx.ClientIPHeader, g.clientIP(r))

	rt, rest := g.match(r.URL.Path)
	label := "gateway"
	if rt != nil {
		label = rt.name
	}
	// Services log with r.Context(): the id travels with it to their lines.
	ctx, span := startSpan(telemetry.WithRequestID(r.Context(), id), r, routeOf(rt, r.URL.Path), label, id)
	r = r.WithContext(ctx)
	body := countBody(r)
	g.metrics.inFlight.WithLabelValues(label).Inc()
	rec := &recorder{ResponseWriter: w}
	defer func() {
		panicked := false
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				g.metrics.inFlight.WithLabelValues(label).Dec()
				endSpan(span, 0)
				panic(v) // the handler asked to abort the connection
			}
			panicked = true
			g.log.Error("panic", "request_id", id, "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
			if !rec.wroteHeader {
				httpx.WriteJSON(rec, http.StatusInternalServerError, errorBody{Message: "Internal Server Error", RequestID: id})
			}
		}
		status := g.finish(r, rec, label, id, start, body.count(), panicked)
		endSpan(span, status)
	}()

	g.cors(rec, r)
	// Browsers send preflights without credentials: answer them for every
	// path before any key check, as Kong's cors plugin does. Edge functions
	// are the exception: on Supabase a function answers its own OPTIONS, so
	// /functions/v1 preflights go to the service (with the headers above
	// as defaults), which lets a TypeScript function answer them.
	if isPreflight(r) && (rt == nil || rt.name != "functions" || rt.handler == nil) {
		rec.Header().Set("Content-Length", "0")
		rec.WriteHeader(http.StatusOK)
		return
	}

	switch {
	case rt == nil:
		g.serveOwn(rec, r)
	case rt.name == "auth" && rest == "/.well-known/jwks.json":
		g.serveJWKS(rec, r, rt, rest)
	default:
		g.serveService(rec, r, rt, rest)
	}
}

// oauthMetadataPath is auth's OAuth 2.0 authorization server metadata.
// RFC 8414 §3 places it at the origin with the issuer's path appended,
// /.well-known/oauth-authorization-server/auth/v1, where Supabase serves
// it; match maps that address to the auth service.
const oauthMetadataPath = "/.well-known/oauth-authorization-server"

// match finds the service whose prefix owns path, and the path below it.
func (g *Gateway) match(path string) (*route, string) {
	if issuerPath, ok := strings.CutPrefix(path, oauthMetadataPath); ok {
		for i := range g.routes {
			if rt := &g.routes[i]; rt.name == "auth" && issuerPath == rt.prefix {
				return rt, oauthMetadataPath
			}
		}
	}
	for i := range g.routes {
		rt := &g.routes[i]
		if path == rt.prefix {
			return rt, "/"
		}
		if strings.HasPrefix(path, rt.prefix+"/") {
			return rt, path[len(rt.prefix):]
		}
	}
	return nil, ""
}

// serveOwn answers the gateway's own endpoints.
func (g *Gateway) serveOwn(w http.ResponseWriter, r *http.Request) {
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	switch {
	case (r.URL.Path == "/health" || r.URL.Path == "/health/ready") && get:
		g.health(w, r)
	case r.URL.Path == "/health/live" && get:
		live(w, g.cfg.Version)
	case r.URL.Path == "/metrics" && get:
		g.metrics.handler().ServeHTTP(w, r)
	default:
		writeError(w, http.StatusNotFound, "no Route matched with those values")
	}
}

func (g *Gateway) health(w http.ResponseWriter, r *http.Request) {
	body := healthBody("ok", g.cfg.Version)
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if g.cfg.Health != nil {
		if err := g.cfg.Health(ctx); err != nil {
			g.log.Warn("health check failed", "err", err)
			body["status"] = "unavailable"
			httpx.SetRetryAfter(w)
			httpx.WriteJSON(w, http.StatusServiceUnavailable, body)
			return
		}
	}
	if g.cfg.Details != nil {
		if details := g.cfg.Details(ctx); len(details) > 0 {
			withDetails := map[string]any{"details": details}
			for k, v := range body {
				withDetails[k] = v
			}
			httpx.WriteJSON(w, http.StatusOK, withDetails)
			return
		}
	}
	httpx.WriteJSON(w, http.StatusOK, body)
}

// serveService checks the API key, records the caller and calls the service
// with the prefix stripped.
func (g *Gateway) serveService(w http.ResponseWriter, r *http.Request, rt *route, rest string) {
	caller, ok := g.authorize(w, r, rt.name, isPublic(rt.name, rest, r.Method))
	if !ok {
		return
	}
	if rt.handler == nil {
		// The key is checked first, so clients see the same 401s whether or
		// not a service is mounted yet.
		writeError(w, http.StatusNotFound, "no Route matched with those values")
		return
	}
	if rec, ok := w.(*recorder); ok && caller != nil {
		rec.role = caller.APIKeyRole
		if caller.Claims != nil {
			rec.userID, rec.role = caller.Claims.Subject, caller.Claims.Role
		}
	}
	r2 := r.WithContext(jwt.NewContext(r.Context(), caller))
	u := *r.URL
	u.Path = rest
	u.RawPath = ""
	if r.URL.RawPath != "" {
		// Keep escaped slashes (%2F in storage object names) intact.
		if raw, found := strings.CutPrefix(r.URL.RawPath, rt.prefix); found {
			if raw == "" {
				raw = "/"
			}
			u.RawPath = raw
		}
	}
	r2.URL = &u
	rt.handler.ServeHTTP(w, r2)
}

// serveJWKS lets the auth service answer the JWKS path when it serves it and
// falls back to the gateway's own copy of the document otherwise, so clients
// can fetch verification keys before (or without) an auth service.
func (g *Gateway) serveJWKS(w http.ResponseWriter, r *http.Request, rt *route, rest string) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		g.serveService(w, r, rt, rest)
		return
	}
	if rt.handler != nil {
		buf := newBuffered()
		g.serveService(buf, r, rt, rest)
		if buf.status != http.StatusNotFound {
			buf.copyTo(w)
			return
		}
	}
	w.Header().Set("Cache-Control", "public, max-age=600")
	httpx.WriteJSON(w, http.StatusOK, g.keys.JWKS())
}
