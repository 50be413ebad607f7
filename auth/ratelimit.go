package auth

import (
	"context"
	"net/http"
	"time"

	"github.com/basaltdev/basalt/internal/httpx"
)

// GoTrue's rate limits are decided here, where the grant and the body are
// known; their counts live in the platform's one shared store
// (internal/ratelimit, a Postgres table), so every node of a project
// enforces one budget.

// allow counts one event for key and reports whether it fits in max events
// per period. max 0 disables the limit.
func (s *Service) allow(ctx context.Context, key string, max int, period time.Duration) (bool, error) {
	if max <= 0 {
		return true, nil
	}
	return s.limits.Allow(ctx, key, max, period)
}

// limit is allow as an error: GoTrue's 429 with code and msg once key is
// over its budget.
func (s *Service) limit(ctx context.Context, key string, max int, period time.Duration, code, msg string) error {
	ok, err := s.allow(ctx, key, max, period)
	if err != nil {
		return err
	}
	if !ok {
		return tooMany(code, "%s", msg)
	}
	return nil
}

// limitIP wraps h with a per-client-IP budget of max requests per period
// (GoTrue's 429 over_request_rate_limit). max 0 disables it.
func (s *Service) limitIP(name string, max func() int, period time.Duration, h handlerFunc) handlerFunc {
	// The address is the one the gateway vouches for (X-Real-Ip, taken from
	// a proxy header only when one is configured as trusted), so a client
	// cannot pick a fresh address per request to escape its budget.
	return func(w http.ResponseWriter, r *http.Request) error {
		err := s.limit(r.Context(), name+"|"+httpx.ClientIP(r), max(), period, "over_request_rate_limit", "Request rate limit reached")
		if err != nil {
			return err
		}
		return h(w, r)
	}
}
