package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/pg"
)

// apiError is an error the client sees: an HTTP status, a GoTrue error code
// and a message. Handlers return it; s.handle renders it in the format the
// request negotiated (see writeError).
type apiError struct {
	Status  int
	Code    string
	Message string
	// Weak carries the reasons of a weak_password error.
	Weak *weakPassword
	// RetryAfter, when set, is sent as Retry-After (whole seconds): the
	// request was refused for load, not for what it asked.
	RetryAfter time.Duration
	// Cause is logged, never sent.
	Cause error
}

// Error describes the error for logs (the cause included).
func (e *apiError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return e.Code + ": " + e.Message
}

// Unwrap exposes the cause to errors.Is/As.
func (e *apiError) Unwrap() error { return e.Cause }

// newErr and the helpers below build an apiError with the reference's
// status for each class of failure; messages are formatted like fmt.Sprintf
// and must match the reference's text, which apps sometimes compare.
func newErr(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func badRequest(code, format string, args ...any) *apiError {
	return newErr(http.StatusBadRequest, code, format, args...)
}

func unprocessable(code, format string, args ...any) *apiError {
	return newErr(http.StatusUnprocessableEntity, code, format, args...)
}

func forbidden(code, format string, args ...any) *apiError {
	return newErr(http.StatusForbidden, code, format, args...)
}

func notFound(code, format string, args ...any) *apiError {
	return newErr(http.StatusNotFound, code, format, args...)
}

func tooMany(code, format string, args ...any) *apiError {
	return newErr(http.StatusTooManyRequests, code, format, args...)
}

// internalErr wraps an unexpected failure; its cause only reaches the log.
func internalErr(cause error) *apiError {
	return &apiError{Status: http.StatusInternalServerError, Code: "unexpected_failure",
		Message: "Unexpected failure, please check server logs for more information", Cause: cause}
}

// unavailableErr is a database outage (pg.Unavailable). GoTrue answers
// those 500 unexpected_failure; we answer 503 with Retry-After, which auth-js
// also treats as retryable, so clients wait instead of giving up.
func unavailableErr(cause error) *apiError {
	return &apiError{Status: http.StatusServiceUnavailable, Code: "unexpected_failure",
		Message: "Database is unavailable, please retry after a moment", Cause: cause}
}

// oauthError is the OAuth-shaped error body some grants answer with.
type oauthError struct {
	Err         string `json:"error"`
	Description string `json:"error_description"`
	// cause is logged, never sent.
	cause error
}

// Error implements error.
func (e *oauthError) Error() string {
	if e.cause != nil {
		return e.Err + ": " + e.Description + ": " + e.cause.Error()
	}
	return e.Err + ": " + e.Description
}

// Unwrap exposes the cause to errors.Is/As.
func (e *oauthError) Unwrap() error { return e.cause }

// apiVersionHeader is the header auth-js sends and expects echoed back: only
// when the response carries it does the client trust body.code.
const apiVersionHeader = "X-Supabase-Api-Version"

// apiVersion2024 is the first (and only) dated API version GoTrue knows.
var apiVersion2024 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// wantsDatedErrors reports whether the request asked for the 2024-01-01
// error format.
func wantsDatedErrors(r *http.Request) bool {
	v := r.Header.Get(apiVersionHeader)
	if v == "" {
		return false
	}
	t, err := time.Parse("2006-01-02", v)
	return err == nil && !t.Before(apiVersion2024)
}

// writeError renders err. API errors use the dated format ({code, message})
// when the request carried X-Supabase-Api-Version >= 2024-01-01, else the
// legacy one ({code:<status>, error_code, msg}); both set x-sb-error-code.
func (s *Service) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var oe *oauthError
	if errors.As(err, &oe) {
		if oe.cause != nil {
			s.log.InfoContext(r.Context(), "auth request refused", "method", r.Method, "path", r.URL.Path, "err", err)
		}
		writeJSON(w, http.StatusBadRequest, oe)
		return
	}
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = internalErr(err)
	}
	if pg.Unavailable(err) {
		ae = unavailableErr(err)
		httpx.SetRetryAfter(w)
	}
	if ae.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(ae.RetryAfter.Seconds()))))
	}
	if ae.Status >= 500 {
		s.log.ErrorContext(r.Context(), "auth request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	code := ae.Code
	if code == "" {
		code = "unknown"
		if ae.Status == http.StatusInternalServerError {
			code = "unexpected_failure"
		}
	}
	w.Header().Set("x-sb-error-code", code)
	var body map[string]any
	if wantsDatedErrors(r) {
		w.Header().Set(apiVersionHeader, "2024-01-01")
		body = map[string]any{"code": code, "message": ae.Message}
	} else {
		body = map[string]any{"code": ae.Status, "error_code": code, "msg": ae.Message}
		if ae.Status >= 500 {
			if id := r.Header.Get("X-Request-Id"); id != "" {
				body["error_id"] = id
			}
		}
	}
	if ae.Weak != nil {
		body["weak_password"] = map[string]any{"reasons": ae.Weak.Reasons}
	}
	writeJSON(w, ae.Status, body)
}

// writeJSON writes v with the given status. It does not escape HTML, like
// GoTrue, so links in bodies stay readable.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := marshalJSON(v)
	if err != nil {
		http.Error(w, `{"code":500,"msg":"encode response"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
