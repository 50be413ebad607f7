// Package pg holds what every service needs from PostgreSQL: pool setup,
// acting as the caller (caller.go: the role switch and the request settings
// RLS policies read, in a transaction or in one pipelined round trip), and
// errors that callers branch on.
package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/telemetry"
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
// connection is made. configure runs last and may change anything.
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
	// pgx gives every connection two caches of 512 entries, each a map
	// allocated at its full size: prepared statements, which the default
	// mode uses, and statement descriptions, which only the cache_describe
	// mode uses (no query here picks a mode of its own). Without the unused
	// one an idle connection holds 27 KB less.
	if cfg.ConnConfig.DefaultQueryExecMode == pgx.QueryExecModeCacheStatement && !strings.Contains(url, "description_cache_capacity") {
		cfg.ConnConfig.DescriptionCacheCapacity = 0
	}
	// With tracing on, every query, batch and acquire is a span under the
	// request's; with it off the pool gets no tracer and pays nothing.
	if t := telemetry.PgxTracer(); t != nil {
		cfg.ConnConfig.Tracer = t
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
