package netsend

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/pg"
)

// Config tunes the sender. The zero value is filled with the defaults.
type Config struct {
	// Disabled stops this node from sending (another node may still).
	Disabled bool
	// Concurrency bounds the requests in flight on this node.
	Concurrency int
	// HostConcurrency bounds the requests in flight to one host, so that a
	// receiver that hangs holds at most this many of the slots.
	HostConcurrency int
	// Poll is how often the queue is looked at without a notification.
	Poll time.Duration
	// TTL is how long answers stay in net._http_response (pg_net.ttl).
	TTL time.Duration
	// MaxTimeout caps a request's timeout_milliseconds.
	MaxTimeout time.Duration
	// MaxResponseBytes caps the body kept in net._http_response.content.
	MaxResponseBytes int64
	// StopGrace is how long requests in flight may finish once the worker
	// is told to stop.
	StopGrace time.Duration
	// Allowed are address ranges that may be reached although they are
	// loopback, link-local or private (the SSRF guard refuses those).
	Allowed []netip.Prefix
	// Listener is the node's shared listener; nil: the worker listens on
	// a connection of its own.
	Listener *pg.Listener
}

// Defaults.
const (
	DefaultConcurrency      = 16
	DefaultPoll             = time.Second
	DefaultTTL              = 6 * time.Hour
	DefaultMaxTimeout       = time.Minute
	DefaultMaxResponseBytes = 1 << 20
	DefaultStopGrace        = 10 * time.Second
)

func (c *Config) defaults() {
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.HostConcurrency <= 0 {
		c.HostConcurrency = max(1, c.Concurrency/4)
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.TTL <= 0 {
		c.TTL = DefaultTTL
	}
	if c.MaxTimeout <= 0 {
		c.MaxTimeout = DefaultMaxTimeout
	}
	if c.MaxResponseBytes <= 0 {
		c.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if c.StopGrace <= 0 {
		c.StopGrace = DefaultStopGrace
	}
}

// ConfigFromEnv reads the sender's settings:
//
//	BASALT_NET_ENABLED             true (false: this node sends nothing)
//	BASALT_NET_CONCURRENCY         requests in flight per node, default 16
//	BASALT_NET_HOST_CONCURRENCY    requests in flight per host, default a quarter of it
//	BASALT_NET_POLL                queue check without a notification, default 1s
//	BASALT_NET_TTL                 how long answers are kept (pg_net.ttl), default 6h
//	BASALT_NET_MAX_TIMEOUT         cap on timeout_milliseconds, default 1m
//	BASALT_NET_MAX_RESPONSE_BYTES  body kept per answer, default 1 MiB
//	BASALT_NET_STOP_GRACE          time requests in flight get at shutdown, default 10s
//	BASALT_NET_ALLOWED_CIDRS       ranges the SSRF guard lets through
//	                               (127.0.0.0/8,::1/128 under basalt dev)
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	r := config.NewReader(getenv)
	c := Config{
		Disabled:         !r.Bool("BASALT_NET_ENABLED", true),
		Concurrency:      int(r.IntBetween("BASALT_NET_CONCURRENCY", DefaultConcurrency, 1, 1024)),
		HostConcurrency:  int(r.IntBetween("BASALT_NET_HOST_CONCURRENCY", 0, 1, 1024)),
		Poll:             r.PositiveDuration("BASALT_NET_POLL", DefaultPoll),
		TTL:              r.PositiveDuration("BASALT_NET_TTL", DefaultTTL),
		MaxTimeout:       r.PositiveDuration("BASALT_NET_MAX_TIMEOUT", DefaultMaxTimeout),
		MaxResponseBytes: r.PositiveInt64("BASALT_NET_MAX_RESPONSE_BYTES", DefaultMaxResponseBytes),
		StopGrace:        r.PositiveDuration("BASALT_NET_STOP_GRACE", DefaultStopGrace),
	}
	r.Parse("BASALT_NET_ALLOWED_CIDRS", func(v string) error {
		p, err := ParseCIDRs(v)
		c.Allowed = p
		return err
	})
	c.defaults()
	return c, r.Err()
}

// ParseCIDRs reads a comma-separated list of address ranges; a bare
// address is a range of one.
func ParseCIDRs(v string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "/") {
			a, err := netip.ParseAddr(s)
			if err != nil {
				return nil, fmt.Errorf("%q is not an address or a CIDR range", s)
			}
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not an address or a CIDR range", s)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
