package studio

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// A script from the SQL editor (or POST /pg/query) runs on a connection of
// its own, opened for the run and closed after it: whatever the script sets
// (SET ROLE, search_path, prepared statements, an open transaction) dies
// with it, and the pools never see it. Its application_name carries the
// run's id, so any node can cancel it through pg_cancel_backend.

// runAppName is the application_name of a run's connection.
func runAppName(runID string) string { return "basalt studio run " + runID }

// openRun connects as the admin role for one run, with the statement
// timeout set. Cancelling ctx sends PostgreSQL a cancel request (the
// default would only drop the socket and leave the query running).
func (s *Service) openRun(ctx context.Context, runID string, timeout time.Duration) (*pgx.Conn, error) {
	cfg := s.d.Admin.Config().ConnConfig.Copy()
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	cfg.RuntimeParams["application_name"] = runAppName(runID)
	cfg.RuntimeParams["statement_timeout"] = strconv.FormatInt(timeout.Milliseconds(), 10)
	// A script left idle in a transaction (a BEGIN without COMMIT) ends
	// with its connection anyway.
	cfg.RuntimeParams["idle_in_transaction_session_timeout"] = strconv.FormatInt(timeout.Milliseconds(), 10)
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 2 * time.Second}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect for the query: %w", err)
	}
	return conn, nil
}

// sink receives a script's results as they are read.
type sink interface {
	// result starts result set i with its columns (nil for a command
	// without rows).
	result(i int, fields []pgconn.FieldDescription) error
	// row is one row's values in text format (nil: NULL); the slice is
	// only valid during the call.
	row(values [][]byte) error
	// end closes result set i with its command tag.
	end(i int, tag string, rows int64, truncated bool) error
}

// errCapped stops a run whose result outgrew what is kept.
type errCapped struct{ reason string }

func (e *errCapped) Error() string { return e.reason }

// runLimits bound what a run keeps.
type runLimits struct {
	rows  int64 // rows kept over the whole script
	bytes int64 // bytes of values kept over the whole script
}

// execScript runs sql (one or more statements, simple protocol) and feeds
// every result to out, keeping at most lim. Past a limit the statement is
// cancelled (and with it the rest of the script, which PostgreSQL runs as
// one implicit transaction), and the *errCapped says why; memory stays
// bounded whatever the result's size.
func execScript(ctx context.Context, pc *pgconn.PgConn, sql string, lim runLimits, out sink) (capped *errCapped, err error) {
	mrr := pc.Exec(ctx, sql)
	var rows, bytes int64
	i := 0
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		fields := rr.FieldDescriptions()
		if err := out.result(i, fields); err != nil {
			_ = pc.CancelRequest(context.WithoutCancel(ctx))
			_ = mrr.Close()
			return nil, err
		}
		var n int64
		for rr.NextRow() {
			if capped != nil {
				continue // draining after the cancel request
			}
			vals := rr.Values()
			size := int64(0)
			for _, v := range vals {
				size += int64(len(v))
			}
			if rows >= lim.rows || bytes+size > lim.bytes {
				if rows >= lim.rows {
					capped = &errCapped{fmt.Sprintf("stopped after %d rows (the row cap): the statement was cancelled and the statements after it did not run", lim.rows)}
				} else {
					capped = &errCapped{fmt.Sprintf("stopped after %d MB of results: the statement was cancelled and the statements after it did not run", lim.bytes>>20)}
				}
				_ = pc.CancelRequest(context.WithoutCancel(ctx))
				continue
			}
			rows, bytes, n = rows+1, bytes+size, n+1
			if err := out.row(vals); err != nil {
				_ = pc.CancelRequest(context.WithoutCancel(ctx))
				_ = mrr.Close()
				return nil, err
			}
		}
		tag, rerr := rr.Close()
		if rerr != nil {
			if capped != nil && isQueryCanceled(rerr) {
				if err := out.end(i, "", n, true); err != nil {
					return nil, err
				}
				break
			}
			_ = mrr.Close()
			return capped, rerr
		}
		if err := out.end(i, tag.String(), n, false); err != nil {
			_ = mrr.Close()
			return nil, err
		}
		i++
	}
	err = mrr.Close()
	if capped != nil && isQueryCanceled(err) {
		err = nil
	}
	return capped, err
}

func isQueryCanceled(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "57014"
}

// pgError is a PostgreSQL error as Studio's endpoints answer it:
// postgres-meta's fields (error is the psql-style text with the caret
// under the position) plus the position's line and column.
type pgError struct {
	Error          string `json:"error"`
	FormattedError string `json:"formattedError"`
	Message        string `json:"message"`
	Code           string `json:"code"`
	Severity       string `json:"severity,omitempty"`
	Detail         string `json:"detail,omitempty"`
	Hint           string `json:"hint,omitempty"`
	Where          string `json:"where,omitempty"`
	Position       int32  `json:"position,omitempty"`
	Line           int    `json:"line,omitempty"`
	Column         int    `json:"column,omitempty"`
}

// pgErrorBody renders pe; query is the text its position counts in ("" when
// the statement was not the operator's own).
func pgErrorBody(pe *pgconn.PgError, query string) pgError {
	e := pgError{Message: pe.Message, Code: pe.Code, Severity: pe.Severity, Detail: pe.Detail, Hint: pe.Hint, Where: pe.Where}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:  %s: %s\n", pe.Severity, pe.Code, pe.Message)
	if pe.Position > 0 && query != "" {
		e.Position = pe.Position
		line, col, text := locate(query, int(pe.Position))
		e.Line, e.Column = line, col
		prefix := fmt.Sprintf("LINE %d: ", line)
		fmt.Fprintf(&b, "%s%s\n%s^\n", prefix, text, strings.Repeat(" ", len(prefix)+col-1))
	}
	if pe.Detail != "" {
		fmt.Fprintf(&b, "DETAIL:  %s\n", pe.Detail)
	}
	if pe.Hint != "" {
		fmt.Fprintf(&b, "HINT:  %s\n", pe.Hint)
	}
	if pe.Where != "" {
		fmt.Fprintf(&b, "CONTEXT:  %s\n", pe.Where)
	}
	e.FormattedError = b.String()
	e.Error = e.FormattedError
	if query == "" {
		e.Error = pe.Message
	}
	return e
}

// locate turns PostgreSQL's 1-based character position into a 1-based line
// and column, and the text of that line.
func locate(query string, pos int) (line, col int, text string) {
	line, col = 1, 1
	start, i := 0, 0
	for off, r := range query {
		if i == pos-1 {
			break
		}
		i++
		if r == '\n' {
			line, col, start = line+1, 1, off+1
		} else {
			col++
		}
	}
	end := strings.IndexByte(query[start:], '\n')
	if end < 0 {
		end = len(query) - start
	}
	text = query[start : start+end]
	if utf8.RuneCountInString(text) > 200 {
		text = string([]rune(text)[:200])
	}
	return line, col, text
}
