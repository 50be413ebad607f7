package realtime

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/basaltdev/basalt/internal/ratelimit"
)

// rateCounter counts events in one-second buckets and reports whether the
// average over the last five seconds is above a limit, the way the
// reference's RateCounter trips a tenant's limits. Add is a single atomic
// increment, so it can sit on the delivery path.
type rateCounter struct {
	limit   int
	current atomic.Int64
	mu      sync.Mutex
	buckets [5]int64
	next    int
	tripped atomic.Bool
	avg     atomic.Int64
}

func newRateCounter(limit int) *rateCounter { return &rateCounter{limit: limit} }

// Add counts n events.
func (r *rateCounter) Add(n int64) { r.current.Add(n) }

// Tripped reports whether the last average was over the limit.
func (r *rateCounter) Tripped() bool { return r.tripped.Load() }

// Avg is the last five-second average per second.
func (r *rateCounter) Avg() int64 { return r.avg.Load() }

// tick closes the current second; the service calls it once a second.
func (r *rateCounter) tick() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buckets[r.next] = r.current.Swap(0)
	r.next = (r.next + 1) % len(r.buckets)
	var sum int64
	for _, b := range r.buckets {
		sum += b
	}
	avg := sum / int64(len(r.buckets))
	r.avg.Store(avg)
	r.tripped.Store(avg > int64(r.limit))
}

// windowLimiter allows max calls per fixed window: the reference's
// per-channel presence limit (5 pushes per 30 s).
type windowLimiter struct {
	max     int
	window  time.Duration
	count   int
	resetAt time.Time
}

// allow counts a call at now and reports whether it is within the limit.
func (w *windowLimiter) allow(now time.Time) bool {
	if w.resetAt.IsZero() || now.After(w.resetAt) {
		w.count, w.resetAt = 1, now.Add(w.window)
		return true
	}
	if w.count >= w.max {
		return false
	}
	w.count++
	return true
}

// joinsKey is the project's join budget in basalt.rate_limits.
const joinsKey = "realtime|joins"

// joinLimiter caps channel joins per second across every node of the
// project: one-second fixed windows in basalt.rate_limits (the shared
// ratelimit store), so nodes behind a load balancer count against one
// budget. A node that was refused remembers when the window ends and
// refuses on its own until then, so a reconnect storm costs the database
// one statement per node and window, not one per join.
type joinLimiter struct {
	store *ratelimit.Store
	limit int
	log   *slog.Logger

	mu     sync.Mutex
	closed time.Time // refused until then
}

// allow counts a join and reports whether it fits the budget. When the
// database cannot count, the join is let through: the limit guards against
// floods, and refusing every join would take realtime down with it.
func (j *joinLimiter) allow(ctx context.Context, now time.Time) bool {
	if j.saturated(now) {
		return false
	}
	ok, end, err := j.store.Take(ctx, joinsKey, j.limit, time.Second)
	if err != nil {
		j.log.Warn("realtime: count a join", "err", err)
		return true
	}
	if !ok {
		j.mu.Lock()
		j.closed = end
		j.mu.Unlock()
	}
	return ok
}

// saturated reports whether joins are being refused now, as far as this
// node saw.
func (j *joinLimiter) saturated(now time.Time) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return now.Before(j.closed)
}
