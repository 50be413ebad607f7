package rest

import (
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
)

// apiError is an error rendered in PostgREST's {code,message,details,hint}
// shape. Details and Hint are nil, a string, or (PGRST201) a list.
type apiError struct {
	Status  int
	Code    string
	Message string
	Details any
	Hint    any
	Headers map[string]string
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

// orNull turns an empty Postgres detail or hint into JSON null, which is
// what PostgREST sends and what postgrest-js tests for.
func orNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// pgrstErr builds an error with a PostgREST code.
func pgrstErr(status int, code, msg string, details any, hint any) *apiError {
	return &apiError{Status: status, Code: code, Message: msg, Details: details, Hint: hint}
}

// fromPgError maps a Postgres error to PostgREST's HTTP status. The body
// keeps Postgres's own code, message, detail and hint: clients branch on
// the SQLSTATE (23505 for a duplicate) and show the hint.
func fromPgError(pe *pgconn.PgError, anon bool) *apiError {
	e := &apiError{Code: pe.Code, Message: pe.Message, Details: orNull(pe.Detail), Hint: orNull(pe.Hint)}
	switch pe.Code {
	case "PGRST":
		return customError(pe)
	}
	e.Status = statusForSQLState(pe.Code, pe.Message, anon)
	return e
}

// statusForSQLState is PostgREST's table of SQLSTATE to HTTP status
// (Error.hs, pgErrorStatus): the specific codes first, then whole classes.
func statusForSQLState(code, msg string, anon bool) int {
	switch {
	case code == "42501":
		// Permission denied: 401 without a token (authenticating may
		// help), 403 with one (it would not).
		if anon {
			return 401
		}
		return 403
	case code == "21000":
		// Cardinality violation is a server error, except safeupdate's
		// refusal of an unfiltered UPDATE/DELETE, which is the client's.
		if strings.HasSuffix(msg, "requires a WHERE clause") {
			return 400
		}
		return 500
	case code == "22023":
		if strings.HasPrefix(msg, "role \"") && strings.HasSuffix(msg, "\" does not exist") {
			return 401
		}
		return 400
	case code == "23503", code == "23505":
		return 409
	case code == "25006":
		// A write in a read-only transaction: a GET (or a stable
		// function) tried to modify data, so the method is wrong.
		return 405
	case code == "42883":
		if strings.HasPrefix(msg, "function xmlagg(") {
			return 406
		}
		return 404
	case code == "42P01":
		return 404
	case code == "42P17", code == "53400":
		return 500
	case code == "57P01":
		return 503
	case code == "P0001":
		return 400
	// RAISE … USING ERRCODE = 'PT404' picks the status itself.
	case strings.HasPrefix(code, "PT") && len(code) == 5:
		if n, err := strconv.Atoi(code[2:]); err == nil {
			return n
		}
		return 500
	}
	switch code[:2] {
	case "08", "53":
		return 503
	case "09", "25", "2D", "38", "39", "3B", "40", "54", "55", "57", "58", "F0", "HV", "XX", "P0":
		return 500
	case "0L", "0P", "28":
		return 403
	}
	return 400
}

// customError handles RAISE SQLSTATE 'PGRST': MESSAGE is the JSON body and
// DETAIL carries status and headers.
func customError(pe *pgconn.PgError) *apiError {
	bad := pgrstErr(500, "PGRST121", "Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error", nil, nil)
	var body struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Details any    `json:"details"`
		Hint    any    `json:"hint"`
	}
	var det struct {
		Status  int               `json:"status"`
		Headers map[string]string `json:"headers"`
	}
	if json.Unmarshal([]byte(pe.Message), &body) != nil {
		bad.Details = "Invalid JSON value for MESSAGE: '" + pe.Message + "'"
		bad.Hint = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'."
		return bad
	}
	if json.Unmarshal([]byte(pe.Detail), &det) != nil || det.Status == 0 {
		bad.Details = "Invalid JSON value for DETAIL: '" + pe.Detail + "'"
		bad.Hint = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'."
		return bad
	}
	return &apiError{Status: det.Status, Code: body.Code, Message: body.Message, Details: body.Details, Hint: body.Hint, Headers: det.Headers}
}

// jwtError renders a failed token check as PGRST301/PGRST303.
func jwtError(err error) *apiError {
	e := &apiError{Status: 401, Code: "PGRST301"}
	msg := err.Error()
	switch {
	case errors.Is(err, jwt.ErrExpired):
		e.Code, e.Message = "PGRST303", "JWT expired"
	case errors.Is(err, jwt.ErrNotYetValid):
		e.Code, e.Message = "PGRST303", "JWT not yet valid"
	case errors.Is(err, jwt.ErrIssuedInFuture):
		e.Code, e.Message = "PGRST303", "JWT issued at future"
	case errors.Is(err, jwt.ErrMalformed):
		e.Message = "Expected 3 parts in JWT; got " + partsCount(msg)
		if i := strings.Index(msg, "expected 3 parts in JWT; got "); i < 0 {
			e.Message = "JWT cryptographic operation failed"
		}
	default:
		e.Message = "No suitable key or wrong key type"
		e.Details = "No suitable key was found to decode the JWT"
	}
	e.Headers = map[string]string{"WWW-Authenticate": `Bearer error="invalid_token", error_description="` + e.Message + `"`}
	return e
}

