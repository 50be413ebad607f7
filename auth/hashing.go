package auth

import (
	"net/http"
	"time"
)

// hashPool bounds the bcrypt work running at once. bcrypt is slow on
// purpose, so a burst of sign-ups can take every CPU: unbounded, each
// request queues for the CPU (holding its database connection) until it
// times out, and unrelated requests queue behind them. Bounded, at most
// `workers` hashes run, a request waits briefly for a free worker and is
// otherwise answered 429 with Retry-After at once, which clients can act on.
type hashPool struct {
	slots   chan struct{}
	maxWait time.Duration
}

// hashRetryAfter is the Retry-After of a refusal: a worker frees up within
// one hash, so the client is told to come back after a short pause.
const hashRetryAfter = time.Second

func newHashPool(workers int, maxWait time.Duration) *hashPool {
	return &hashPool{slots: make(chan struct{}, workers), maxWait: maxWait}
}

// do runs f on a worker, waiting at most maxWait for one to be free.
// Waiters are served in arrival order (a channel's queue is FIFO).
func (p *hashPool) do(f func()) error {
	select {
	case p.slots <- struct{}{}:
	default:
		t := time.NewTimer(p.maxWait)
		defer t.Stop()
		select {
		case p.slots <- struct{}{}:
		case <-t.C:
			return &apiError{Status: http.StatusTooManyRequests, Code: "over_request_rate_limit",
				Message: "Request rate limit reached", RetryAfter: hashRetryAfter}
		}
	}
	defer func() { <-p.slots }()
	f()
	return nil
}

// busy reports how many workers are hashing now.
func (p *hashPool) busy() int { return len(p.slots) }
