package realtime

import (
	"sync"
	"sync/atomic"

	"github.com/basaltdev/basalt/internal/jwt"
)

// Fair shares. Every project-wide budget (connected users, joins, events
// and presence events per second) is also split by client: a signed-in
// caller is one client whatever address it comes from, an anonymous one is
// its address. A client can use up only its own share; the project's limit
// stays the outer bound, and anonymous clients together may use only the
// part of it not reserved for signed-in ones (Config.AuthenticatedReserve),
// so a flood of anonymous sockets cannot lock signed-in users out.

// clientKey names one client.
type clientKey struct {
	signedIn bool
	id       string // the token's sub, or the client's address
}

// clientOf is the client a token (nil: none valid) and address belong to:
// a token of any role but anon is a signed-in caller, known by its sub
// (by its address when it has none, as a service key).
func clientOf(claims *jwt.Claims, addr string) clientKey {
	if claims == nil || claims.Role == "anon" || claims.Role == "" {
		return clientKey{id: addr}
	}
	if claims.Subject != "" {
		return clientKey{signedIn: true, id: "user:" + claims.Subject}
	}
	return clientKey{signedIn: true, id: claims.Role + "@" + addr}
}

// String is the key's name in rate limit keys and between nodes.
func (k clientKey) String() string {
	if k.signedIn {
		return k.id
	}
	return "addr:" + k.id
}

// reserved is the part of limit that anonymous clients may not use.
func reserved(limit, percent int) int { return limit * percent / 100 }

// clientShare is one client's use on this node: its sockets, the ones
// counted as connected users, and its event and presence rates.
type clientShare struct {
	key      clientKey
	refs     int   // sockets holding the share (under clients.mu)
	users    int64 // of them, counted as connected users (under clients.mu)
	events   *rateCounter
	presence *rateCounter
}

// clients is this node's clients by key.
type clients struct {
	mu     sync.Mutex
	byKey  map[clientKey]*clientShare
	users  atomic.Int64 // connected users on this node
	anon   atomic.Int64 // of them, anonymous
	events struct {
		share       int
		total, anon *rateCounter
	}
	presence struct {
		share       int
		total, anon *rateCounter
	}
}

func newClients(cfg Config) *clients {
	cs := &clients{byKey: map[clientKey]*clientShare{}}
	cs.events.share = cfg.MaxEventsPerSecondPerClient
	cs.events.total = newRateCounter(cfg.MaxEventsPerSecond)
	cs.events.anon = newRateCounter(cfg.MaxEventsPerSecond - reserved(cfg.MaxEventsPerSecond, cfg.AuthenticatedReserve))
	cs.presence.share = cfg.MaxPresenceEventsPerSecondPerClient
	cs.presence.total = newRateCounter(cfg.MaxPresenceEventsPerSecond)
	cs.presence.anon = newRateCounter(cfg.MaxPresenceEventsPerSecond - reserved(cfg.MaxPresenceEventsPerSecond, cfg.AuthenticatedReserve))
	return cs
}

// acquire returns k's share with one more socket holding it.
func (cs *clients) acquire(k clientKey) *clientShare {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.acquireLocked(k)
}

func (cs *clients) acquireLocked(k clientKey) *clientShare {
	c := cs.byKey[k]
	if c == nil {
		c = &clientShare{key: k, events: newRateCounter(cs.events.share), presence: newRateCounter(cs.presence.share)}
		cs.byKey[k] = c
	}
	c.refs++
	return c
}

// release drops a socket's hold on its share, and its connected user if it
// was counted. The share itself goes at a tick once its rates are quiet.
func (cs *clients) release(c *clientShare, counted bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c.refs--
	if counted {
		cs.uncount(c)
	}
}

func (cs *clients) count(c *clientShare) {
	c.users++
	cs.users.Add(1)
	if !c.key.signedIn {
		cs.anon.Add(1)
	}
}

func (cs *clients) uncount(c *clientShare) {
	c.users--
	cs.users.Add(-1)
	if !c.key.signedIn {
		cs.anon.Add(-1)
	}
}

// usersOf is k's connected users on this node.
func (cs *clients) usersOf(k clientKey) int64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if c := cs.byKey[k]; c != nil {
		return c.users
	}
	return 0
}

