package realtime

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/telemetry"
)

// Config tunes the realtime service. Project limits default to the
// reference server's per-tenant defaults (Basalt is one tenant); each is
// also split by client (see fair.go), with a part reserved for signed-in
// clients.
type Config struct {
	// MaxConcurrentUsers caps the sockets that have joined a channel
	// (max_concurrent_users).
	MaxConcurrentUsers int
	// MaxJoinsPerSecond caps channel joins across every socket
	// (max_joins_per_second).
	MaxJoinsPerSecond int
	// The same limits and those on events and presence events, for one
	// client: a signed-in user, or an anonymous caller's address. Each
	// defaults to a share of the project's limit.
	MaxConcurrentUsersPerClient         int
	MaxJoinsPerSecondPerClient          int
	MaxEventsPerSecondPerClient         int
	MaxPresenceEventsPerSecondPerClient int
	// AuthenticatedReserve is the percentage of each project limit that
	// only signed-in clients may use (0 to 100; default 25, set
	// NoAuthenticatedReserve for none).
	AuthenticatedReserve int
	// MaxChannelsPerClient caps the channels one socket may join
	// (max_channels_per_client).
	MaxChannelsPerClient int
	// MaxEventsPerSecond caps client pushes plus deliveries, averaged over
	// five seconds (max_events_per_second).
	MaxEventsPerSecond int
	// MaxPresenceEventsPerSecond caps presence tracks and syncs
	// (max_presence_events_per_second).
	MaxPresenceEventsPerSecond int
	// MaxPayloadBytes caps a broadcast or presence payload
	// (max_payload_size_in_kb, 3000 KB, counted as the reference does:
	// 1000 bytes a KB plus 500 bytes of slack).
	MaxPayloadBytes int
	// MaxFrameBytes caps one websocket frame (Phoenix's max_frame_size).
	MaxFrameBytes int64
	// MaxQueueBytes is how much may wait to be written to one socket; a
	// client that falls further behind is disconnected, as the reference's
	// per-socket heap limit (WEBSOCKET_MAX_HEAP_SIZE) does.
	MaxQueueBytes int
	// ClientPresenceMax and ClientPresenceWindow limit one channel's
	// presence pushes (5 per 30 s).
	ClientPresenceMax    int
	ClientPresenceWindow time.Duration
	// ErrorBackoff is the pause before a join error reply, and
	// UpgradeErrorBackoff before a refused upgrade: they keep the client's
	// endless rejoin loop slow.
	ErrorBackoff        time.Duration
	UpgradeErrorBackoff time.Duration
	// IdleTimeout closes a socket that sent nothing, not even a heartbeat
	// (Phoenix's 60 s).
	IdleTimeout time.Duration
	// PostgresChanges turns the replication stream on; with it off,
	// postgres_changes subscriptions get a system error.
	PostgresChanges bool
	// SlotName prefixes the logical replication slot (permanent, one per
	// database, created when missing; the node holding the advisory lock
	// reads it). With PostgresChanges off, the slot is dropped if no node
	// reads it.
	SlotName string
	// Cluster turns on cross-node fan-out through LISTEN/NOTIFY (several
	// nodes on one database). Nodes announce themselves every few seconds;
	// a node that hears from no other sends nothing.
	Cluster bool
}

// defaults fills in every unset field.
func (c *Config) defaults() {
	set := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	set(&c.MaxConcurrentUsers, 200)
	set(&c.MaxJoinsPerSecond, 100)
	set(&c.MaxChannelsPerClient, 100)
	set(&c.MaxEventsPerSecond, 100)
	set(&c.MaxPresenceEventsPerSecond, 1000)
	set(&c.MaxConcurrentUsersPerClient, max(1, c.MaxConcurrentUsers/20))
	set(&c.MaxJoinsPerSecondPerClient, max(1, c.MaxJoinsPerSecond/5))
	set(&c.MaxEventsPerSecondPerClient, max(1, c.MaxEventsPerSecond/4))
	set(&c.MaxPresenceEventsPerSecondPerClient, max(1, c.MaxPresenceEventsPerSecond/4))
	switch {
	case c.AuthenticatedReserve == NoAuthenticatedReserve:
		c.AuthenticatedReserve = 0
	case c.AuthenticatedReserve <= 0:
		c.AuthenticatedReserve = 25
	case c.AuthenticatedReserve > 100:
		c.AuthenticatedReserve = 100
	}
	set(&c.MaxPayloadBytes, 3000*1000+500)
	set(&c.MaxQueueBytes, 50_000_000)
	set(&c.ClientPresenceMax, 5)
	if c.MaxFrameBytes <= 0 {
		c.MaxFrameBytes = 5_000_000
	}
	if c.ClientPresenceWindow <= 0 {
		c.ClientPresenceWindow = 30 * time.Second
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 60 * time.Second
	}
	if c.SlotName == "" {
		c.SlotName = "basalt_realtime"
	}
}

