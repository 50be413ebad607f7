package rest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
)

// claimsWithRole returns the claims JSON with "role" set to the effective
// role, reusing the verified bytes when they already say so.
func claimsWithRole(c *jwt.Claims, role string) []byte {
	if c.Role == role && len(c.Raw) > 0 {
		return c.Raw
	}
	m := make(map[string]any, len(c.Map)+1)
	for k, v := range c.Map {
		m[k] = v
	}
	m["role"] = role
	b, _ := json.Marshal(m)
	return b
}

// statement is the main query of a request plus how to run it.
type statement struct {
	sql      string
	args     []any
	readOnly bool
	// verify inspects the result before commit; an error rolls back.
	verify func(*result) error
	// extra steps run after the main statement in the same transaction
	// (the EXPLAIN behind count=planned/estimated).
	extra []step
}

// result is the single row every main statement returns.
type result struct {
	total    *int64
	page     int64
	body     []byte
	headers  *string
	status   *string
	inserted *int64
}

// unsafeSettings are role settings an authenticator cannot or must not
// apply per transaction.
func unsafeSetting(k string) bool {
	return strings.HasPrefix(k, "pgrst.") || k == "session_preload_libraries" || strings.HasPrefix(k, "log_") ||
		k == "search_path" || k == "role"
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

// txOutcome decides commit vs rollback from db-tx-end and Prefer: tx.
func rollbackWanted(cfg *Config, p prefs) (rollback bool, applied bool) {
	switch cfg.TxEnd {
	case "rollback":
		return true, false
	case "commit-allow-override", "rollback-allow-override":
		if p.tx != "" {
			return p.tx == "rollback", true
		}
		return cfg.TxEnd == "rollback-allow-override", false
	}
	return false, false
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

// executeOn runs the setup and the main statement in one transaction on a
// connection of pool, in one pipelined round trip: the pipeline's implicit
// transaction commits at its Sync. Only when the result may still have to be
// rolled back (checks on a write such as single-object or max-affected,
// Prefer: tx=rollback) is an explicit transaction opened and ended in a
// second round trip. lost reports that no connection could be had or that
// it broke (see execute in replica.go).
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
	rollback, _ := rollbackWanted(rc.cfg, rc.prefs)
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

// qualifiedFn quotes "schema.fn" or "fn".
func qualifiedFn(name string) string {
	if s, f, ok := strings.Cut(name, "."); ok {
		return quoteIdent(s) + "." + quoteIdent(f)
	}
	return quoteIdent(name)
}

// applyResponseGUCs honours response.headers and response.status.
func applyResponseGUCs(h http.Header, res *result, status *int) error {
	if res.headers != nil {
		var list []map[string]any
		if err := json.Unmarshal([]byte(*res.headers), &list); err != nil {
			return pgrstErr(500, "PGRST111", "response.headers guc must be a JSON array composed of objects with a single key and a string value", nil, nil)
		}
		for _, m := range list {
			if len(m) != 1 {
				return pgrstErr(500, "PGRST111", "response.headers guc must be a JSON array composed of objects with a single key and a string value", nil, nil)
			}
			for k, v := range m {
				sv, ok := v.(string)
				if !ok {
					return pgrstErr(500, "PGRST111", "response.headers guc must be a JSON array composed of objects with a single key and a string value", nil, nil)
				}
				h.Set(k, sv)
			}
		}
	}
	if res.status != nil {
		n, err := strconv.Atoi(*res.status)
		if err != nil || n < 100 || n > 599 {
			return pgrstErr(500, "PGRST112", "response.status guc must be a valid status code", nil, nil)
		}
		*status = n
	}
	return nil
}

// contentRange renders lower-upper/total.
func contentRange(lower int64, n int64, total *int64) string {
	t := "*"
	if total != nil {
		t = strconv.FormatInt(*total, 10)
	}
	if n > 0 && (total == nil || *total != 0) {
		return strconv.FormatInt(lower, 10) + "-" + strconv.FormatInt(lower+n-1, 10) + "/" + t
	}
	return "*/" + t
}

// write sends the final response.
func write(rc *reqCtx, status int, contentType string, body []byte) {
	h := rc.w.Header()
	// A Content-Type set through response.headers wins, as in PostgREST.
	if contentType != "" && (len(body) > 0 || rc.r.Method == http.MethodHead) && h.Get("Content-Type") == "" {
		h.Set("Content-Type", contentType)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	rc.w.WriteHeader(status)
	if rc.r.Method != http.MethodHead && len(body) > 0 {
		_, _ = rc.w.Write(body)
	}
}

// preferenceApplied renders the honoured Prefer tokens in PostgREST order.
func (s *Service) preferenceApplied(rc *reqCtx, write bool, resolution bool) {
	p := rc.prefs
	var out []string
	if resolution && p.resolution != "" {
		out = append(out, "resolution="+p.resolution)
	}
	if write && p.missing != "" {
		out = append(out, "missing="+p.missing)
	}
	if write && p.ret != "" {
		out = append(out, "return="+p.ret)
	}
	if p.count != "" {
		out = append(out, "count="+p.count)
	}
	if _, applied := rollbackWanted(rc.cfg, p); applied {
		out = append(out, "tx="+p.tx)
	}
	if p.handling != "" {
		out = append(out, "handling="+p.handling)
	}
	if p.timezone != "" && rc.cache.Timezones[p.timezone] {
		out = append(out, "timezone="+p.timezone)
	}
	if p.handling == "strict" && p.maxAffected != nil && (rc.r.Method == http.MethodPatch || rc.r.Method == http.MethodDelete || rc.route.fn != "") {
		out = append(out, "max-affected="+strconv.FormatInt(*p.maxAffected, 10))
	}
	if len(out) > 0 {
		rc.w.Header().Set("Preference-Applied", strings.Join(out, ", "))
	}
}

func (s *Service) profileHeader(rc *reqCtx) {
	if rc.profileSent || len(rc.cfg.Schemas) > 1 {
		rc.w.Header().Set("Content-Profile", rc.schema)
	}
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
