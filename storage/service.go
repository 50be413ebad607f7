// Package storage implements Basalt's /storage/v1, wire-compatible with
// Supabase Storage as storage-js 2.119.0 calls it: buckets, objects, signed
// URLs, public URLs, TUS resumable uploads and image rendering.
//
// Authorization is Postgres row-level security on storage.buckets and
// storage.objects: every call runs the SQL operation the reference maps it
// to inside pg.AsCaller as the caller's role, so the project's policies
// decide. Bytes live in a Backend (local files or S3) under a key that
// includes the row's version, which is how metadata and bytes stay
// consistent when a request fails half-way.
package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
)

// Service implements the storage API (mounted at /storage/v1).
type Service struct {
	cfg     Config
	admin   *pgxpool.Pool // owner pool: bucket lookups and final writes
	user    *pgxpool.Pool // authenticator pool: everything checked by RLS
	keys    *jwt.Keys
	backend Backend
	routes  []route
	renders chan struct{} // semaphore bounding concurrent image renders
	now     func() time.Time
	log     *slog.Logger
}

var _ http.Handler = (*Service)(nil)

// Option changes a Service built by New.
type Option func(*Service)

// WithClock makes the service read time from now (tests).
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithLogger sets the logger for internal errors.
func WithLogger(l *slog.Logger) Option {
	return func(s *Service) {
		if l != nil {
			s.log = l
		}
	}
}

// New builds the service. admin is the schema owner's pool, user the
// authenticator's; backend holds the bytes (fsbackend or s3backend).
func New(cfg Config, admin, user *pgxpool.Pool, keys *jwt.Keys, backend Backend, opts ...Option) (*Service, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if admin == nil || user == nil || keys == nil || backend == nil {
		return nil, errors.New("storage: admin pool, user pool, keys and backend are required")
	}
	s := &Service{cfg: cfg, admin: admin, user: user, keys: keys, backend: backend,
		now: time.Now, log: slog.Default(), renders: make(chan struct{}, runtime.NumCPU())}
	for _, o := range opts {
		o(s)
	}
	s.routes = s.routeTable()
	return s, nil
}

// ServeHTTP dispatches to the route table.
func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.dispatch(w, r)
}

// handlerFunc is a handler that returns its error for s.render.
type handlerFunc = httpx.HandlerFunc

// render writes err in the storage wire format.
func (s *Service) render(w http.ResponseWriter, r *http.Request, err error) {
	e := asError(err)
	if e.Status >= 500 && httpx.ClientGone(r) {
		// The work failed because the client left (mid-upload, or while
		// a query ran): the gateway counts it as 499, and so does this line.
		s.log.InfoContext(r.Context(), "storage request abandoned by the client", "method", r.Method, "path", r.URL.Path,
			"status", httpx.StatusClientClosedRequest, "err", e.Err)
		return
	} else if e.Status >= 500 {
		s.log.ErrorContext(r.Context(), "storage request failed", "method", r.Method, "path", r.URL.Path, "err", e.Err)
	}
	if e.Code == "NoSuchKey" && e.Label == "Not found" {
		w.Header().Set("Cache-Control", "no-store")
	}
	if e.Status == http.StatusServiceUnavailable {
		httpx.SetRetryAfter(w)
	}
	if r.Method == http.MethodHead {
		w.WriteHeader(e.httpStatus())
		return
	}
	if e.text {
		w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
		w.Header().Set("Content-Length", strconv.Itoa(len(e.Message)))
		w.WriteHeader(e.httpStatus())
		_, _ = io.WriteString(w, e.Message)
		return
	}
	httpx.WriteJSON(w, e.httpStatus(), e.body())
}

// caller is who is asking, resolved from the gateway's verification.
type caller struct {
	token  string
	claims *jwt.Claims
	err    error // verification error; nil with no token means "no token"
}

// role is the Postgres role requests run as; invalid or missing tokens are
// anon (only anon-ok routes get that far).
func (c caller) role() string {
	if c.claims == nil || c.claims.Role == "" {
		return "anon"
	}
	return c.claims.Role
}

func (c caller) sub() string {
	if c.claims == nil {
		return ""
	}
	return c.claims.Subject
}

func (c caller) isService() bool { return c.claims != nil && c.claims.Role == "service_role" }

// callerOf reads the gateway's verdict. Requests that reach the service
// directly (tests, embedding) are verified here with the project keys.
func (s *Service) callerOf(r *http.Request) caller {
	gc := jwt.FromContext(r.Context())
	if gc.Token != "" || gc.Claims != nil || gc.Err != nil {
		return caller{token: gc.Token, claims: gc.Claims, err: gc.Err}
	}
	h := r.Header.Get("Authorization")
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return caller{}
	}
	tok := strings.TrimSpace(h[7:])
	cl, err := s.keys.Verify(tok, s.now())
	return caller{token: tok, claims: cl, err: err}
}

