package rest

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/config"
)

// Config is the REST service's configuration, named after PostgREST's
// settings.
type Config struct {
	// Schemas are the exposed schemas; the first is the default profile.
	Schemas []string
	// ExtraSearchPath follows the active schema in search_path.
	ExtraSearchPath []string
	// AnonRole is the role of requests without a token.
	AnonRole string
	// MaxRows caps every read node (0 = no cap).
	MaxRows int64
	// TxEnd is commit, commit-allow-override, rollback or
	// rollback-allow-override.
	TxEnd string
	// PlanEnabled allows the application/vnd.pgrst.plan media types.
	PlanEnabled bool
	// AggregatesEnabled allows count(), sum() … in select.
	AggregatesEnabled bool
	// PreRequest is a function ("schema.fn") called before every request.
	PreRequest string
	// OpenAPIMode is follow-privileges, ignore-privileges or disabled.
	OpenAPIMode string
	// OpenAPIAnon also serves the OpenAPI document to callers that present
	// the anon or publishable key. Supabase serves it to the secret and
	// service_role keys only since 2026-03 (changelog 42949); false is that.
	OpenAPIAnon bool
	// PoolAcquisitionTimeout is how long a request waits for a database
	// connection before failing with 504 PGRST003 (PostgREST's
	// db-pool-acquisition-timeout, default 10 s).
	PoolAcquisitionTimeout time.Duration
	// MaxBodyBytes caps a request body (REST_MAX_BODY_BYTES, default
	// DefaultMaxBodyBytes); a larger one is answered 413 before it is
	// parsed. PostgREST leaves this to the proxy in front of it.
	MaxBodyBytes int64
	// postgis is set per schema-cache snapshot: geo+json needs PostGIS.
	postgis bool
}

// DefaultMaxBodyBytes is the default body cap: far above the bulk
// inserts and RPC arguments clients send, small enough that a few
// concurrent bodies at the cap cost little memory.
const DefaultMaxBodyBytes = 8 << 20

func (c *Config) defaults() {
	if len(c.Schemas) == 0 {
		c.Schemas = []string{"public"}
	}
	if c.ExtraSearchPath == nil {
		c.ExtraSearchPath = []string{"public", "extensions"}
	}
	if c.AnonRole == "" {
		c.AnonRole = "anon"
	}
	if c.TxEnd == "" {
		c.TxEnd = "commit"
	}
	if c.OpenAPIMode == "" {
		c.OpenAPIMode = "follow-privileges"
	}
	if c.PoolAcquisitionTimeout <= 0 {
		c.PoolAcquisitionTimeout = 10 * time.Second
	}
	if c.MaxBodyBytes == 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
}

func (c *Config) validate() error {
	switch c.TxEnd {
	case "commit", "commit-allow-override", "rollback", "rollback-allow-override":
	default:
		return fmt.Errorf("rest: invalid tx end %q", c.TxEnd)
	}
	switch c.OpenAPIMode {
	case "follow-privileges", "ignore-privileges", "disabled":
	default:
		return fmt.Errorf("rest: invalid openapi mode %q", c.OpenAPIMode)
	}
	if c.MaxRows < 0 {
		return fmt.Errorf("rest: max rows must not be negative")
	}
	if c.MaxBodyBytes < 0 {
		return fmt.Errorf("rest: max body bytes must be positive")
	}
	return nil
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// ConfigFromEnv reads REST_* variables:
//
//	REST_DB_SCHEMAS            exposed schemas (default public)
//	REST_DB_EXTRA_SEARCH_PATH  default public,extensions
//	REST_DB_ANON_ROLE          default anon
//	REST_DB_MAX_ROWS           default 1000 (0 = unlimited)
//	REST_DB_TX_END             commit | commit-allow-override | rollback | rollback-allow-override
//	REST_DB_PLAN_ENABLED       true/false
//	REST_DB_AGGREGATES_ENABLED true/false
//	REST_DB_PRE_REQUEST        schema.function
//	REST_OPENAPI_MODE          follow-privileges | ignore-privileges | disabled
//	REST_OPENAPI_ANON          true: the anon and publishable keys may read the OpenAPI document too
//	REST_DB_POOL_ACQUISITION_TIMEOUT  Go duration, default 10s
//	REST_MAX_BODY_BYTES        request body cap in bytes, default 8 MiB
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	r := config.NewReader(getenv)
	c := Config{
		Schemas:                r.List("REST_DB_SCHEMAS", nil),
		ExtraSearchPath:        r.List("REST_DB_EXTRA_SEARCH_PATH", nil),
		AnonRole:               r.String("REST_DB_ANON_ROLE", ""),
		TxEnd:                  r.String("REST_DB_TX_END", ""),
		PreRequest:             r.String("REST_DB_PRE_REQUEST", ""),
		OpenAPIMode:            r.String("REST_OPENAPI_MODE", ""),
		MaxRows:                r.Int64("REST_DB_MAX_ROWS", 1000),
		PoolAcquisitionTimeout: r.PositiveDuration("REST_DB_POOL_ACQUISITION_TIMEOUT", 0),
		MaxBodyBytes:           r.PositiveInt64("REST_MAX_BODY_BYTES", 0),
		PlanEnabled:            r.Bool("REST_DB_PLAN_ENABLED", false),
		AggregatesEnabled:      r.Bool("REST_DB_AGGREGATES_ENABLED", false),
		OpenAPIAnon:            r.Bool("REST_OPENAPI_ANON", false),
	}
	c.defaults()
	if err := c.validate(); err != nil {
		r.Fail("%w", err)
	}
	return c, r.Err()
}

// withDBSettings applies in-database configuration: pgrst.* settings of the
// login role (ALTER ROLE authenticator SET pgrst.db_plan_enabled = 'true'),
// as PostgREST reads them. Invalid values are logged and ignored.
func (c Config) withDBSettings(settings [][2]string, log *slog.Logger) Config {
	for _, kv := range settings {
		k, v := kv[0], kv[1]
		if !strings.HasPrefix(k, "pgrst.") {
			continue
		}
		bad := func(err error) {
			if err != nil && log != nil {
				log.Warn("rest: ignoring in-database setting", "key", k, "value", v, "err", err)
			}
		}
		switch strings.TrimPrefix(k, "pgrst.") {
		case "db_plan_enabled":
			b, err := strconv.ParseBool(v)
			bad(err)
			if err == nil {
				c.PlanEnabled = b
			}
		case "db_aggregates_enabled":
			b, err := strconv.ParseBool(v)
			bad(err)
			if err == nil {
				c.AggregatesEnabled = b
			}
		case "db_tx_end":
			switch v {
			case "commit", "commit-allow-override", "rollback", "rollback-allow-override":
				c.TxEnd = v
			default:
				bad(fmt.Errorf("invalid tx end"))
			}
		case "db_max_rows":
			n, err := strconv.ParseInt(v, 10, 64)
			bad(err)
			if err == nil && n >= 0 {
				c.MaxRows = n
			}
		case "db_pre_request":
			c.PreRequest = v
		case "db_extra_search_path":
			c.ExtraSearchPath = splitList(v)
		case "openapi_mode":
			switch v {
			case "follow-privileges", "ignore-privileges", "disabled":
				c.OpenAPIMode = v
			}
		}
	}
	return c
}
