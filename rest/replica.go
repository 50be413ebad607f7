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

// execute runs st: on the replica when st is read-only and the replica
// takes it, else (and again, when the replica failed in a way the primary
// does not share) on the user pool, the primary.
func (s *Service) execute(rc *reqCtx, st *statement) (*result, error) {
	ctx := rc.r.Context()
	if s.replica != nil && st.readOnly {
		if pool := s.replica.ReadPool(ctx); pool != nil {
			res, lost, err := s.executeOn(rc, st, pool)
			if err == nil || ctx.Err() != nil || !s.replica.ReadFailed(err, lost) {
				return res, err
			}
		}
	}
	res, _, err := s.executeOn(rc, st, s.user)
	if err == nil && s.replica != nil && !st.readOnly {
		s.replica.Wrote(ctx)
	}
	return res, err
}

// announceWrite appends the replica's write notice to a write's steps, so
// every node learns of the writer when the transaction commits.
func (s *Service) announceWrite(ctx context.Context, steps []step) []step {
	if s.replica == nil {
		return steps
	}
	if sql, args := s.replica.WriteNotice(ctx); sql != "" {
		steps = append(steps, step{sql: sql, args: args, prepare: true})
	}
	return steps
}
