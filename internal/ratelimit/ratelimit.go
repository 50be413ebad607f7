// Package ratelimit counts requests against budgets shared by every Basalt
// node of a project: fixed windows in a PostgreSQL table, moved by one
// atomic statement, so two nodes behind a load balancer enforce one limit
// and racing requests are each counted.
package ratelimit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
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
	refused, end, err := s.TakeAll(ctx, []Budget{{Key: key, Max: max}}, period)
	return refused < 0, end, err
}

// Budget is one key and the events it allows per period.
type Budget struct {
	Key string
	Max int
}

// TakeAll counts one event against each budget in order, in one
// statement, and stops at the first that refuses: the budgets after it are
// not counted. So a caller's own share can come first and the budgets it
// shares with others after it, and an event its own share refuses costs
// the others nothing. It returns the index of the refusing budget (-1 when
// all allowed) and the end of that budget's window (of the first budget's
// when all allowed). A window that has ended starts anew with this event;
// fixed windows are simpler than token buckets and enough for abuse
// budgets.
func (s *Store) TakeAll(ctx context.Context, budgets []Budget, period time.Duration) (int, time.Time, error) {
	if len(budgets) == 0 {
		return -1, time.Time{}, nil
	}
	now := s.now()
	keys := make([]string, len(budgets))
	maxes := make([]int32, len(budgets))
	for i, b := range budgets {
		keys[i], maxes[i] = b.Key, int32(min(b.Max, math.MaxInt32))
	}
	var refused int
	var end time.Time
	err := pgx.BeginFunc(ctx, s.db, func(tx pgx.Tx) error {
		// A count lost with a crash changes nothing that matters, and
		// waiting for the WAL flush while holding the key's row would
		// let one busy key pass only a few hundred hits a second.
		if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT refused, window_end FROM basalt.rate_limit_take($1, $2, $3, $4)`,
			keys, maxes, now, period).Scan(&refused, &end)
	})
	if err != nil {
		return -1, time.Time{}, fmt.Errorf("rate limit %s: %w", strings.Join(keys, ", "), err)
	}
	if rand.IntN(sweepEvery) == 0 {
		_, _ = s.db.Exec(ctx, `DELETE FROM basalt.rate_limits WHERE key = ANY (ARRAY(
			SELECT key FROM basalt.rate_limits WHERE expires_at <= $1 LIMIT $2))`, now, sweepBatch)
	}
	return refused - 1, end, nil
}
