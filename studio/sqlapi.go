package studio

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/lazy"
)

// Limits of a run besides the row cap.
const (
	maxResultBytes  = 32 << 20 // values kept over a whole run
	maxCellBytes    = 64 << 10 // one value in the editor's grid
	maxQueryTimeout = 10 * time.Minute
	historySQLBytes = 100 << 10
	historyKept     = 500 // runs an operator's history keeps
)

// sqlRequest is the SQL editor's body.
type sqlRequest struct {
	Query string `json:"query"`
	// RunID names the run for POST /api/sql/cancel (a UUID; one is made
	// up when missing).
	RunID string `json:"run_id"`
	// Explain: "" runs the query; "plan" shows EXPLAIN's plan as JSON;
	// "analyze" runs it under EXPLAIN ANALYZE in a transaction that is
	// rolled back.
	Explain string `json:"explain"`
	// TimeoutMS overrides the statement timeout (up to 10 minutes).
	TimeoutMS int64 `json:"timeout_ms"`
}

// checkQuery refuses what cannot run: nothing, or more than the limit.
func (s *Service) checkQuery(q string) error {
	if strings.TrimSpace(q) == "" {
		return badRequest("query not found")
	}
	if int64(len(q)) > s.cfg.MaxQueryBytes {
		return &httpError{http.StatusRequestEntityTooLarge, errorBody{Error: fmt.Sprintf(
			"the query is %.1f MB; Studio runs at most %.1f MB of SQL at once (load big data with psql or COPY)",
			float64(len(q))/(1<<20), float64(s.cfg.MaxQueryBytes)/(1<<20))}}
	}
	if !utf8.ValidString(q) {
		return badRequest("the query is not valid UTF-8")
	}
	return nil
}

// decodeSQLBody reads the body, with a clear answer for a paste too big.
func (s *Service) decodeSQLBody(r *http.Request, v any) error {
	if err := httpx.DecodeJSON(r, s.cfg.MaxQueryBytes+16<<10, v); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) || errors.Is(err, httpx.ErrBodyTooLarge) {
			return &httpError{http.StatusRequestEntityTooLarge, errorBody{Error: fmt.Sprintf(
				"the query is over %.1f MB; Studio runs at most %.1f MB of SQL at once (load big data with psql or COPY)",
				float64(s.cfg.MaxQueryBytes)/(1<<20), float64(s.cfg.MaxQueryBytes)/(1<<20))}}
		}
		return badRequest("the body must be JSON: {\"query\": \"...\"}")
	}
	return nil
}

// ndjson writes one JSON object per line, flushed as it goes.
type ndjson struct {
	w   http.ResponseWriter
	buf *bufio.Writer
}

func (n *ndjson) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := n.buf.Write(append(b, '\n')); err != nil {
		return err
	}
	return nil
}

func (n *ndjson) flush() error {
	if err := n.buf.Flush(); err != nil {
		return err
	}
	if f, ok := n.w.(http.Flusher); ok {
		f.Flush()
	}
	return nil
}

// gridSink streams results to the editor: values as text, in batches.
type gridSink struct {
	out       *ndjson
	typeName  func(oid uint32) string
	batch     [][]*string
	batchSize int
	total     int64
}

func (g *gridSink) result(i int, fields []pgconn.FieldDescription) error {
	cols := make([]map[string]string, len(fields))
	for k, f := range fields {
		cols[k] = map[string]string{"name": f.Name, "type": g.typeName(f.DataTypeOID)}
	}
	if fields == nil {
		cols = nil
	}
	return g.out.send(map[string]any{"type": "result", "index": i, "columns": cols})
}

func (g *gridSink) row(values [][]byte) error {
	g.total++
	row := make([]*string, len(values))
	for k, v := range values {
		if v == nil {
			continue
		}
		s := string(v)
		if len(v) > maxCellBytes {
			s = strings.ToValidUTF8(string(v[:maxCellBytes]), "") + fmt.Sprintf(" … (%d bytes in all)", len(v))
		}
		row[k] = &s
		g.batchSize += len(s)
	}
	g.batch = append(g.batch, row)
	if len(g.batch) >= 200 || g.batchSize >= 256<<10 {
		return g.flushRows()
	}
	return nil
}

