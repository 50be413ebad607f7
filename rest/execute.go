package rest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
)

// Stage 4, execute: the statement runs as the caller, through the one
// caller primitive (internal/pg: role, claims and request settings as SET
// LOCAL), in one pipelined round trip (execute_pipeline.go), on a read
// replica when the statement is read-only and one is configured.

// run executes st, or, when the client asked for the plan
// (application/vnd.pgrst.plan), runs EXPLAIN on it instead and returns the
// plan's text as the body, for respond to send as it is.
func (s *Service) run(rc *reqCtx, st *statement, acc accept) (*result, error) {
	if acc.kind != mediaPlan {
		return s.execute(rc, st)
	}
	body, err := s.explain(rc, st, acc)
	if err != nil {
		return nil, err
	}
	return &result{body: body, plan: true}, nil
}

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

// executeOn runs the setup and the main statement in one transaction on a
// connection of pool, in one pipelined round trip: the pipeline's implicit
// transaction commits at its Sync. Only when the result may still have to be
// rolled back (checks on a write such as single-object or max-affected,
// Prefer: tx=rollback) is an explicit transaction opened and ended in a
// second round trip. lost reports that no connection could be had or that
// it broke (see execute).
func (s *Service) executeOn(rc *reqCtx, st *statement, pool *pgxpool.Pool) (_ *result, lost bool, _ error) {
	ctx := rc.r.Context()
	if s.trace != nil {
		s.trace(st.sql, st.args)
	}
	setupSQL, setupArgs, err := s.setup(rc, st.readOnly)
	if err != nil {
		return nil, false, err
	}
	if s.traceSetup != nil {
		s.traceSetup(setupSQL, setupArgs)
	}
	rollback := rc.rollback
	explicit := rollback || (!st.readOnly && st.verify != nil)
	steps := make([]step, 0, 4)
	if explicit {
		steps = append(steps, step{sql: "BEGIN"})
	}
	steps = append(steps, step{sql: setupSQL, args: setupArgs, prepare: true})
	if rc.cfg.PreRequest != "" {
		steps = append(steps, step{sql: "SELECT " + qualifiedFn(rc.cfg.PreRequest) + "()", prepare: true})
	}
	var res *result
	steps = append(steps, step{sql: st.sql, args: st.args, prepare: true, row: func(v [][]byte) error {
		r, err := parseResult(v)
		res = r
		return err
	}})
	steps = append(steps, st.extra...)
	if !st.readOnly {
		steps = s.announceWrite(ctx, steps)
	}
	conn, err := s.acquire(ctx, pool)
	if err != nil {
		return nil, !errors.Is(err, errPoolTimeout) && ctx.Err() == nil, err
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()
	err = s.withExchangeDeadline(pc, func() error { return runPipeline(ctx, pc, s.gen.Load(), steps) })
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

// setup renders PostgREST's pre-query through the one caller primitive:
// search_path and the role's own settings, the role switch and the
// request.* settings, then timezone and read-only, all as SET LOCAL in one
// statement whose text is shared (and prepared once per connection).
func (s *Service) setup(rc *reqCtx, readOnly bool) (string, []any, error) {
	c := pg.Caller{Role: rc.role, Claims: rc.claims, Method: rc.r.Method,
		Path: "/" + strings.TrimPrefix(rc.r.URL.Path, "/"), Headers: pg.RequestHeaders(rc.r), Cookies: pg.RequestCookies(rc.r)}
	if c.Claims == nil {
		c.Claims = s.anonClaims
	}
	c.Before = append(make([]pg.Setting, 0, 8), pg.Setting{Name: "search_path", Value: rc.cache.searchPaths[rc.schema]})
	for _, kv := range rc.cache.RoleSettings[rc.role] {
		if !unsafeSetting(kv[0]) {
			c.Before = append(c.Before, pg.Setting{Name: kv[0], Value: kv[1]})
		}
	}
	if tz := rc.prefs.timezone; tz != "" && rc.cache.Timezones[tz] {
		c.After = append(c.After, pg.Setting{Name: "timezone", Value: tz})
	}
	if readOnly {
		c.After = append(c.After, pg.Setting{Name: "transaction_read_only", Value: "on"})
	}
	return c.Setup()
}

// unsafeSettings are role settings an authenticator cannot or must not
// apply per transaction.
func unsafeSetting(k string) bool {
	return strings.HasPrefix(k, "pgrst.") || k == "session_preload_libraries" || strings.HasPrefix(k, "log_") ||
		k == "search_path" || k == "role"
}

// searchPaths renders, for each exposed schema, the search_path of a
// request to it: the schema, then the extra search path, quoted.
func searchPaths(cfg *Config) map[string]string {
	out := make(map[string]string, len(cfg.Schemas))
	for _, schema := range cfg.Schemas {
		path := []string{quoteIdent(schema)}
		for _, p := range cfg.ExtraSearchPath {
			path = append(path, quoteIdent(p))
		}
		out[schema] = strings.Join(path, ", ")
	}
	return out
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

// exchangeTimeout bounds one request's round trips with the database. It is
// far above any role's statement_timeout, so it only fires when a reply is
// lost, never on a slow but working query.
const exchangeTimeout = 2 * time.Minute

// withExchangeDeadline runs fn with a deadline on the connection's socket:
// should a reply never come, the read fails, pgconn closes the connection
// and the pool drops it, instead of it being held forever while every later
// request queues behind it. A socket deadline costs no timer or context per
// request; the request's own context still cancels the exchange when the
// client goes away.
func (s *Service) withExchangeDeadline(pc *pgconn.PgConn, fn func() error) error {
	sock := pc.Conn()
	_ = sock.SetDeadline(time.Now().Add(s.exchangeTimeout))
	err := fn()
	if !pc.IsClosed() {
		_ = sock.SetDeadline(time.Time{})
	}
	return err
}

// explain runs EXPLAIN on the main statement (application/vnd.pgrst.plan)
// instead of the statement itself, with the options the media type named.
func (s *Service) explain(rc *reqCtx, st *statement, acc accept) ([]byte, error) {
	opts := []string{"FORMAT TEXT"}
	if acc.planJSON {
		opts[0] = "FORMAT JSON"
	}
	opts = append(opts, acc.planOptions...)
	return s.executeExplain(rc, "EXPLAIN ("+strings.Join(opts, ", ")+") "+st.sql, st)
}

// executeExplain runs an EXPLAIN of st in a transaction that is always
// rolled back, and returns its lines joined by newlines.
func (s *Service) executeExplain(rc *reqCtx, sql string, st *statement) ([]byte, error) {
	ctx := rc.r.Context()
	setupSQL, setupArgs, err := s.setup(rc, st.readOnly)
	if err != nil {
		return nil, err
	}
	if s.traceSetup != nil {
		s.traceSetup(setupSQL, setupArgs)
	}
	conn, err := s.acquire(ctx, s.user)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	var lines []string
	pc := conn.Conn().PgConn()
	err = s.withExchangeDeadline(pc, func() error {
		return runPipeline(ctx, pc, s.gen.Load(), []step{{sql: "BEGIN"}, {sql: setupSQL, args: setupArgs},
			{sql: sql, args: st.args, row: func(v [][]byte) error {
				lines = append(lines, string(v[0]))
				return nil
			}}})
	})
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
