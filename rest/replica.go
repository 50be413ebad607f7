package rest

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Replica sends read-only statements to a read replica; internal/replica's
// Router implements it (its package comment explains the consistency rules).
type Replica interface {
	// ReadPool is the pool a read-only statement of the caller in ctx runs
	// on, or nil for the primary.
	ReadPool(ctx context.Context) *pgxpool.Pool
	// ReadFailed is told that a read on the replica failed (lost: the
	// connection broke or could not be made) and says whether to run it
	// again on the primary.
	ReadFailed(err error, lost bool) bool
	// WriteNotice is a statement run inside a write's transaction that
	// announces the writer when it commits ("" when there is nobody to
	// announce).
	WriteNotice(ctx context.Context) (sql string, args []any)
	// Wrote records, after its commit, that the caller in ctx wrote.
	Wrote(ctx context.Context)
}

// WithReplica routes read-only statements (GET and HEAD on tables and views,
// functions called read-only, the OpenAPI document) through r; everything
// else stays on the user pool.
func WithReplica(r Replica) Option { return func(s *Service) { s.replica = r } }