// requireJWT is the check of the reference's JWT-only routes: a missing or
// invalid token is AccessDenied with the jose library's message.
func (s *Service) requireJWT(r *http.Request) (caller, error) {
	c := s.callerOf(r)
	switch {
	case c.token == "" && c.claims == nil:
		return c, errAccessDenied("Invalid Compact JWS")
	case c.err != nil:
		return c, errAccessDenied(joseMessage(c.err))
	}
	return c, nil
}

// anonOK resolves the caller for routes that fall back to anon on a missing
// or invalid token.
func (s *Service) anonOK(r *http.Request) caller {
	c := s.callerOf(r)
	if c.err != nil {
		return caller{}
	}
	return c
}

// joseMessage renders a verification error the way the jose library words
// it, since storage-js users see that text.
func joseMessage(err error) string {
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return `"exp" claim timestamp check failed`
	case errors.Is(err, jwt.ErrNotYetValid):
		return `"nbf" claim timestamp check failed`
	case errors.Is(err, jwt.ErrIssuedInFuture):
		return `"iat" claim timestamp check failed (it should be in the past)`
	case errors.Is(err, jwt.ErrMalformed):
		return "Invalid Compact JWS"
	default:
		return "signature verification failed"
	}
}

// asUser runs fn in a transaction as the caller, with the storage settings
// on top of the request ones.
func (s *Service) asUser(ctx context.Context, r *http.Request, c caller, op string, fn func(pgx.Tx) error) error {
	pc, err := pgCaller(r, c, op)
	if err != nil {
		return err
	}
	return pg.AsCaller(ctx, s.user, pc, fn)
}

// pgCaller is the database caller for c: the request settings every service
// sets, plus storage's own. storage.allow_delete_query lets API deletes pass
// the protect_delete triggers; request.jwt is the raw token, as the
// reference storage sets it. A role outside the API roles is refused before
// it reaches Postgres.
func pgCaller(r *http.Request, c caller, op string) (pg.Caller, error) {
	if !pg.APIRoles().Allows(c.role()) {
		return pg.Caller{}, errAccessDenied("Invalid JWT role")
	}
	pc := pg.CallerFromRequest(r, c.claims)
	pc.After = []pg.Setting{{Name: "storage.operation", Value: op}, {Name: "request.jwt", Value: c.token},
		{Name: "storage.allow_delete_query", Value: "true"}}
	return pc, nil
}

// queryRowAsUser runs one query as the caller in a single round trip (see
// pg.QueryRowAsCaller). scan reads the row; pgx.ErrNoRows comes back as is.
func (s *Service) queryRowAsUser(ctx context.Context, r *http.Request, c caller, op string,
	scan func(pgx.Row) error, sql string, args ...any) error {
	pc, err := pgCaller(r, c, op)
	if err != nil {
		return err
	}
	return pg.QueryRowAsCaller(ctx, s.user, pc, scan, sql, args...)
}

// probeAsUser runs one statement as the caller and rolls it back, in one
// round trip: BEGIN, the setup, the statement and ROLLBACK are one pipeline.
// It reports the statement's error, which is how policy tests learn whether
// the caller may write. When the statement fails, Postgres skips the rest
// of the pipeline and leaves the transaction aborted, so a second round trip
// ends it before the connection goes back to the pool. head, when not nil,
// queues statements to run first, still as authenticator.
func (s *Service) probeAsUser(ctx context.Context, r *http.Request, c caller, op string, head func(*pgx.Batch),
	sql string, args ...any) error {
	pc, err := pgCaller(r, c, op)
	if err != nil {
		return err
	}
	setup, setupArgs, err := pc.Setup()
	if err != nil {
		return err
	}
	conn, err := s.user.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	if head != nil {
		head(b)
	}
	b.Queue(setup, setupArgs...)
	b.Queue(sql, args...)
	b.Queue("ROLLBACK")
	err = conn.SendBatch(ctx, b).Close()
	if conn.Conn().PgConn().TxStatus() != 'I' {
		// If this fails too, Release sees the open transaction and
		// discards the connection instead of reusing it.
		_, _ = conn.Exec(ctx, "ROLLBACK")
	}
	return err
}

// rlsError maps what a user-role statement failed with to the API error:
// a policy violation is AccessDenied, anything else internal.
func rlsError(err error, what string) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if pg.Is(err, "42501") {
		return errRLS()
	}
	return errInternal(fmt.Errorf("%s: %w", what, err))
}

// writeJSON writes a 200 JSON response.
func writeJSON(w http.ResponseWriter, v any) error {
	httpx.WriteJSON(w, http.StatusOK, v)
	return nil
}

// decodeJSON reads a JSON request body of at most 1 MB.
func decodeJSON(r *http.Request, v any) error {
	if err := httpx.DecodeJSON(r, 1<<20, v); err != nil {
		if errors.Is(err, httpx.ErrBodyTooLarge) {
			return errTooLarge()
		}
		return errSchema("body must be object")
	}
	return nil
}

// isoTime renders timestamps the way the reference's JSON does.
func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