// partsCount takes the number of parts from the verifier's message, so
// PGRST301's text matches PostgREST's for a malformed token.
func partsCount(msg string) string {
	const k = "got "
	if i := strings.LastIndex(msg, k); i >= 0 {
		return strings.TrimSpace(msg[i+len(k):])
	}
	return "1"
}

// unavailableError renders a database outage (pg.Unavailable) as PostgREST
// does, always as 503: a failed connection attempt is PGRST000 with the
// driver's message, a server error that ended the session keeps its SQLSTATE
// (57P01...), and a connection lost mid-exchange is PGRST001.
func unavailableError(err error, anon bool) *apiError {
	var pe *pgconn.PgError
	switch {
	case pg.ConnectFailed(err):
		return pgrstErr(503, "PGRST000", "Database connection error. Retrying the connection.", err.Error(), nil)
	case errors.As(err, &pe):
		e := fromPgError(pe, anon)
		e.Status = 503
		return e
	}
	return pgrstErr(503, "PGRST001", "Database client error. Retrying the connection.", err.Error(), nil)
}

// writeError renders err; anything that is not an apiError or a Postgres
// error becomes a 500 without leaking internals.
func (s *Service) writeError(w http.ResponseWriter, r *http.Request, err error, anon bool) {
	var ae *apiError
	if !errors.As(err, &ae) {
		var pe *pgconn.PgError
		var perr *parseError
		switch {
		case r.Context().Err() != nil:
			// The client went away, so the work was cut short: nobody
			// reads this answer. 499 (nginx's "client closed request")
			// keeps it out of the server errors in logs and metrics.
			ae = pgrstErr(httpx.StatusClientClosedRequest, "PGRSTX00", "Request canceled", nil, nil)
		case pg.Unavailable(err):
			ae = unavailableError(err, anon)
		case errors.As(err, &pe):
			ae = fromPgError(pe, anon)
		case errors.As(err, &perr):
			ae = pgrstErr(400, "PGRST100", perr.Error(), perr.msg, nil)
		case errors.Is(err, errPoolTimeout):
			ae = pgrstErr(504, "PGRST003", "Timed out acquiring connection from connection pool.", nil, nil)
		default:
			var ce *pgconn.ConnectError
			var ne net.Error
			if errors.As(err, &ce) || pgconn.SafeToRetry(err) {
				ae = pgrstErr(503, "PGRST000", "Database connection error. Retrying the connection.", err.Error(), nil)
			} else if errors.As(err, &ne) && ne.Timeout() {
				// The exchange deadline passed: the connection was closed
				// and left the pool, as a client-side database error does.
				s.log.ErrorContext(r.Context(), "rest request: no reply from the database", "method", r.Method, "path", r.URL.Path, "err", err)
				ae = pgrstErr(503, "PGRST001", "Database client error. Retrying the connection.", "no reply from the database in time", nil)
			} else {
				s.log.ErrorContext(r.Context(), "rest request failed", "method", r.Method, "path", r.URL.Path, "err", err)
				ae = pgrstErr(500, "PGRSTX00", "Internal server error", nil, nil)
			}
		}
	}
	h := w.Header()
	// Headers from a RAISE SQLSTATE 'PGRST' error or a JWT failure come
	// first; the defaults below only fill what they left unset.
	for k, v := range ae.Headers {
		h.Set(k, v)
	}
	// RFC 6750: a 401 names the scheme it wants.
	if ae.Status == 401 && h.Get("WWW-Authenticate") == "" {
		h.Set("WWW-Authenticate", "Bearer")
	}
	// A 503 is the database's outage, not the request's fault: a retry
	// may well land after the reconnect. Proxy-Status (RFC 9209) names
	// the error for gateways and logs, as PostgREST's responses do.
	if ae.Status == 503 {
		h.Set("Retry-After", "0")
	}
	h.Set("Proxy-Status", "PostgREST; error="+ae.Code)
	h.Set("Content-Type", "application/json; charset=utf-8")
	// Field order as PostgREST writes it: code, details, hint, message.
	body, _ := json.Marshal(struct {
		Code    string `json:"code"`
		Details any    `json:"details"`
		Hint    any    `json:"hint"`
		Message string `json:"message"`
	}{ae.Code, ae.Details, ae.Hint, ae.Message})
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(ae.Status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// rangeErr is 416 PGRST103: a page that cannot be served (a negative
// limit, an inverted Range, an offset past the total).
func rangeErr(details string) *apiError {
	return pgrstErr(416, "PGRST103", "Requested range not satisfiable", details, nil)
}
