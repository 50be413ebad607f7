// Package ratelimit counts requests against budgets shared by every Basalt
// node of a project: fixed windows in a PostgreSQL table, moved by one
// atomic statement, so two nodes behind a load balancer enforce one limit
// and racing requests are each counted.
package ratelimit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// sweepEvery is the share of calls that also delete a batch of expired
// windows, so keys made up by a client (spoofed addresses) cannot grow the
// table without end.
const (
	sweepEvery = 100
	sweepBatch = 500
)

// Store is the one rate limiter. Its zero value is not usable; use New.
type Store struct {
	db  pg.DB
	now func() time.Time
}

// New returns a limiter on db (the admin pool: the table is the
// platform's). now is the clock, so tests can move past a window.
func New(db pg.DB, now func() time.Time) *Store {
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, now: now}
}

// allowSQL counts one hit for a key: a window that has ended starts anew
// with this hit. Fixed windows are simpler than token buckets and enough
// for abuse budgets measured in minutes or hours.
const allowSQL = `INSERT INTO basalt.rate_limits AS r (key, window_start, expires_at, hits)
VALUES ($1, $2, $3, 1)
ON CONFLICT (key) DO UPDATE SET
  window_start = CASE WHEN r.expires_at <= $2 THEN $2 ELSE r.window_start END,
  expires_at = CASE WHEN r.expires_at <= $2 THEN $3 ELSE r.expires_at END,
  hits = CASE WHEN r.expires_at <= $2 THEN 1 ELSE r.hits + 1 END
RETURNING hits, expires_at`

// Allow counts one event for key and reports whether it fits in max events
// per period. Events over the budget are counted too, which changes
// nothing: the window refuses them either way until it ends.
func (s *Store) Allow(ctx context.Context, key string, max int, period time.Duration) (bool, error) {
	ok, _, err := s.Take(ctx, key, max, period)
	return ok, err
}

// Take is Allow that also returns when the key's current window ends: a
// caller that was refused may refuse on its own until then without asking
// the database again (the window cannot reopen earlier).
func (s *Store) Take(ctx context.Context, key string, max int, period time.Duration) (bool, time.Time, error) {
	now := s.now()
	var hits int
	var end time.Time
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		// A count lost with a crash changes nothing that matters, and
		// waiting for the WAL flush while holding the key's row would
		// let one busy key pass only a few hundred hits a second.
		if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
			return err
		}
		return tx.QueryRow(ctx, allowSQL, key, now, now.Add(period)).Scan(&hits, &end)
	})
	if err != nil {
		return false, time.Time{}, fmt.Errorf("rate limit %s: %w", key, err)
	}
	if rand.IntN(sweepEvery) == 0 {
		_, _ = s.db.Exec(ctx, `DELETE FROM basalt.rate_limits WHERE key = ANY (ARRAY(
			SELECT key FROM basalt.rate_limits WHERE expires_at <= $1 LIMIT $2))`, now, sweepBatch)
	}
	return hits <= max, end, nil
}
