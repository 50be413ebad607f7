package rest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/telemetry"
)

// The transaction a statement runs in: which pool (replica or primary), one
// pipelined round trip when nothing can roll it back, an explicit BEGIN …
// COMMIT/ROLLBACK when a check or Prefer: tx may, and the rolled-back
// transaction of an EXPLAIN.

// execute runs st: on the replica when st is read-only and the replica
// takes it, else (and again, when the replica failed in a way the primary
// does not share) on the user pool, the primary.
func (s *Service) execute(rc *reqCtx, st *statement, setup step) (*result, error) {
	ctx := rc.r.Context()
	pool, onReplica := s.user, false
	if s.replica != nil && st.readOnly {
		if rp := s.replica.ReadPool(ctx); rp != nil {
			pool, onReplica = rp, true
		}
	}
	for {
		res, lost, err := s.executeOn(rc, st, pool, setup)
		if onReplica && err != nil && ctx.Err() == nil && s.replica.ReadFailed(err, lost) {
			// The replica is the problem (gone, in conflict with
			// recovery, behind on DDL): the read runs once more on the
			// primary. The caller's own mistakes are not retried.
			pool, onReplica = s.user, false
			continue
		}
		if err == nil && s.replica != nil && !st.readOnly {
			s.replica.Wrote(ctx)
		}
		return res, err
	}
}

// executeOn runs the setup and the main statement in one transaction on a
// connection of pool, in one pipelined round trip: the pipeline's implicit
// transaction commits at its Sync. Only when the result may still have to be
// rolled back (checks on a write such as single-object or max-affected,
// Prefer: tx=rollback) is an explicit transaction opened and ended in a
// second round trip. lost reports that no connection could be had or that
// it broke (see execute).
func (s *Service) executeOn(rc *reqCtx, st *statement, pool *pgxpool.Pool, setup step) (_ *result, lost bool, _ error) {
	ctx := rc.r.Context()
	if s.trace != nil {
		s.trace(st.sql, st.args)
	}
	rollback := rc.rollback
	explicit := rollback || (!st.readOnly && st.verify != nil)
	// db-pre-request runs after the setup, as the caller, like PostgREST's.
	var preRequest string
	if rc.cfg.PreRequest != "" {
		preRequest = "SELECT " + qualifiedFn(rc.cfg.PreRequest) + "()"
	}
	var notice []step
	if !st.readOnly {
		notice = s.announceWrite(ctx, nil)
	}
	conn, err := s.acquire(ctx, pool)
	if err != nil {
		return nil, !errors.Is(err, errPoolTimeout) && ctx.Err() == nil, err
	}
	defer conn.Release()
	// The caller's setup comes first in the pipeline: the main statement
	// is parsed after it, as the caller's role with its search_path.
	steps := make([]step, 0, 4)
	if explicit {
		steps = append(steps, step{sql: "BEGIN"})
	}
	steps = append(steps, setup)
	if preRequest != "" {
		steps = append(steps, step{sql: preRequest, prepare: true, role: rc.role})
	}
	var res *result
	steps = append(steps, step{sql: st.sql, args: st.args, prepare: true, role: rc.role, row: func(v [][]byte) error {
		r, err := parseResult(v)
		res = r
		return err
	}})
	steps = append(steps, st.extra...)
	steps = append(steps, notice...)
	pc := conn.Conn().PgConn()
	// The trace span covers the exchange only; COMMIT or ROLLBACK below
	// are traced as the request's own statements, as before.
	pctx, endSpan := telemetry.StartPipeline(ctx, pc, steps, stepSQL)
	err = s.withExchangeDeadline(pc, func() error { return runPipeline(pctx, pc, s.gen.Load(), steps) })
	endSpan(err)
	if err == nil && res == nil {
		err = errors.New("rest: main statement returned no row")
	}
	if err != nil && pc.IsClosed() {
		lost = true
	}
	end := func(sql string) error {
		return pc.Exec(context.WithoutCancel(ctx), sql).Close()
	}
	finish := func(e error) (*result, bool, error) {
		if !pc.IsClosed() && pc.TxStatus() != 'I' {
			if end("ROLLBACK") != nil {
				_ = conn.Conn().Close(context.Background())
			}
		}
		return nil, lost, e
	}
	if err != nil {
		return finish(err)
	}
	if st.verify != nil {
		if verr := st.verify(res); verr != nil {
			return finish(verr)
		}
	}
	if !explicit {
		return res, false, nil
	}
	if rollback {
		if err := end("SET CONSTRAINTS ALL IMMEDIATE"); err != nil {
			return finish(err)
		}
		if err := end("ROLLBACK"); err != nil {
			return finish(err)
		}
		return res, false, nil
	}
	if err := end("COMMIT"); err != nil {
		return finish(err)
	}
	return res, false, nil
}

