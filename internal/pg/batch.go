package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// QueryRowsAsCallers runs one statement as each of several callers in a
// single round trip: the batch form of QueryRowAsCaller, for checking one
// row against many callers' claims (realtime's per-subscriber RLS, what the
// reference's realtime.apply_rls does in one call). The pipeline is each
// caller's setup followed by the statement, all ending in one Sync, so it
// runs as one implicit transaction: every setup replaces the settings of
// the one before, including settings only some callers name (those are
// reset to "" for the others), so no caller sees another's.
//
// scan is called with each caller's index and row. When any statement
// fails, the whole pipeline does; the remaining callers are then run one by
// one so a caller whose check raises an error (a policy calling a function
// that fails, a role without the privilege) costs only its own row, and the
// first error is returned after every caller was tried.
func QueryRowsAsCallers(ctx context.Context, db Batcher, callers []Caller, scan func(i int, row pgx.Row) error, sql string, args ...any) error {
	if len(callers) == 0 {
		return nil
	}
	callers = withSameSettings(callers)
	b := &pgx.Batch{}
	done := make([]bool, len(callers))
	for i := range callers {
		setup, setupArgs, err := callers[i].Setup()
		if err != nil {
			return err
		}
		b.Queue(setup, setupArgs...)
		b.Queue(ForRole(callers[i].Role, sql), args...).QueryRow(func(row pgx.Row) error {
			if err := scan(i, row); err != nil {
				return err
			}
			done[i] = true
			return nil
		})
	}
	err := db.SendBatch(ctx, b).Close()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	var first error
	for i := range callers {
		if done[i] {
			continue
		}
		if err := QueryRowAsCaller(ctx, db, callers[i], func(row pgx.Row) error { return scan(i, row) }, sql, args...); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// withSameSettings gives every caller the same Before and After names, in
// the same order, filling in "" where a caller does not set one.
func withSameSettings(callers []Caller) []Caller {
	var before, after []string
	seenB, seenA := map[string]bool{}, map[string]bool{}
	for _, c := range callers {
		for _, s := range c.Before {
			if !seenB[s.Name] {
				seenB[s.Name] = true
				before = append(before, s.Name)
			}
		}
		for _, s := range c.After {
			if !seenA[s.Name] {
				seenA[s.Name] = true
				after = append(after, s.Name)
			}
		}
	}
	if len(before) == 0 && len(after) == 0 {
		return callers
	}
	out := make([]Caller, len(callers))
	for i, c := range callers {
		c.Before = fill(before, c.Before)
		c.After = fill(after, c.After)
		out[i] = c
	}
	return out
}

// fill returns the settings named in names, taking values from have.
func fill(names []string, have []Setting) []Setting {
	vals := make(map[string]string, len(have))
	for _, s := range have {
		vals[s.Name] = s.Value
	}
	out := make([]Setting, len(names))
	for i, n := range names {
		out[i] = Setting{Name: n, Value: vals[n]}
	}
	return out
}
