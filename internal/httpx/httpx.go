// Package httpx holds the small HTTP helpers every service uses: JSON
// responses, lenient JSON request decoding, and the handler-returns-error
// adapter. Wire-specific error bodies live in each service.
package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// WriteJSON writes v as JSON with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// ErrBodyTooLarge is returned by DecodeJSON when the body exceeds its limit.
var ErrBodyTooLarge = errors.New("request body too large")

// DecodeJSON reads a JSON body of at most limit bytes into v. Unknown fields
// are ignored, as the reference servers do. An empty body leaves v untouched.
func DecodeJSON(r *http.Request, limit int64, v any) error {
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return fmt.Errorf("read body: %w", err)
	}
	if int64(len(body)) > limit {
		return ErrBodyTooLarge
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("parse JSON body: %w", err)
	}
	return nil
}

// HandlerFunc is a handler that returns its error instead of writing it.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// ClientIPHeader is set by the gateway on every request to the address it
// trusts as the client's (the socket peer, or a proxy header when the
// operator configured one). Services read the caller's IP only from here.
const ClientIPHeader = "X-Real-Ip"

// ClientIP returns the caller's IP as the gateway determined it, falling back
// to the socket peer when the request did not pass through the gateway.
func ClientIP(r *http.Request) string {
	if ip := r.Header.Get(ClientIPHeader); ip != "" {
		return ip
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// RetryAfterSeconds is the Retry-After sent with a 503 while the database is
// unavailable (pg.Unavailable): about the time a restarted PostgreSQL needs
// to finish crash recovery, so clients that honour it (postgrest-js retries
// GET/HEAD, auth-js retries refreshes) come back when it is likely up.
const RetryAfterSeconds = "1"

// SetRetryAfter tells the client to retry a 503 later; call it before the
// status is written. Every service calls it for "database unavailable"
// answers, whatever its body format.
func SetRetryAfter(w http.ResponseWriter) {
	w.Header().Set("Retry-After", RetryAfterSeconds)
}

// StatusClientClosedRequest is nginx's code for a request whose client went
// away before the answer was sent; logs and metrics use it instead of the
// error the abandoned handler ran into.
const StatusClientClosedRequest = 499

// ClientGone reports whether r's client closed the connection (or reset
// the stream): the server cancels the request's context only then. Work
// that fails after that failed because nobody is waiting, which is no
// server error.
func ClientGone(r *http.Request) bool {
	return errors.Is(r.Context().Err(), context.Canceled)
}

// AwaitClientGone is ClientGone for a response whose write just failed: the
// server notices the closed connection a moment after the write into it
// does, so it waits up to d for that. A write that failed for another
// reason (the source of a copy) costs the wait.
func AwaitClientGone(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.Context().Done():
	case <-t.C:
	}
	return ClientGone(r)
}
