// Package httpx holds the small HTTP helpers every service uses: JSON
// responses, lenient JSON request decoding, and the handler-returns-error
// adapter. Wire-specific error bodies live in each service.
package httpx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
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
