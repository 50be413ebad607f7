package studio

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/basaltdev/basalt/internal/httpx"
)

// route is one endpoint. Every route passes wrap: an operator route is
// refused without an operator session (with its CSRF token, from Studio's
// own origin) or the service-role key from a non-browser client, and every
// call of one that writes is audited before it runs. Tests walk this table,
// so a new route gets the same checks.
type route struct {
	Method, Pattern string
	Access          access
	// Action names a write in the audit log; "" for reads.
	Action string
	// MaxBody bounds the request body (default 64 KiB).
	MaxBody int64
	h       func(w http.ResponseWriter, r *http.Request) error
}

// defaultMaxBody bounds JSON bodies of routes that set no limit.
const defaultMaxBody = 64 << 10

// storageMaxBody bounds an upload through Studio; the storage service
// applies its own (and each bucket's) limit below it.
const storageMaxBody = 1 << 30

// routeTable lists every endpoint Studio serves.
func (s *Service) routeTable() []route {
	read, write := readRoute, writeRoute
	rowsMax := int64(8 << 20)
	sqlMax := s.cfg.MaxQueryBytes + 16<<10
	rts := []route{
		// The app.
		{Method: "GET", Pattern: "/assets/{file...}", Access: accessPublic, h: s.serveAsset},
		{Method: "GET", Pattern: "/", Access: accessPublic, h: s.serveApp},
		// Sessions.
		{Method: "GET", Pattern: "/api/session", Access: accessSession, h: s.getSession},
		{Method: "POST", Pattern: "/api/session", Access: accessSession, h: s.signIn},
		write("DELETE", "/api/session", "studio.sign_out", s.signOut),

		// postgres-meta's shapes.
		read("GET", "/pg/schemas", s.pgSchemas),
		read("GET", "/pg/tables", s.pgTables),
		read("GET", "/pg/tables/{id}", s.pgTable),
		write("PATCH", "/pg/tables/{id}", "table.update", s.pgUpdateTable),
		read("GET", "/pg/columns", s.pgColumns),
		read("GET", "/pg/policies", s.pgPolicies),
		read("GET", "/pg/policies/{id}", s.pgPolicy),
		write("POST", "/pg/policies", "policy.create", s.pgCreatePolicy),
		write("PATCH", "/pg/policies/{id}", "policy.update", s.pgUpdatePolicy),
		write("DELETE", "/pg/policies/{id}", "policy.drop", s.pgDropPolicy),
		read("GET", "/pg/extensions", s.pgExtensions),
		read("GET", "/pg/indexes", s.pgIndexes),
		read("GET", "/pg/triggers", s.pgTriggers),
		read("GET", "/pg/types", s.pgTypes),
		read("GET", "/pg/roles", s.pgRoles),
		{Method: "POST", Pattern: "/pg/query", Action: "sql.query", MaxBody: sqlMax, h: s.pgQuery},

		// Studio's own.
		read("GET", "/api/home", s.home),
		read("GET", "/api/project", s.project),
		read("GET", "/api/keys", s.listAPIKeys),
		write("POST", "/api/keys", "api_key.create", s.createAPIKey),
		write("POST", "/api/keys/{id}/rotate", "api_key.rotate", s.rotateAPIKey),
		write("DELETE", "/api/keys/{id}", "api_key.revoke", s.revokeAPIKey),
		read("GET", "/api/audit", s.auditLog),
		read("GET", "/api/rows/{schema}/{table}", s.browseRows),
		{Method: "POST", Pattern: "/api/rows/{schema}/{table}", Action: "row.insert", MaxBody: rowsMax, h: s.insertRow},
		{Method: "PATCH", Pattern: "/api/rows/{schema}/{table}", Action: "row.update", MaxBody: rowsMax, h: s.updateRow},
		{Method: "DELETE", Pattern: "/api/rows/{schema}/{table}", Action: "row.delete", MaxBody: rowsMax, h: s.deleteRows},
		{Method: "POST", Pattern: "/api/sql", Action: "sql.run", MaxBody: sqlMax, h: s.runSQL},
		write("POST", "/api/sql/cancel", "sql.cancel", s.cancelSQL),
		read("GET", "/api/sql/history", s.sqlHistory),
		read("GET", "/api/snippets", s.listSnippets),
		{Method: "POST", Pattern: "/api/snippets", Action: "snippet.create", MaxBody: sqlMax, h: s.createSnippet},
		{Method: "PATCH", Pattern: "/api/snippets/{id}", Action: "snippet.update", MaxBody: sqlMax, h: s.updateSnippet},
		write("DELETE", "/api/snippets/{id}", "snippet.delete", s.deleteSnippet),
		read("GET", "/api/logs", s.accessLogs),
		read("GET", "/api/logs/functions", s.functionLogs),
		read("GET", "/api/logs/postgres", s.postgresLogs),
		read("GET", "/api/realtime", s.realtimeStatus),
		write("POST", "/api/realtime/token", "realtime.token", s.realtimeToken),
		read("GET", "/api/auth/users/{id}/sessions", s.userSessions),
		write("DELETE", "/api/auth/users/{id}/sessions/{sid}", "auth.session_revoke", s.revokeSession),

		// GoTrue's settings in force, its invite and recovery mails.
		read("GET", "/auth/v1/settings", s.proxyAPI()),
		write("POST", "/auth/v1/invite", "auth.invite", s.proxyAPI()),
		write("POST", "/auth/v1/recover", "auth.recover", s.proxyAPI()),
	}
	rts = append(rts, s.databaseRoutes()...)
	// GoTrue's admin API, as Supabase's dashboard calls it, with the
	// service-role key added here.
	for _, m := range []string{"GET", "POST", "PUT", "DELETE"} {
		rt := route{Method: m, Pattern: "/auth/v1/admin/{path...}", h: s.proxyAPI()}
		if m != "GET" {
			rt.Action = "auth.admin"
			rt.MaxBody = 1 << 20
		}
		rts = append(rts, rt)
	}
	// The storage API, as Supabase's dashboard calls it: buckets, objects,
	// signed URLs, and resumable uploads (TUS: POST, HEAD, PATCH under
	// /storage/v1/upload/resumable, each chunk up to storageMaxBody); the
	// key is added here.
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		rt := route{Method: m, Pattern: "/storage/v1/{path...}", h: s.proxyAPI()}
		if m != "GET" {
			rt.Action = "storage"
			rt.MaxBody = storageMaxBody
		}
		rts = append(rts, rt)
	}
	return rts
}

