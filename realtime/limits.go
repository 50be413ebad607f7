package realtime

import (
	"sync"
	"sync/atomic"
	"time"
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

// joinLimiter caps joins per second across the process: a sliding count
// over the last second.
type joinLimiter struct {
	mu    sync.Mutex
	limit int
	times []time.Time
}

// allow records a join at now unless the last second already holds limit.
func (j *joinLimiter) allow(now time.Time) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	cut := now.Add(-time.Second)
	i := 0
	for i < len(j.times) && !j.times[i].After(cut) {
		i++
	}
	j.times = j.times[i:]
	if len(j.times) >= j.limit {
		return false
	}
	j.times = append(j.times, now)
	return true
}

// saturated reports whether a join now would be refused.
func (j *joinLimiter) saturated(now time.Time) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	cut := now.Add(-time.Second)
	for _, t := range j.times {
		if t.After(cut) {
			n++
		}
	}
	return n >= j.limit
}
