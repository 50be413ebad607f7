package studio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// objectSink keeps every result as JSON objects, the way postgres-meta's
// node-postgres hands them back: booleans and small numbers typed, json
// parsed, everything else (bigint and numeric included) as text.
type objectSink struct {
	fields  []pgconn.FieldDescription
	rows    []json.RawMessage
	results [][]json.RawMessage
}

func (o *objectSink) result(_ int, fields []pgconn.FieldDescription) error {
	o.fields = fields
	o.rows = nil
	return nil
}

func (o *objectSink) row(values [][]byte) error {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range values {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(o.fields[i].Name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(jsonValue(o.fields[i].DataTypeOID, v))
	}
	b.WriteByte('}')
	o.rows = append(o.rows, b.Bytes())
	return nil
}

func (o *objectSink) end(int, string, int64, bool) error {
	o.results = append(o.results, o.rows)
	return nil
}

// jsonValue renders a text-format value as node-postgres types it.
func jsonValue(oid uint32, v []byte) []byte {
	if v == nil {
		return []byte("null")
	}
	switch oid {
	case pgtype.BoolOID:
		if string(v) == "t" {
			return []byte("true")
		}
		return []byte("false")
	case pgtype.Int2OID, pgtype.Int4OID, pgtype.OIDOID, pgtype.Float4OID, pgtype.Float8OID:
		if _, err := strconv.ParseFloat(string(v), 64); err == nil && string(v) != "NaN" && string(v) != "Infinity" && string(v) != "-Infinity" {
			return v
		}
	case pgtype.JSONOID, pgtype.JSONBOID:
		if json.Valid(v) {
			return v
		}
	}
	s, _ := json.Marshal(string(v))
	return s
}

// pgQuery is postgres-meta's POST /query: {query, parameters?}, answered
// with the rows of the last result that has any, as objects. The result is
// capped at 32 MB (postgres-meta's RESULT_SIZE_EXCEEDED); an error comes
// back as 400 with PostgreSQL's fields.
func (s *Service) pgQuery(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Query      string `json:"query"`
		Parameters []any  `json:"parameters"`
	}
	if err := s.decodeSQLBody(r, &b); err != nil {
		return err
	}
	if err := s.checkQuery(b.Query); err != nil {
		return err
	}
	timeout := s.cfg.StatementTimeout
	if v := r.URL.Query().Get("statementTimeoutSecs"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return badRequest("querystring/statementTimeoutSecs must be a positive integer")
		}
		timeout = min(time.Duration(n)*time.Second, maxQueryTimeout)
	}
	runID := uuid.NewString()
	noteAudit(r.Context(), "sql", map[string]any{"run_id": runID})
	conn, err := s.openRun(r.Context(), runID, timeout)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(r.Context()))
	out := &objectSink{}
	start := time.Now()
	var capped *errCapped
	lim := runLimits{rows: 1 << 62, bytes: maxResultBytes}
	if len(b.Parameters) > 0 {
		err = execParams(r.Context(), conn.PgConn(), b.Query, b.Parameters, lim, out)
	} else {
		capped, err = execScript(r.Context(), conn.PgConn(), b.Query, lim, out)
	}
	took := time.Since(start)
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		msg := pe.Message
		s.recordHistory(r.Context(), b.Query, took, 0, &msg)
		return &httpError{http.StatusBadRequest, pgErrorBody(pe, b.Query)}
	case err != nil:
		return err
	case capped != nil:
		return &httpError{http.StatusBadRequest, map[string]any{
			"error": fmt.Sprintf("Query result size exceeded the configured limit (%d bytes)", maxResultBytes), "code": "RESULT_SIZE_EXCEEDED",
			"maxResultSize": maxResultBytes}}
	}
	rows := []json.RawMessage{}
	for i := len(out.results) - 1; i >= 0; i-- {
		if len(out.results[i]) > 0 {
			rows = out.results[i]
			break
		}
	}
	s.recordHistory(r.Context(), b.Query, took, int64(len(rows)), nil)
	enc, _ := json.Marshal(rows)
	writeRaw(w, http.StatusOK, enc)
	return nil
}

// execParams runs one statement with parameters, each sent as text (JSON
// strings as they are, other values as their JSON text) for PostgreSQL to
// read as the type it infers.
func execParams(ctx context.Context, pc *pgconn.PgConn, sql string, params []any, lim runLimits, out sink) error {
	vals := make([][]byte, len(params))
	for i, p := range params {
		switch v := p.(type) {
		case nil:
		case string:
			vals[i] = []byte(v)
		default:
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			vals[i] = b
		}
	}
	rr := pc.ExecParams(ctx, sql, vals, nil, nil, nil)
	if err := out.result(0, rr.FieldDescriptions()); err != nil {
		_, _ = rr.Close()
		return err
	}
	var n, size int64
	for rr.NextRow() {
		for _, v := range rr.Values() {
			size += int64(len(v))
		}
		if size > lim.bytes {
			_ = pc.CancelRequest(context.WithoutCancel(ctx))
			_, _ = rr.Close()
			return fmt.Errorf("query result size exceeded the configured limit (%d bytes)", lim.bytes)
		}
		n++
		if err := out.row(rr.Values()); err != nil {
			_, _ = rr.Close()
			return err
		}
	}
	tag, err := rr.Close()
	if err != nil {
		return err
	}
	return out.end(0, tag.String(), n, false)
}
