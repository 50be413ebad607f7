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

// tick closes the current second and returns its count; the service
// calls it once a second.
func (r *rateCounter) tick() int64 {
	n := r.current.Swap(0)
	r.record(n)
	return n
}

// record closes a second that counted n events.
func (r *rateCounter) record(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buckets[r.next] = n
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

// joinsKey is the project's join budget in basalt.rate_limits; a
// client's share and the anonymous clients' part are keys under it.
const joinsKey = "realtime|joins"

// joinLimiter caps channel joins per second across every node of the
// project: one-second fixed windows in basalt.rate_limits (the shared
// ratelimit store), so nodes behind a load balancer count against one
// budget. A join is counted against its client's share first, then, for an
// anonymous client, the anonymous clients' part, then the project's: a
// join refused by a budget is not counted in the ones after it. A node
// that was refused by a budget remembers when its window ends and refuses
// on its own until then, so a flood costs the database one statement per
// node, budget and window, not one per join.
type joinLimiter struct {
	store            *ratelimit.Store
	total, anon, per int
	log              *slog.Logger

	mu     sync.Mutex
	closed map[string]time.Time // budget key: refused until then
}

func newJoinLimiter(store *ratelimit.Store, cfg Config, log *slog.Logger) *joinLimiter {
	return &joinLimiter{store: store, log: log, total: cfg.MaxJoinsPerSecond,
		anon: cfg.MaxJoinsPerSecond - reserved(cfg.MaxJoinsPerSecond, cfg.AuthenticatedReserve),
		per:  cfg.MaxJoinsPerSecondPerClient, closed: map[string]time.Time{}}
}

// budgets are the budgets a join of client k counts against, in order.
func (j *joinLimiter) budgets(k clientKey) []ratelimit.Budget {
	b := []ratelimit.Budget{{Key: joinsKey + "|" + k.String(), Max: j.per}}
	if !k.signedIn {
		b = append(b, ratelimit.Budget{Key: joinsKey + "|anonymous", Max: j.anon})
	}
	return append(b, ratelimit.Budget{Key: joinsKey, Max: j.total})
}

// allow counts a join of client k and reports whether it fits the budgets.
// When the database cannot count, the join is let through: the limit
// guards against floods, and refusing every join would take realtime down
// with it.
func (j *joinLimiter) allow(ctx context.Context, k clientKey, now time.Time) bool {
	budgets := j.budgets(k)
	j.mu.Lock()
	for _, b := range budgets {
		if now.Before(j.closed[b.Key]) {
			j.mu.Unlock()
			return false
		}
	}
	j.mu.Unlock()
	refused, end, err := j.store.TakeAll(ctx, budgets, time.Second)
	if err != nil {
		j.log.Warn("realtime: count a join", "err", err)
		return true
	}
	if refused < 0 {
		return true
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.closed) >= 1024 {
		for key, until := range j.closed {
			if !now.Before(until) {
				delete(j.closed, key)
			}
		}
	}
	j.closed[budgets[refused].Key] = end
	return false
}

// saturated reports whether client k's own joins are being refused now, as
// far as this node saw.
func (j *joinLimiter) saturated(k clientKey, now time.Time) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return now.Before(j.closed[joinsKey+"|"+k.String()])
}