func (g *gridSink) flushRows() error {
	if len(g.batch) == 0 {
		return nil
	}
	err := g.out.send(map[string]any{"type": "rows", "rows": g.batch})
	g.batch, g.batchSize = g.batch[:0], 0
	if err != nil {
		return err
	}
	return g.out.flush()
}

func (g *gridSink) end(i int, tag string, rows int64, truncated bool) error {
	if err := g.flushRows(); err != nil {
		return err
	}
	return g.out.send(map[string]any{"type": "end", "index": i, "command": tag, "row_count": rows, "truncated": truncated})
}

// typeNames resolves type OIDs to names: the built-in ones from pgx's map,
// the rest (enums, domains, composite types) from the catalog once.
func (s *Service) typeNames(ctx context.Context) func(uint32) string {
	m := pgtype.NewMap()
	cache := map[uint32]string{}
	return func(oid uint32) string {
		if t, ok := m.TypeForOID(oid); ok {
			return t.Name
		}
		if n, ok := cache[oid]; ok {
			return n
		}
		var name string
		if err := s.d.Admin.QueryRow(ctx, `SELECT format_type($1::oid, NULL)`, oid).Scan(&name); err != nil {
			name = strconv.FormatUint(uint64(oid), 10)
		}
		cache[oid] = name
		return name
	}
}

var uuidRE = lazy.NewRegexp(`^[0-9a-fA-F-]{36}$`)

// runSQL runs the editor's SQL and streams the results as NDJSON lines:
// {"type":"result"} (columns), {"type":"rows"}, {"type":"end"} (command
// tag, count, whether capped) per result, then {"type":"error"} if one
// happened and {"type":"done"}. Memory is bounded by the row cap and the
// byte cap, whatever the query returns.
func (s *Service) runSQL(w http.ResponseWriter, r *http.Request) error {
	var req sqlRequest
	if err := s.decodeSQLBody(r, &req); err != nil {
		return err
	}
	if err := s.checkQuery(req.Query); err != nil {
		return err
	}
	if req.RunID == "" {
		req.RunID = uuid.NewString()
	} else if !uuidRE.MatchString(req.RunID) {
		return badRequest("run_id must be a UUID")
	}
	timeout := s.cfg.StatementTimeout
	if req.TimeoutMS > 0 {
		timeout = min(time.Duration(req.TimeoutMS)*time.Millisecond, maxQueryTimeout)
	}
	query := req.Query
	switch req.Explain {
	case "":
	case "plan", "analyze":
		query = strings.TrimRight(strings.TrimSpace(query), "; \t\n")
	default:
		return badRequest("explain must be \"plan\" or \"analyze\"")
	}
	noteAudit(r.Context(), "sql", map[string]any{"run_id": req.RunID})
	ctx := r.Context()
	conn, err := s.openRun(ctx, req.RunID, timeout)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))

	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	out := &ndjson{w: w, buf: bufio.NewWriterSize(w, 64<<10)}
	_ = out.send(map[string]any{"type": "start", "run_id": req.RunID, "timeout_ms": timeout.Milliseconds(), "row_cap": s.cfg.RowCap})
	g := &gridSink{out: out, typeName: s.typeNames(ctx)}
	start := time.Now()
	var capped *errCapped
	var runErr error
	offset := 0
	if req.Explain == "" {
		capped, runErr = execScript(ctx, conn.PgConn(), query, runLimits{rows: int64(s.cfg.RowCap), bytes: maxResultBytes}, g)
	} else {
		prefix := "EXPLAIN (FORMAT JSON, VERBOSE) "
		if req.Explain == "analyze" {
			prefix = "EXPLAIN (FORMAT JSON, VERBOSE, ANALYZE, BUFFERS) "
		}
		offset = utf8.RuneCountInString(prefix)
		// EXPLAIN ANALYZE runs the statement: its writes are rolled back.
		if _, runErr = conn.PgConn().Exec(ctx, "BEGIN").ReadAll(); runErr == nil {
			_, runErr = execScript(ctx, conn.PgConn(), prefix+query, runLimits{rows: 10, bytes: maxResultBytes}, g)
			_, _ = conn.PgConn().Exec(context.WithoutCancel(ctx), "ROLLBACK").ReadAll()
		}
	}
	elapsed := time.Since(start)
	msg := map[string]any{"type": "done", "duration_ms": float64(elapsed.Microseconds()) / 1000}
	if capped != nil {
		msg["notice"] = capped.reason
	}
	var errText *string
	if runErr != nil {
		var pe *pgconn.PgError
		if errors.As(runErr, &pe) {
			body := pgErrorBody(shiftPosition(pe, offset), req.Query)
			if pe.Code == "57014" && ctx.Err() == nil {
				body.Error = fmt.Sprintf("canceling statement: it ran past the statement timeout (%s) or was cancelled", timeout)
			}
			_ = out.send(map[string]any{"type": "error", "error": body})
			errText = &pe.Message
		} else if ctx.Err() == nil {
			text := runErr.Error()
			_ = out.send(map[string]any{"type": "error", "error": errorBody{Error: text}})
			errText = &text
		}
	}
	_ = out.send(msg)
	_ = out.flush()
	s.recordHistory(ctx, req.Query, elapsed, g.total, errText)
	return nil
}

