package functions

import (
	"errors"
	"net/http"

	"github.com/basaltdev/basalt/internal/httpx"
)

// Error is a response a handler chooses to send by returning it: Status with
// Body as JSON. Err is the internal cause, logged and never sent. Handlers
// return it for answers that are not the happy path (bad input, a business
// refusal that must be non-2xx); any other error becomes the runtime's 500.
type Error struct {
	Status int
	Body   any
	Err    error
}

// Error describes the status and, when set, the internal cause.
func (e *Error) Error() string {
	if e.Err != nil {
		return http.StatusText(e.Status) + ": " + e.Err.Error()
	}
	return http.StatusText(e.Status)
}

// Unwrap returns the internal cause.
func (e *Error) Unwrap() error { return e.Err }

// NewError is a shortcut for an *Error with a JSON body.
func NewError(status int, body any, cause error) *Error {
	return &Error{Status: status, Body: body, Err: cause}
}

// runtimeError is a body of the edge runtime or its gateway: {code, message}.
type runtimeError struct {
	Code    any    `json:"code"`
	Message string `json:"message"`
}

// The bodies hosted Supabase answers with (contract §3.2 and §3.4).
var (
	errMissingAuth = &Error{Status: http.StatusUnauthorized, Body: runtimeError{401, "Missing authorization header"}}
	errBadScheme   = &Error{Status: http.StatusUnauthorized, Body: runtimeError{401, "Auth header is not 'Bearer {token}'"}}
	errInvalidJWT  = &Error{Status: http.StatusUnauthorized, Body: runtimeError{401, "Invalid JWT"}}
	errWorker      = &Error{Status: http.StatusInternalServerError,
		Body: runtimeError{"WORKER_ERROR", "Function exited due to an error (please check logs)"}}
	errBoot = &Error{Status: http.StatusServiceUnavailable,
		Body: runtimeError{"BOOT_ERROR", "Worker failed to boot (please check logs)"}}
	// errIdleTimeout: no answer within the wall clock (FUNCTIONS_TIMEOUT),
	// the 504 Supabase's gateway sends after its request idle timeout.
	errIdleTimeout = &Error{Status: http.StatusGatewayTimeout,
		Body: runtimeError{"IDLE_TIMEOUT", "Function did not respond within the request timeout (please check logs)"}}
	// errTooLarge: a request body over FUNCTIONS_MAX_BODY_BYTES.
	errTooLarge = &Error{Status: http.StatusRequestEntityTooLarge,
		Body: runtimeError{"PAYLOAD_TOO_LARGE", "The request body is over the functions' size limit"}}
	errLimit = &Error{Status: 546,
		Body: runtimeError{"WORKER_LIMIT", "Worker failed to respond due to a resource limit (please check logs)"}}
	// errDBUnavailable answers a function that failed because the database
	// is unavailable (pg.Unavailable): 503 in the runtime's shape, with
	// Retry-After, instead of WORKER_ERROR, so callers retry.
	errDBUnavailable = &Error{Status: http.StatusServiceUnavailable,
		Body: runtimeError{"DATABASE_UNAVAILABLE", "The database is unavailable, please retry after a moment"}}
)

// notFound is the local CLI's answer for an unknown function.
func notFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte("Function not found"))
}

// writeError renders err: an *Error as chosen by whoever returned it,
// anything else as the runtime's opaque 500, so internal causes never reach
// the client.
func writeError(w http.ResponseWriter, err error) {
	var fe *Error
	if !errors.As(err, &fe) {
		fe = errWorker
	}
	httpx.WriteJSON(w, fe.Status, fe.Body)
}