// qualifiedFn quotes "schema.fn" or "fn".
func qualifiedFn(name string) string {
	if s, f, ok := strings.Cut(name, "."); ok {
		return quoteIdent(s) + "." + quoteIdent(f)
	}
	return quoteIdent(name)
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

// result is the single row every main statement returns.
type result struct {
	total    *int64
	page     int64
	body     []byte
	headers  *string
	status   *string
	inserted *int64
	// plan marks the EXPLAIN text of a vnd.pgrst.plan request (run).
	plan bool
}

// parseResult reads the main statement's row (text format).
func parseResult(vals [][]byte) (*result, error) {
	if len(vals) != 6 {
		return nil, fmt.Errorf("rest: main statement returned %d columns", len(vals))
	}
	res := &result{}
	num := func(b []byte) (*int64, error) {
		if b == nil || len(b) == 0 {
			return nil, nil
		}
		n, err := strconv.ParseInt(string(b), 10, 64)
		return &n, err
	}
	var err error
	if res.total, err = num(vals[0]); err != nil {
		return nil, err
	}
	p, err := num(vals[1])
	if err != nil {
		return nil, err
	}
	if p != nil {
		res.page = *p
	}
	res.body = append([]byte(nil), vals[2]...)
	if vals[3] != nil {
		h := string(vals[3])
		res.headers = &h
	}
	if vals[4] != nil {
		st := string(vals[4])
		res.status = &st
	}
	if res.inserted, err = num(vals[5]); err != nil {
		return nil, err
	}
	return res, nil
}

// errPoolTimeout is a wait for a connection that outlasted
// db-pool-acquisition-timeout: 504 PGRST003, and not a lost connection.
var errPoolTimeout = errors.New("pool acquire timeout")

// acquire takes a connection from pool (the user pool or the read
// replica's) within the configured acquisition timeout; past it the request
// fails with 504 PGRST003 instead of queueing forever.
func (s *Service) acquire(ctx context.Context, pool *pgxpool.Pool) (*pgxpool.Conn, error) {
	actx, cancel := context.WithTimeout(ctx, s.cfg.PoolAcquisitionTimeout)
	defer cancel()
	conn, err := pool.Acquire(actx)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return nil, errPoolTimeout
		}
		return nil, err
	}
	return conn, nil
}

// explain runs EXPLAIN on the main statement (application/vnd.pgrst.plan)
// instead of the statement itself, with the options the media type named.
func (s *Service) explain(rc *reqCtx, st *statement, acc accept, setup step) ([]byte, error) {
	opts := []string{"FORMAT TEXT"}
	if acc.planJSON {
		opts[0] = "FORMAT JSON"
	}
	opts = append(opts, acc.planOptions...)
	return s.executeExplain(rc, "EXPLAIN ("+strings.Join(opts, ", ")+") "+st.sql, st, setup)
}

// executeExplain runs an EXPLAIN of st in a transaction that is always
// rolled back, and returns its lines joined by newlines. With
// options=analyze the statement really runs: the rollback is what keeps a
// plan request from changing anything.
func (s *Service) executeExplain(rc *reqCtx, sql string, st *statement, setup step) ([]byte, error) {
	ctx := rc.r.Context()
	conn, err := s.acquire(ctx, s.user)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	// Nothing of an EXPLAIN is kept, so its statements are not prepared.
	setup.prepare = false
	var lines []string
	pc := conn.Conn().PgConn()
	steps := []step{{sql: "BEGIN"}, setup,
		{sql: sql, args: st.args, row: func(v [][]byte) error {
			lines = append(lines, string(v[0]))
			return nil
		}}}
	pctx, endSpan := telemetry.StartPipeline(ctx, pc, steps, stepSQL)
	err = s.withExchangeDeadline(pc, func() error { return runPipeline(pctx, pc, s.gen.Load(), steps) })
	endSpan(err)
	if !pc.IsClosed() && pc.TxStatus() != 'I' {
		if e := pc.Exec(context.WithoutCancel(ctx), "ROLLBACK").Close(); e != nil {
			_ = conn.Conn().Close(context.Background())
		}
	}
	if err != nil {
		return nil, err
	}
	return []byte(strings.Join(lines, "\n")), nil
}