// shiftPosition moves an error's position back over a prefix Studio put
// before the operator's text.
func shiftPosition(pe *pgconn.PgError, by int) *pgconn.PgError {
	if by == 0 || pe.Position == 0 {
		return pe
	}
	c := *pe
	c.Position = max(1, pe.Position-int32(by))
	return &c
}

// recordHistory keeps the run in the operator's history.
func (s *Service) recordHistory(ctx context.Context, sql string, took time.Duration, rows int64, errText *string) {
	a := actorOf(ctx)
	var opID *string
	if a.Operator.ID != "" {
		opID = &a.Operator.ID
	}
	if len(sql) > historySQLBytes {
		sql = strings.ToValidUTF8(sql[:historySQLBytes], "")
	}
	ctx = context.WithoutCancel(ctx)
	if _, err := s.d.Admin.Exec(ctx, `INSERT INTO basalt.studio_sql_history (operator_id, sql, duration_ms, row_count, error)
		VALUES ($1, $2, $3, $4, $5)`, opID, sql, float64(took.Microseconds())/1000, rows, errText); err != nil {
		s.log.WarnContext(ctx, "studio sql history", "err", err)
	}
	// An operator's history keeps their last runs only.
	if _, err := s.d.Admin.Exec(ctx, `DELETE FROM basalt.studio_sql_history WHERE operator_id IS NOT DISTINCT FROM $1 AND id <= (
		SELECT id FROM basalt.studio_sql_history WHERE operator_id IS NOT DISTINCT FROM $1 ORDER BY id DESC OFFSET $2 LIMIT 1)`, opID, historyKept); err != nil {
		s.log.WarnContext(ctx, "studio sql history", "err", err)
	}
}

// cancelSQL cancels a running query by its run id, on whichever node runs it.
func (s *Service) cancelSQL(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		RunID string `json:"run_id"`
	}
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	if !uuidRE.MatchString(b.RunID) {
		return badRequest("run_id must be a UUID")
	}
	var n int
	err := s.d.Admin.QueryRow(r.Context(), `SELECT count(*) FILTER (WHERE pg_cancel_backend(pid))
		FROM pg_stat_activity WHERE application_name = $1 AND state = 'active'`, runAppName(b.RunID)).Scan(&n)
	if err != nil {
		return err
	}
	return okJSON(w, map[string]any{"cancelled": n > 0})
}

// sqlHistory lists the operator's last runs, newest first.
func (s *Service) sqlHistory(w http.ResponseWriter, r *http.Request) error {
	a := actorOf(r.Context())
	if a.Operator.ID == "" {
		return badRequest("history belongs to an operator: sign in to Studio")
	}
	var out json.RawMessage
	err := s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(h), '[]') FROM (
		SELECT id, left(sql, 2000) AS sql, started_at, duration_ms, row_count, error
		FROM basalt.studio_sql_history WHERE operator_id = $1 ORDER BY id DESC LIMIT 100) h`, a.Operator.ID).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}
