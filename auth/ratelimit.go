package auth

import (
	"net/http"
	"sync"
	"time"

	"github.com/basaltdev/basalt/internal/httpx"
)

// limiter counts requests per key in fixed windows. It is in memory: one
// Basalt process serves a project, so there is nothing to share.
type limiter struct {
	now func() time.Time
	mu  sync.Mutex
	w   map[string]*window
}

type window struct {
	start time.Time
	n     int
}

func newLimiter(now func() time.Time) *limiter {
	return &limiter{now: now, w: map[string]*window{}}
}

// allow counts one event for key and reports whether it fits in max events
// per period.
func (l *limiter) allow(key string, max int, period time.Duration) bool {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.w) > 100000 {
		// Drop stale windows so spoofed addresses cannot grow the map forever.
		for k, w := range l.w {
			if now.Sub(w.start) >= period {
				delete(l.w, k)
			}
		}
	}
	// Fixed windows: simpler than token buckets and enough for abuse
	// budgets measured in minutes.
	w := l.w[key]
	if w == nil || now.Sub(w.start) >= period {
		w = &window{start: now}
		l.w[key] = w
	}
	if w.n >= max {
		return false
	}
	w.n++
	return true
}

// limitIP wraps h with a per-client-IP budget of max requests per period
// (GoTrue's 429 over_request_rate_limit). max 0 disables it.
func (s *Service) limitIP(name string, max func() int, period time.Duration, h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if n := max(); n > 0 && !s.limits.allow(name+"|"+httpx.ClientIP(r), n, period) {
			return tooMany("over_request_rate_limit", "Request rate limit reached")
		}
		return h(w, r)
	}
}
