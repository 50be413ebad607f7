package studio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/lazy"
)

// Postgres's own log, as the server writes it with jsonlog (PostgreSQL
// 15): read through SQL (pg_current_logfile, pg_ls_logdir,
// pg_read_binary_file),
// so it works against the embedded cluster and against an external
// database whose role may read server files (superuser, or pg_monitor with
// EXECUTE on pg_read_binary_file). Reading is bounded: the tail of the newest
// files only, at most serverLogMaxBytes, and at most limit lines.
const (
	serverLogDefaultBytes = 1 << 20
	serverLogMaxBytes     = 8 << 20
	// serverLogFieldMax cuts a long statement or message in an answer.
	serverLogFieldMax = 8 << 10
)

// serverLogAnswer is GET /api/logs/postgres's body: entries newest first,
// or available false and why.
type serverLogAnswer struct {
	Available bool              `json:"available"`
	Reason    string            `json:"reason,omitempty"`
	File      string            `json:"file,omitempty"`
	Entries   []json.RawMessage `json:"entries"`
	// Truncated says older lines were left unread (the byte budget ran out).
	Truncated bool `json:"truncated"`
}

// serverLogFilter selects lines: a level and those above it, a text found
// in the message, detail, hint, statement or SQLSTATE, and a time range.
type serverLogFilter struct {
	minLevel     int
	text         string
	since, until time.Time
	limit        int
	bytes        int64
}

// severities ranks jsonlog's error_severity values.
var severities = &lazy.Value[map[string]int]{New: func() map[string]int {
	return map[string]int{
		"DEBUG5": 0, "DEBUG4": 0, "DEBUG3": 0, "DEBUG2": 0, "DEBUG1": 0, "DEBUG": 0,
		"LOG": 1, "INFO": 1, "NOTICE": 2, "WARNING": 3, "ERROR": 4, "FATAL": 5, "PANIC": 6,
	}
}}

func parseServerLogFilter(q url.Values) (serverLogFilter, error) {
	f := serverLogFilter{limit: 200, bytes: serverLogDefaultBytes}
	if v := strings.ToUpper(strings.TrimSpace(q.Get("level"))); v != "" {
		n, ok := severities.Get()[v]
		if !ok {
			return f, badRequest("level must be one of log, notice, warning, error, fatal, panic")
		}
		f.minLevel = n
	}
	f.text = strings.ToLower(strings.TrimSpace(q.Get("text")))
	for name, dst := range map[string]*time.Time{"since": &f.since, "until": &f.until} {
		if v := q.Get(name); v != "" {
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return f, badRequest("%s must be a time (RFC 3339, e.g. 2026-01-02T15:04:05Z)", name)
			}
			*dst = t
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return f, badRequest("limit must be a positive number")
		}
		f.limit = min(n, 1000)
	}
	if v := q.Get("bytes"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return f, badRequest("bytes must be a positive number")
		}
		f.bytes = min(n, serverLogMaxBytes)
	}
	return f, nil
}

// serverLogLine is what a filter looks at in one jsonlog line.
type serverLogLine struct {
	Timestamp string `json:"timestamp"`
	Severity  string `json:"error_severity"`
	StateCode string `json:"state_code"`
	Message   string `json:"message"`
	Detail    string `json:"detail"`
	Hint      string `json:"hint"`
	Statement string `json:"statement"`
}

// jsonlogTime is jsonlog's timestamp layout (log_timezone's abbreviation).
const jsonlogTime = "2006-01-02 15:04:05.000 MST"

func (f serverLogFilter) match(l serverLogLine) bool {
	if severities.Get()[l.Severity] < f.minLevel {
		return false
	}
	if f.text != "" && !strings.Contains(strings.ToLower(l.Message+"\n"+l.Detail+"\n"+l.Hint+"\n"+l.Statement+"\n"+l.StateCode), f.text) {
		return false
	}
	if !f.since.IsZero() || !f.until.IsZero() {
		at, err := time.Parse(jsonlogTime, l.Timestamp)
		if err != nil {
			return true // a zone Go cannot place: the line is not hidden
		}
		if (!f.since.IsZero() && at.Before(f.since)) || (!f.until.IsZero() && at.After(f.until)) {
			return false
		}
	}
	return true
}

// postgresLogs serves GET /api/logs/postgres: ?level=, ?text=, ?since=,
// ?until=, ?limit= (lines, default 200, at most 1,000), ?bytes= (how much
// of the files' tails to read, default 1 MiB, at most 8 MiB).
func (s *Service) postgresLogs(w http.ResponseWriter, r *http.Request) error {
	f, err := parseServerLogFilter(r.URL.Query())
	if err != nil {
		return err
	}
	ans, err := readServerLog(r.Context(), s.d.Admin, f)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, ans)
	return nil
}