// NoAuthenticatedReserve as Config.AuthenticatedReserve reserves nothing
// for signed-in clients.
const NoAuthenticatedReserve = -1

// ConfigFromEnv reads the REALTIME_* variables (documented in
// deploy/README.md).
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	r := config.NewReader(getenv)
	c := Config{
		MaxConcurrentUsers:         r.Int("REALTIME_MAX_CONCURRENT_USERS", 200),
		MaxJoinsPerSecond:          r.Int("REALTIME_MAX_JOINS_PER_SECOND", 100),
		MaxChannelsPerClient:       r.Int("REALTIME_MAX_CHANNELS_PER_CLIENT", 100),
		MaxEventsPerSecond:         r.Int("REALTIME_MAX_EVENTS_PER_SECOND", 100),
		MaxPresenceEventsPerSecond: r.Int("REALTIME_MAX_PRESENCE_EVENTS_PER_SECOND", 1000),
		// 0: a share of the project's limit (defaults).
		MaxConcurrentUsersPerClient:         r.Int("REALTIME_MAX_CONCURRENT_USERS_PER_CLIENT", 0),
		MaxJoinsPerSecondPerClient:          r.Int("REALTIME_MAX_JOINS_PER_SECOND_PER_CLIENT", 0),
		MaxEventsPerSecondPerClient:         r.Int("REALTIME_MAX_EVENTS_PER_SECOND_PER_CLIENT", 0),
		MaxPresenceEventsPerSecondPerClient: r.Int("REALTIME_MAX_PRESENCE_EVENTS_PER_SECOND_PER_CLIENT", 0),
		MaxPayloadBytes:                     r.Int("REALTIME_MAX_PAYLOAD_SIZE_KB", 3000)*1000 + 500,
		MaxQueueBytes:                       r.Int("REALTIME_WEBSOCKET_MAX_QUEUE_BYTES", 50_000_000),
		ErrorBackoff:                        r.Duration("REALTIME_CHANNEL_ERROR_BACKOFF", 5*time.Second),
		UpgradeErrorBackoff:                 r.Duration("REALTIME_UPGRADE_ERROR_BACKOFF", 2*time.Second),
		PostgresChanges:                     r.Bool("REALTIME_POSTGRES_CHANGES", true),
		SlotName:                            r.String("REALTIME_SLOT_NAME", "basalt_realtime"),
		Cluster:                             r.Bool("REALTIME_CLUSTER", true),
	}
	c.AuthenticatedReserve = int(r.IntBetween("REALTIME_AUTHENTICATED_RESERVE_PERCENT", 25, 0, 100))
	if c.AuthenticatedReserve == 0 {
		c.AuthenticatedReserve = NoAuthenticatedReserve
	}
	c.defaults()
	return c, r.Err()
}

// FromEnv builds the service from the REALTIME_* variables: what
// cmd/basalt mounts at /realtime/v1. Its metrics are registered on reg
// when it is not nil.
func FromEnv(getenv func(string) string, admin, user *pgxpool.Pool, keys *jwt.Keys, log *slog.Logger, reg prometheus.Registerer) (*Service, error) {
	cfg, err := ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	opts := []Option{WithLogger(log)}
	if reg != nil {
		m, err := telemetry.NewRealtimeMetrics(reg)
		if err != nil {
			return nil, fmt.Errorf("realtime metrics: %w", err)
		}
		opts = append(opts, WithMetrics(m))
	}
	return New(cfg, admin, user, keys, opts...)
}