// report is this node's connected users by client, for the other nodes.
func (cs *clients) report() map[string]int64 {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	out := map[string]int64{}
	for k, c := range cs.byKey {
		if c.users > 0 {
			out[k.String()] = c.users
		}
	}
	return out
}

// tick closes the current second of every client's rates. What a client
// adds to the project's rates is capped at its share: a client over its
// share trips its own limit, not everyone's. Shares no socket holds are
// dropped once their rates are back to zero.
func (cs *clients) tick() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var events, anonEvents, presence, anonPresence int64
	for k, c := range cs.byKey {
		e := min(c.events.tick(), int64(cs.events.share))
		p := min(c.presence.tick(), int64(cs.presence.share))
		events += e
		presence += p
		if !k.signedIn {
			anonEvents += e
			anonPresence += p
		}
		if c.refs == 0 && c.events.Avg() == 0 && c.presence.Avg() == 0 {
			delete(cs.byKey, k)
		}
	}
	cs.events.total.record(events)
	cs.events.anon.record(anonEvents)
	cs.presence.total.record(presence)
	cs.presence.anon.record(anonPresence)
}

// overEvents reports whether c, anonymous clients together (when c is
// one) or the project send and receive more messages a second than their
// limit.
func (cs *clients) overEvents(c *clientShare) bool {
	return c.events.Tripped() || (!c.key.signedIn && cs.events.anon.Tripped()) || cs.events.total.Tripped()
}

// eventsRoom reports whether n more events fit c's share, the anonymous
// clients' part (c anonymous) and the project's limit, at their current
// averages: a REST batch must fit as a whole.
func (cs *clients) eventsRoom(c *clientShare, n int64) bool {
	if c.events.Avg()+n > int64(c.events.limit) || cs.events.total.Avg()+n > int64(cs.events.total.limit) {
		return false
	}
	return c.key.signedIn || cs.events.anon.Avg()+n <= int64(cs.events.anon.limit)
}

// overPresence is overEvents for presence events.
func (cs *clients) overPresence(c *clientShare) bool {
	return c.presence.Tripped() || (!c.key.signedIn && cs.presence.anon.Tripped()) || cs.presence.total.Tripped()
}

// errTooManyUsers refuses a join over a connected users limit.
var errTooManyUsers = refuse("ConnectionRateLimitReached: Too many connected users")

// userRoom reports whether client k may have one more connected user: its
// share, the anonymous part (k anonymous) and, unless the socket is
// already counted, the project, each across the project's nodes.
func (s *Service) userRoom(k clientKey, counted bool) bool {
	cfg := s.cfg
	if !counted && s.connectedUsers() >= int64(cfg.MaxConcurrentUsers) {
		return false
	}
	if !k.signedIn {
		anonCap := cfg.MaxConcurrentUsers - reserved(cfg.MaxConcurrentUsers, cfg.AuthenticatedReserve)
		if s.clients.anon.Load()+s.cluster.peerAnonUsers() >= int64(anonCap) {
			return false
		}
	}
	return s.clientUsers(k) < int64(cfg.MaxConcurrentUsersPerClient)
}

// clientUsers is k's connected users across the project's nodes.
func (s *Service) clientUsers(k clientKey) int64 {
	return s.clients.usersOf(k) + s.cluster.peerClientUsers(k.String())
}

// countUser counts c's socket as a connected user of client k; a socket
// counted as an anonymous client that joins as a signed-in one moves to
// that client. It reports whether anything changed.
func (s *Service) countUser(c *conn, k clientKey) bool {
	cs := s.clients
	cs.mu.Lock()
	c.mu.Lock()
	cur := c.client.Load()
	changed := false
	switch {
	case !c.counted:
		c.counted = true
		if cur.key != k {
			cur.refs--
			cur = cs.acquireLocked(k)
			c.client.Store(cur)
		}
		cs.count(cur)
		changed = true
	case !cur.key.signedIn && k.signedIn:
		cs.uncount(cur)
		cur.refs--
		cur = cs.acquireLocked(k)
		c.client.Store(cur)
		cs.count(cur)
		changed = true
	}
	c.mu.Unlock()
	cs.mu.Unlock()
	return changed
}
