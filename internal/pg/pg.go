// Package pg holds what every service needs from PostgreSQL: pool setup, the
// per-request transaction that carries the caller's role and claims, and
// errors that callers branch on.
package pg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is what both *pgxpool.Pool and pgx.Tx offer; stores take it so they run
// inside or outside a transaction alike.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Begin(ctx context.Context) (pgx.Tx, error)
}

var (
	_ DB = (*pgxpool.Pool)(nil)
	_ DB = (pgx.Tx)(nil)
)

// ErrNotFound is returned by stores when a row does not exist.
var ErrNotFound = errors.New("not found")

// DefaultMaxConns is the pool size when the URL sets no pool_max_conns:
// PostgREST's default (db-pool = 10). pgx's own default (4 or the CPU count)
// queues requests behind a handful of connections on small machines.
const DefaultMaxConns = 10

// Connect opens a pool and pings it, because pgxpool.New returns before any
// connection is made.
func Connect(ctx context.Context, url string, configure func(*pgxpool.Config)) (*pgxpool.Pool, error) {
	pool, err := Open(url, configure)
	if err != nil {
		return nil, err
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		cfg := pool.Config().ConnConfig
		return nil, fmt.Errorf("ping database %s@%s: %w", cfg.User, cfg.Host, err)
	}
	return pool, nil
}

// Open opens a pool without connecting, for a server that may be away at
// start (a read replica) and whose users cope with failed connections.
func Open(url string, configure func(*pgxpool.Config)) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = DefaultMaxConns
	}
	if configure != nil {
		configure(cfg)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool: %w", err)
	}
	return pool, nil
}

// Request is who is asking and how: the values PostgREST exposes to SQL
// through request.* settings.
type Request struct {
	Role    string          // database role to switch to: anon, authenticated, service_role
	Claims  json.RawMessage // JWT claims object; nil means {"role":"<Role>"}
	Method  string          // request.method
	Path    string          // request.path
	Headers json.RawMessage // request.headers, lower-cased names; nil means {}
	Cookies json.RawMessage // request.cookies; nil means {}
}

// allowedRoles are the roles a request may switch to. A JWT may name only
// these; anything else is refused before it reaches SET ROLE.
var allowedRoles = map[string]bool{"anon": true, "authenticated": true, "service_role": true}

// ErrRoleNotAllowed is returned when a request names a role outside the list.
var ErrRoleNotAllowed = errors.New("role not allowed")

// setupSQL mirrors PostgREST's pre-query: one statement of set_config(...,
// true) calls (= SET LOCAL), so auth.uid() and RLS policies see the caller.
const setupSQL = `SELECT set_config('role', $1, true),
	set_config('request.jwt.claims', $2, true),
	set_config('request.method', $3, true),
	set_config('request.path', $4, true),
	set_config('request.headers', $5, true),
	set_config('request.cookies', $6, true)`

// WithClaims runs fn in a transaction switched to the request's role with the
// request settings set. The transaction commits when fn returns nil.
func WithClaims(ctx context.Context, db DB, req Request, fn func(pgx.Tx) error) error {
	if !allowedRoles[req.Role] {
		return fmt.Errorf("%w: %q", ErrRoleNotAllowed, req.Role)
	}
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if err := Setup(ctx, tx, req); err != nil {
			return err
		}
		return fn(tx)
	})
}

// Setup applies the request's role and settings to an open transaction.
func Setup(ctx context.Context, tx pgx.Tx, req Request) error {
	if !allowedRoles[req.Role] {
		return fmt.Errorf("%w: %q", ErrRoleNotAllowed, req.Role)
	}
	claims := string(req.Claims)
	if claims == "" {
		b, _ := json.Marshal(map[string]string{"role": req.Role})
		claims = string(b)
	}
	headers, cookies := string(req.Headers), string(req.Cookies)
	if headers == "" {
		headers = "{}"
	}
	if cookies == "" {
		cookies = "{}"
	}
	if _, err := tx.Exec(ctx, setupSQL, req.Role, claims, req.Method, req.Path, headers, cookies); err != nil {
		return fmt.Errorf("set request role and claims: %w", err)
	}
	return nil
}

// Is reports whether err is a Postgres error with one of the SQLSTATE codes.
func Is(err error, codes ...string) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	for _, c := range codes {
		if pgErr.Code == c {
			return true
		}
	}
	return false
}

// AsPgError returns the Postgres error inside err, if any.
func AsPgError(err error) (*pgconn.PgError, bool) {
	var pgErr *pgconn.PgError
	ok := errors.As(err, &pgErr)
	return pgErr, ok
}

// NotFound maps pgx.ErrNoRows to ErrNotFound and leaves other errors alone.
func NotFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