// querier is what readServerLog needs of a pool.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// readServerLog reads the newest files of the server's jsonlog, newest
// line first. A server or role that cannot give it is an answer saying why.
func readServerLog(ctx context.Context, db querier, f serverLogFilter) (serverLogAnswer, error) {
	ans := serverLogAnswer{Entries: []json.RawMessage{}}
	var version int
	if err := db.QueryRow(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&version); err != nil {
		return ans, err
	}
	if version < 150000 {
		ans.Reason = "Postgres writes its log as JSON from version 15 on; this server is older."
		return ans, nil
	}
	var current *string
	if err := db.QueryRow(ctx, `SELECT pg_current_logfile('jsonlog')`).Scan(&current); err != nil {
		return unavailableLog(ans, err)
	}
	if current == nil {
		ans.Reason = "Postgres is not writing a JSON log: it needs logging_collector = on and log_destination including jsonlog (basalt dev sets both)."
		return ans, nil
	}
	ans.File = *current
	files, err := serverLogFiles(ctx, db, *current)
	if err != nil {
		return unavailableLog(ans, err)
	}
	budget := f.bytes
	for _, lf := range files {
		if budget <= 0 || len(ans.Entries) >= f.limit {
			break
		}
		from := max(lf.size-budget, 0)
		var chunk []byte
		err := db.QueryRow(ctx, `SELECT pg_read_binary_file($1, $2, $3, true)`, lf.path, from, lf.size-from).Scan(&chunk)
		if err != nil {
			return unavailableLog(ans, err)
		}
		budget -= lf.size - from
		if from > 0 {
			// The first line was cut by the budget.
			_, chunk, _ = bytes.Cut(chunk, []byte("\n"))
			ans.Truncated = true
		}
		ans.Entries = appendMatches(ans.Entries, chunk, f)
	}
	if budget <= 0 && len(ans.Entries) < f.limit {
		ans.Truncated = true
	}
	ans.Available = true
	return ans, nil
}

// logFile is one jsonlog file: its path for pg_read_file and its size.
type logFile struct {
	path string
	size int64
}

// serverLogFiles lists the current file and then the older .json files in
// the log folder, newest first.
func serverLogFiles(ctx context.Context, db querier, current string) ([]logFile, error) {
	dir := current[:strings.LastIndex(current, "/")+1]
	rows, err := db.Query(ctx, `SELECT name, size FROM pg_ls_logdir() WHERE name LIKE '%.json'
		ORDER BY (current_setting('log_directory') || '/' || name) = $1 DESC, modification DESC`, current)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []logFile
	for rows.Next() {
		var lf logFile
		var name string
		if err := rows.Scan(&name, &lf.size); err != nil {
			return nil, err
		}
		lf.path = dir + name
		out = append(out, lf)
	}
	return out, rows.Err()
}

// appendMatches adds the lines of chunk that f selects to out, last line
// first, until out holds f.limit.
func appendMatches(out []json.RawMessage, chunk []byte, f serverLogFilter) []json.RawMessage {
	lines := bytes.Split(bytes.TrimRight(chunk, "\n"), []byte("\n"))
	for i := len(lines) - 1; i >= 0 && len(out) < f.limit; i-- {
		var l serverLogLine
		if len(lines[i]) == 0 || json.Unmarshal(lines[i], &l) != nil || !f.match(l) {
			continue
		}
		out = append(out, shortenLogLine(lines[i]))
	}
	return out
}

// shortenLogLine cuts the long text fields of a line (a pasted statement
// of megabytes) to serverLogFieldMax.
func shortenLogLine(line []byte) json.RawMessage {
	if len(line) <= serverLogFieldMax {
		return line
	}
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		return line
	}
	for k, v := range m {
		if s, ok := v.(string); ok && len(s) > serverLogFieldMax {
			m[k] = strings.ToValidUTF8(s[:serverLogFieldMax], "") + "…"
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return line
	}
	return b
}

// unavailableLog turns a refusal (no privilege, unsupported) into an
// answer saying why; other errors stay errors.
func unavailableLog(ans serverLogAnswer, err error) (serverLogAnswer, error) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return ans, err
	}
	switch pe.Code {
	case "42501":
		ans.Reason = "The database role Studio uses may not read the server's log files (" + pe.Message +
			"): it needs superuser, or pg_monitor and EXECUTE on pg_read_binary_file."
	case "22023", "58P01", "42883":
		ans.Reason = "The server's log cannot be read: " + pe.Message
	default:
		return ans, err
	}
	return ans, nil
}
