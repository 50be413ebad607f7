package studio

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// keysetPage reads ?limit= (default 100, at most 1,000) and ?before= (a
// row id: the page holds older rows), the paging of Studio's log lists.
func keysetPage(q url.Values) (limit int64, before *int64, err error) {
	limit = 100
	if v := q.Get("limit"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return 0, nil, badRequest("limit must be a positive number")
		}
		limit = min(n, 1000)
	}
	if v := q.Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, nil, badRequest("before must be a row's id")
		}
		before = &n
	}
	return limit, before, nil
}

// statusRange reads a status filter: "404", "4xx", "5xx" or "error" (400
// and above). Empty: every status.
func statusRange(v string) (lo, hi int, err error) {
	switch v = strings.ToLower(strings.TrimSpace(v)); {
	case v == "":
		return 0, 999, nil
	case v == "error" || v == "errors":
		return 400, 999, nil
	case len(v) == 3 && strings.HasSuffix(v, "xx") && v[0] >= '1' && v[0] <= '5':
		d := int(v[0]-'0') * 100
		return d, d + 99, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 100 || n > 999 {
		return 0, 0, badRequest("status must be a code (404), a class (4xx) or error")
	}
	return n, n, nil
}

// likeContains escapes s for a LIKE '%s%' match.
func likeContains(s string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s) + "%"
}

// accessLogs lists the API's access log (basalt.access_logs, every
// node's), newest first: ?service=, ?status=, ?method=, ?path= (a part
// of it), ?user= (a JWT subject), ?request_id=, ?node=, with keyset paging.
func (s *Service) accessLogs(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, before, err := keysetPage(q)
	if err != nil {
		return err
	}
	lo, hi, err := statusRange(q.Get("status"))
	if err != nil {
		return err
	}
	path := ""
	if v := q.Get("path"); v != "" {
		path = likeContains(v)
	}
	var out json.RawMessage
	err = s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(l ORDER BY l.id DESC), '[]') FROM (
		SELECT id, at, node, request_id, service, method, path, query, status, bytes, duration_ms, client_ip,
		       user_agent, user_id, role
		FROM basalt.access_logs
		WHERE ($1::int8 IS NULL OR id < $1)
		  AND ($2 = '' OR service = $2)
		  AND status BETWEEN $3 AND $4
		  AND ($5 = '' OR method = upper($5))
		  AND ($6 = '' OR path LIKE $6)
		  AND ($7 = '' OR user_id = $7)
		  AND ($8 = '' OR request_id = $8)
		  AND ($9 = '' OR node = $9)
		ORDER BY id DESC LIMIT $10) l`,
		before, q.Get("service"), lo, hi, q.Get("method"), path, q.Get("user"), strings.TrimSpace(q.Get("request_id")),
		q.Get("node"), limit).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// functionLogs lists edge functions' console lines and invocations
// (basalt.function_logs), newest first: ?function=, ?request_id=,
// ?level=, ?kind=, with keyset paging.
func (s *Service) functionLogs(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, before, err := keysetPage(q)
	if err != nil {
		return err
	}
	var out json.RawMessage
	err = s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(l ORDER BY l.id DESC), '[]') FROM (
		SELECT id, at, function, version, kind, request_id, level, message, method, path, status, duration_ms
		FROM basalt.function_logs
		WHERE ($1::int8 IS NULL OR id < $1)
		  AND ($2 = '' OR function = $2)
		  AND ($3 = '' OR request_id = $3)
		  AND ($4 = '' OR level = $4)
		  AND ($5 = '' OR kind = $5)
		ORDER BY id DESC LIMIT $6) l`,
		before, q.Get("function"), strings.TrimSpace(q.Get("request_id")), q.Get("level"), q.Get("kind"), limit).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}
