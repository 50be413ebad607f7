package gateway

import (
	"sync"
	"time"

	"github.com/basaltdev/basalt/internal/jwt"
)

// tokenCache remembers the claims of access tokens that verified, keyed by
// the exact token string, until they expire. A signed-in client sends the
// same token on every request for up to an hour, and ES256 verification is
// the gateway's largest cost; a hit only re-checks the expiry. Only tokens
// that verified are stored, so a cache can never make a bad token pass.
type tokenCache struct {
	mu      sync.Mutex
	max     int
	entries map[string]*jwt.Claims
}

func newTokenCache(max int) *tokenCache {
	return &tokenCache{max: max, entries: map[string]*jwt.Claims{}}
}

// get returns the cached claims of token when they are still valid at now.
func (c *tokenCache) get(token string, now time.Time) (*jwt.Claims, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.entries[token]
	if !ok {
		return nil, false
	}
	if cl.Expires.IsZero() || !now.Before(cl.Expires) {
		delete(c.entries, token)
		return nil, false
	}
	return cl, true
}

// put stores verified claims. Tokens without exp are not cached (they would
// live forever); when full, the cache starts over rather than tracking
// recency: refilling costs one verification per active client.
func (c *tokenCache) put(token string, cl *jwt.Claims) {
	if cl.Expires.IsZero() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[token] = cl
}