// readRoute is an operator's read.
func readRoute(method, pattern string, h func(http.ResponseWriter, *http.Request) error) route {
	return route{Method: method, Pattern: pattern, h: h}
}

// writeRoute is an operator's write, audited as action.
func writeRoute(method, pattern, action string, h func(http.ResponseWriter, *http.Request) error) route {
	return route{Method: method, Pattern: pattern, Action: action, h: h}
}

// wrap applies a route's access rule, body limit and audit.
func (s *Service) wrap(rt route) http.Handler {
	maxBody := rt.MaxBody
	if maxBody == 0 {
		maxBody = defaultMaxBody
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		if rt.Access != accessOperator {
			s.finish(w, r, rt.h(w, r))
			return
		}
		a, err := s.authenticate(r)
		if err != nil {
			s.finish(w, r, err)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), actorKey{}, a))
		if rt.Action == "" {
			s.finish(w, r, rt.h(w, r))
			return
		}
		id, r, err := s.beginAudit(r, a, rt.Action)
		if err != nil {
			s.finish(w, r, fmt.Errorf("audit: %w", err))
			return
		}
		note := &auditNote{}
		r = r.WithContext(context.WithValue(r.Context(), auditNoteKey{}, note))
		rec := &statusRecorder{ResponseWriter: w}
		s.finish(rec, r, rt.h(rec, r))
		s.endAudit(r.Context(), id, rec.status(), note)
	})
}

// statusRecorder remembers the status a handler wrote, keeping Flush for
// streamed answers.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusRecorder) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// httpError is an answer a handler chose: a status and a JSON body.
type httpError struct {
	status int
	body   any
}

func (e *httpError) Error() string { return fmt.Sprintf("%d %v", e.status, e.body) }

// badRequest is a 400 with Studio's error body.
func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, errorBody{Error: fmt.Sprintf(format, args...)}}
}

// notFound is a 404 with Studio's error body.
func notFound(format string, args ...any) error {
	return &httpError{http.StatusNotFound, errorBody{Error: fmt.Sprintf(format, args...)}}
}

// errorBody is the error shape of every endpoint, postgres-meta's.
type errorBody struct {
	Error string `json:"error"`
}

func writeError(w http.ResponseWriter, status int, msg string) {
	httpx.WriteJSON(w, status, errorBody{Error: msg})
}

// finish writes err, if any, in the endpoint's shape.
func (s *Service) finish(w http.ResponseWriter, r *http.Request, err error) {
	if err == nil {
		return
	}
	var ae *authError
	var he *httpError
	var pe *pgconn.PgError
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &ae):
		writeError(w, ae.status, ae.msg)
	case errors.As(err, &he):
		httpx.WriteJSON(w, he.status, he.body)
	case errors.As(err, &tooLarge) || errors.Is(err, httpx.ErrBodyTooLarge):
		writeError(w, http.StatusRequestEntityTooLarge, "the request body is too large")
	case httpx.ClientGone(r):
		w.WriteHeader(httpx.StatusClientClosedRequest)
	case unavailable(err):
		httpx.SetRetryAfter(w)
		writeError(w, http.StatusServiceUnavailable, "the database is unavailable")
	case errors.As(err, &pe):
		httpx.WriteJSON(w, http.StatusBadRequest, pgErrorBody(pe, ""))
	default:
		s.log.ErrorContext(r.Context(), "studio", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "internal error: "+err.Error())
	}
}
