package rest

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Statements are sent with pgconn's pipeline so that a whole request (BEGIN,
// setup, main statement) costs one round trip, and so that the main
// statement is parsed after the setup ran: name resolution then happens as
// the caller's role with its search_path, as in PostgREST (pgx's own batch
// would prepare everything up front as the login role). Values are sent as
// text with no type (OID 0), so Postgres infers each one's type from its
// use — the "untyped literal" semantics the URL grammar relies on.

// stepSQL names a step in trace spans (telemetry.StartPipeline, which the
// caller of runPipeline opens around the whole exchange).
func stepSQL(s step) string { return s.sql }

// step is one statement of a pipeline.
type step struct {
	sql  string
	args []any
	// prepare keeps a named prepared statement per connection for sql.
	prepare bool
	// role is the role a prepared statement runs as, when not the
	// connection's own. PostgreSQL rewrites a statement that reads a table
	// under row-level security for the role in force and does it again
	// (parse analysis and a new plan) whenever the role differs from the
	// last execution's, so each role gets a statement of its own: requests
	// of different roles taking turns on a connection keep their plans.
	role string
	// row receives each result row (text format); values are only valid
	// during the call.
	row func(vals [][]byte) error
}

// key names a prepared step in the connection's statement cache.
func (s *step) key() string {
	if s.role == "" {
		return s.sql
	}
	return s.role + "\x00" + s.sql
}

// stmtCacheSize bounds the named statements kept per connection. Each
// costs server memory for its plan; the URL grammar can spell endlessly
// many statements, and a long-lived connection must not collect them all.
const stmtCacheSize = 256

// connStmts is one connection's statement cache, kept in pgconn's
// CustomData so that it lives and dies with the connection.
type connStmts struct {
	// gen is the schema-cache generation the statements were prepared
	// under (Service.gen).
	gen   uint64
	names map[string]string
	// descs are the descriptions the server returned when preparing; with
	// one, a statement runs without a Describe round of messages.
	descs map[string]*pgconn.StatementDescription
	// order is oldest first, for eviction; next numbers the names.
	order []string
	next  int
}

const stmtKey = "basalt.rest.stmts"

// encodeArgs renders the builder's arguments in text format. Only the
// types the SQL builders bind are accepted: anything else is a bug that
// should fail loudly rather than reach Postgres as fmt's rendering.
func encodeArgs(args []any) ([][]byte, error) {
	out := make([][]byte, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case nil:
		case string:
			out[i] = []byte(v)
		case []byte:
			out[i] = v
		case int64:
			out[i] = strconv.AppendInt(nil, v, 10)
		case int:
			out[i] = strconv.AppendInt(nil, int64(v), 10)
		default:
			return nil, fmt.Errorf("rest: unsupported argument type %T", a)
		}
	}
	return out, nil
}

// runPipeline sends steps in one pipeline and reads every result. It
// returns the first error; the connection is left idle or in a failed
// transaction block the caller must end.
func runPipeline(ctx context.Context, pc *pgconn.PgConn, gen uint64, steps []step) error {
	cd := pc.CustomData()
	cs, _ := cd[stmtKey].(*connStmts)
	if cs == nil || cs.gen != gen {
		old := cs
		cs = &connStmts{gen: gen, names: map[string]string{}, descs: map[string]*pgconn.StatementDescription{}}
		cd[stmtKey] = cs
		if old != nil && len(old.names) > 0 {
			// The schema changed: forget statements prepared against the
			// old one so no stale plan or row type is reused.
			pl := pc.StartPipeline(ctx)
			for _, n := range old.names {
				pl.SendDeallocate(n)
			}
			if err := pl.Sync(); err != nil {
				_ = pl.Close()
				return err
			}
			if err := pl.Close(); err != nil {
				return err
			}
		}
	}
	pl := pc.StartPipeline(ctx)
	var added []string
	var evicted []string
	for i := range steps {
		s := &steps[i]
		vals, err := encodeArgs(s.args)
		if err != nil {
			_ = pl.Close()
			return err
		}
		// Unprepared steps are the one-off statements (BEGIN, EXPLAIN):
		// naming them would only fill the cache.
		if !s.prepare {
			pl.SendQueryParams(s.sql, vals, nil, nil, nil)
			continue
		}
		key := s.key()
		name, ok := cs.names[key]
		if !ok {
			if len(cs.order) >= stmtCacheSize {
				old := cs.order[0]
				cs.order = cs.order[1:]
				evicted = append(evicted, cs.names[old])
				delete(cs.names, old)
				delete(cs.descs, old)
			}
			cs.next++
			name = "pgrst_" + strconv.Itoa(cs.next)
			cs.names[key] = name
			cs.order = append(cs.order, key)
			added = append(added, key)
			// Deallocate in the same pipeline, before the Parse that
			// replaces it, so the server never holds more than the cap.
			for _, e := range evicted {
				pl.SendDeallocate(e)
			}
			evicted = nil
			pl.SendPrepare(name, s.sql, nil)
		}
		// A statement prepared on an earlier request is executed from
		// its remembered description; one prepared in this pipeline is
		// described by the server first (its description is kept below).
		if sd := cs.descs[key]; sd != nil {
			pl.SendQueryStatement(sd, vals, nil, nil)
		} else {
			pl.SendQueryPrepared(name, vals, nil, nil)
		}
	}
	if err := pl.Sync(); err != nil {
		_ = pl.Close()
		forget(cs, added)
		return err
	}
	// Results come back in the order sent: one StatementDescription per
	// Parse (in the order of added), one reader per executed step, then
	// the Sync. After an error the server skips to the Sync, so later
	// steps simply produce no reader.
	var firstErr error
	readers := 0
	confirmed := 0
loop:
	for {
		res, err := pl.GetResults()
		if err != nil {
			firstErr = err
			break
		}
		switch r := res.(type) {
		case nil:
			break loop
		case *pgconn.StatementDescription:
			// The pipeline leaves Name empty; it is the name we chose.
			r.Name = cs.names[added[confirmed]]
			cs.descs[added[confirmed]] = r
			confirmed++
		case *pgconn.ResultReader:
			st := &steps[readers]
			readers++
			// Rows are drained even after an error so that the
			// pipeline stays in step with the server.
			for r.NextRow() {
				if st.row != nil && firstErr == nil {
					if err := st.row(r.Values()); err != nil {
						firstErr = err
					}
				}
			}
			if _, err := r.Close(); err != nil {
				if firstErr == nil {
					firstErr = err
				}
				break loop
			}
		case *pgconn.PipelineSync:
			break loop
		}
	}
	if err := pl.Close(); err != nil && firstErr == nil {
		firstErr = err
	}
	if confirmed < len(added) {
		// A failed or skipped Parse leaves no statement behind.
		forget(cs, added[confirmed:])
	}
	return firstErr
}

// forget drops statements the server never prepared, so the next request
// parses them again instead of executing a name that does not exist.
func forget(cs *connStmts, sqls []string) {
	for _, q := range sqls {
		delete(cs.names, q)
		delete(cs.descs, q)
		for i, o := range cs.order {
			if o == q {
				cs.order = append(cs.order[:i], cs.order[i+1:]...)
				break
			}
		}
	}
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
