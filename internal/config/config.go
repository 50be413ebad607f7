// Package config reads Basalt's process settings from the environment.
//
// Each service owns its Config struct and a ConfigFromEnv(getenv) function;
// this package holds what the binary itself needs (ports, data directory,
// database URLs, key sources, gateway knobs) and the small Reader every
// ConfigFromEnv can use to parse variables and report every bad one at once.
// Taking getenv as a parameter keeps tests free of os.Setenv.
package config

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Reader parses environment variables and collects every problem, so a
// misconfigured process reports all bad variables in one message.
type Reader struct {
	getenv func(string) string
	// prefixes, when set, are tried in order before every name (a
	// service's own prefix, then the reference server's).
	prefixes []string
	errs     *[]error
}

// NewReader returns a Reader over getenv (os.Getenv in the binary).
func NewReader(getenv func(string) string) *Reader {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	return &Reader{getenv: getenv, errs: new([]error)}
}

// WithPrefixes returns a Reader that reads each name as prefix+name, from
// the first prefix whose variable is set (BASALT_AUTH_, then GOTRUE_, so an
// environment written for the reference server carries over). It records
// its problems with r's, under the name of the variable that was set.
func (r *Reader) WithPrefixes(prefixes ...string) *Reader {
	return &Reader{getenv: r.getenv, prefixes: prefixes, errs: r.errs}
}

// lookup returns the variable that supplies name and its trimmed value.
func (r *Reader) lookup(name string) (variable, value string) {
	if len(r.prefixes) == 0 {
		return name, strings.TrimSpace(r.getenv(name))
	}
	for _, p := range r.prefixes {
		if v := strings.TrimSpace(r.getenv(p + name)); v != "" {
			return p + name, v
		}
	}
	return r.prefixes[0] + name, ""
}

// Name returns the variable that supplies name (with prefixes, the first
// one set, else the first prefix's), for problems the caller finds itself.
func (r *Reader) Name(name string) string {
	variable, _ := r.lookup(name)
	return variable
}

// String returns the variable, or def when it is unset or empty.
func (r *Reader) String(name, def string) string {
	if _, v := r.lookup(name); v != "" {
		return v
	}
	return def
}

// Int returns the variable as an integer, or def when unset.
func (r *Reader) Int(name string, def int) int {
	return int(r.IntBetween(name, int64(def), math.MinInt, math.MaxInt))
}

// IntBetween returns the variable as an integer from lo to hi, or def.
func (r *Reader) IntBetween(name string, def, lo, hi int64) int64 {
	variable, v := r.lookup(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case err != nil:
		r.Fail("%s=%q: not an integer", variable, v)
	case n < lo || n > hi:
		r.Fail("%s=%d: must be from %d to %d", variable, n, lo, hi)
	default:
		return n
	}
	return def
}

// Port returns the variable as a TCP port (0-65535), or def when unset.
func (r *Reader) Port(name string, def int) int {
	return int(r.IntBetween(name, int64(def), 0, 65535))
}

// Bool returns the variable as a boolean, or def: true/false, 1/0, yes/no,
// on/off, and t/f as Go's strconv.ParseBool (and so GoTrue) takes them.
func (r *Reader) Bool(name string, def bool) bool {
	variable, v := r.lookup(name)
	switch strings.ToLower(v) {
	case "":
		return def
	case "1", "t", "true", "yes", "on":
		return true
	case "0", "f", "false", "no", "off":
		return false
	}
	r.Fail("%s=%q: not a boolean (use true or false)", variable, v)
	return def
}

// Duration returns the variable as a Go duration ("30s", "1h"), or def.
func (r *Reader) Duration(name string, def time.Duration) time.Duration {
	variable, v := r.lookup(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		r.Fail("%s=%q: not a duration (examples: 30s, 5m, 1h)", variable, v)
		return def
	}
	return d
}

// Seconds is Duration that also takes a whole number of seconds ("3600"),
// the form GoTrue's settings use.
func (r *Reader) Seconds(name string, def time.Duration) time.Duration {
	variable, v := r.lookup(name)
	if v == "" {
		return def
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && n <= math.MaxInt64/int64(time.Second) {
		return time.Duration(n) * time.Second
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		r.Fail("%s=%q: not a number of seconds or a duration (examples: 60, 30s, 5m, 1h)", variable, v)
		return def
	}
	return d
}

// List returns the comma-separated variable, trimmed, without empty items.
func (r *Reader) List(name string, def []string) []string {
	_, v := r.lookup(name)
	if v == "" {
		return def
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Map returns the comma-separated key:value pairs of the variable
// ("15550001111:123456,15550002222:654321"), or def when unset.
func (r *Reader) Map(name string, def map[string]string) map[string]string {
	variable, v := r.lookup(name)
	if v == "" {
		return def
	}
	out := map[string]string{}
	for _, pair := range r.List(name, nil) {
		k, val, ok := strings.Cut(pair, ":")
		if !ok || strings.TrimSpace(k) == "" {
			r.Fail("%s: %q is not key:value", variable, pair)
			continue
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(val)
	}
	return out
}

// Int64 returns the variable as a 64-bit integer, or def when unset.
func (r *Reader) Int64(name string, def int64) int64 {
	return r.IntBetween(name, def, math.MinInt64, math.MaxInt64)
}

// PositiveInt64 is Int64 for settings that must be above zero (sizes, caps).
func (r *Reader) PositiveInt64(name string, def int64) int64 {
	bad := len(*r.errs)
	n := r.Int64(name, def)
	if variable, v := r.lookup(name); len(*r.errs) == bad && n <= 0 && v != "" {
		r.Fail("%s=%d: must be a positive number", variable, n)
		return def
	}
	return n
}

// PositiveDuration is Duration for settings where zero makes no sense.
func (r *Reader) PositiveDuration(name string, def time.Duration) time.Duration {
	variable, v := r.lookup(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		r.Fail("%s=%q: not a positive duration (examples: 30s, 5m, 1h)", variable, v)
		return def
	}
	return d
}

// Parse hands the variable, when set, to parse, a service's own format
// (sizes such as "50MB", enumerations); its error is recorded as a problem
// of that variable.
func (r *Reader) Parse(name string, parse func(string) error) {
	variable, v := r.lookup(name)
	if v == "" {
		return
	}
	if err := parse(v); err != nil {
		r.Fail("%s=%q: %w", variable, v, err)
	}
}

// ParseSecret is Parse for keys and passwords: a problem names the
// variable but never repeats its value, which would land in logs.
func (r *Reader) ParseSecret(name string, parse func(string) error) {
	variable, v := r.lookup(name)
	if v == "" {
		return
	}
	if err := parse(v); err != nil {
		r.Fail("%s: %w", variable, err)
	}
}

// Fail records a problem found by the caller's own validation.
func (r *Reader) Fail(format string, args ...any) {
	*r.errs = append(*r.errs, fmt.Errorf(format, args...))
}

// Err returns every problem found, or nil.
func (r *Reader) Err() error {
	if len(*r.errs) == 0 {
		return nil
	}
	return &Problems{List: *r.errs}
}

// Problems is every bad setting of a configuration: what Reader.Err and
// Join return, so the binary can report all of them in one message.
type Problems struct{ List []error }

func (p *Problems) Error() string {
	return "invalid configuration: " + errors.Join(p.List...).Error()
}

// Unwrap gives errors.Is and errors.As the individual problems.
func (p *Problems) Unwrap() []error { return p.List }

// Join merges the errors of several configurations (the binary's and each
// service's) into one Problems, flattening those that already are, so a
// start-up with several bad variables names them all at once.
func Join(errs ...error) error {
	var all []error
	for _, err := range errs {
		var p *Problems
		switch {
		case err == nil:
		case errors.As(err, &p):
			all = append(all, p.List...)
		default:
			all = append(all, err)
		}
	}
	if len(all) == 0 {
		return nil
	}
	return &Problems{List: all}
}

// Config is the binary's own configuration. Services read theirs separately.
type Config struct {
	// DataDir holds the embedded cluster (pg/), keys.json, state.json and
	// local storage (storage/). Default ".basalt".
	DataDir string
	// SQLDir is the folder with app/ migrations and seed/ files. Default "sql".
	SQLDir string
	// AppDir is the built frontend the app server serves. Default "frontend/dist".
	AppDir string

	// Host is the interface the HTTP servers listen on. Default "0.0.0.0"
	// for serve and "127.0.0.1" for dev.
	Host    string
	APIPort int // BASALT_API_PORT, default 54321
	AppPort int // BASALT_APP_PORT, default 3000; 0 disables the app server
	DBPort  int // BASALT_DB_PORT, default 54322 (embedded cluster only)

	// PublicURL is the API URL clients use (banner, app runtime config).
	// Empty means http://127.0.0.1:<the API port actually bound>.
	PublicURL string

	// DatabaseURL is the admin connection (serve; dev builds its own).
	DatabaseURL string
	// AuthenticatorURL is the user-request connection (role authenticator).
	AuthenticatorURL string
	// AuthenticatorPassword, when set and AuthenticatorURL is empty, is used
	// with DatabaseURL's host and database, and basalt sets it on the role.
	AuthenticatorPassword string
	// ReadReplicaURL is a streaming read replica of DatabaseURL's server
	// that REST reads use (serve only); empty: every read on the primary.
	ReadReplicaURL string
	// ReadReplicaMaxLag: past it reads fall back to the primary (default 5s).
	ReadReplicaMaxLag time.Duration
	// ReadReplicaPoll is how often the replica's position is read (default 100ms).
	ReadReplicaPoll time.Duration

	// Keys: JWTSecret etc. override keys.json (required by serve unless
	// BASALT_KEYS_FILE points at a keys.json).
	JWTSecret     string
	JWTPrivateKey string // PEM of the ES256 key (optional)
	JWTKeyID      string
	JWTSigningAlg string // ES256 (default when a private key is given), HS256, or RS256 with JWTKeys
	// JWTKeys is a JWK set (GoTrue's GOTRUE_JWT_KEYS format) whose signing
	// key signs access tokens; every key verifies.
	JWTKeys         string
	AnonKey         string
	ServiceRoleKey  string
	PublishableKey  string
	SecretKey       string
	KeysFile        string
	ApplyMigrations bool // serve: run migrations at start (default true)
	// PublicDefaultGrants (BASALT_PUBLIC_DEFAULT_GRANTS) grants anon,
	// authenticated and service_role everything on new tables, views and
	// functions in public, as Supabase did before 2026-10-30; false (the
	// default) grants nothing: a table needs an explicit GRANT.
	PublicDefaultGrants bool

	// Third-party auth (THIRD_PARTY_AUTH_*): external issuers whose JWTs
	// REST, storage, realtime and functions accept, as Supabase's
	// [auth.third_party.*] settings name them.
	ThirdParty ThirdParty

	// Gateway knobs.
	CORSOrigins        []string      // default ["*"]
	TrustedProxyHeader string        // e.g. X-Forwarded-For; empty trusts the socket peer only
	ReadHeaderTimeout  time.Duration // default 10s
	ReadTimeout        time.Duration // default 0 (no limit: uploads, websockets)
	WriteTimeout       time.Duration // default 0 (no limit: downloads, websockets)
	IdleTimeout        time.Duration // default 120s
	ShutdownTimeout    time.Duration // default 15s
	LogLevel           string        // debug, info (default), warn, error
}

// ThirdParty names the trusted external issuers.
type ThirdParty struct {
	// Issuers are OIDC issuer URLs, each optionally followed by a space and
	// its JWKS URL (otherwise found by discovery).
	Issuers []string
	// Provider shortcuts, as Supabase's CLI config has them.
	FirebaseProjectID     string
	Auth0Tenant           string
	Auth0TenantRegion     string
	ClerkDomain           string
	CognitoUserPoolID     string
	CognitoUserPoolRegion string
	WorkOSIssuerURL       string
	// DefaultRole is the role of a token without a role claim (anon).
	DefaultRole string
	// JWKSRefresh is how long fetched keys are used (10m).
	JWKSRefresh time.Duration
}

// Mode says which command is loading the configuration.
type Mode int

// The commands whose defaults differ.
const (
	Dev Mode = iota
	Serve
)

// Load reads the configuration for mode from getenv and validates it.
func Load(mode Mode, getenv func(string) string) (Config, error) {
	r := NewReader(getenv)
	c := Config{
		DataDir:               r.String("BASALT_DATA_DIR", ".basalt"),
		SQLDir:                r.String("BASALT_SQL_DIR", "sql"),
		AppDir:                r.String("BASALT_APP_DIR", filepath.Join("frontend", "dist")),
		APIPort:               r.Port("BASALT_API_PORT", 54321),
		AppPort:               r.Port("BASALT_APP_PORT", 3000),
		DBPort:                r.Port("BASALT_DB_PORT", 54322),
		DatabaseURL:           r.String("DATABASE_URL", ""),
		AuthenticatorURL:      r.String("BASALT_AUTHENTICATOR_URL", ""),
		AuthenticatorPassword: r.String("BASALT_AUTHENTICATOR_PASSWORD", ""),
		ReadReplicaURL:        r.String("BASALT_READ_REPLICA_URL", ""),
		ReadReplicaMaxLag:     r.Duration("BASALT_READ_REPLICA_MAX_LAG", 5*time.Second),
		ReadReplicaPoll:       r.Duration("BASALT_READ_REPLICA_POLL", 100*time.Millisecond),
		JWTSecret:             r.String("JWT_SECRET", ""),
		JWTPrivateKey:         r.String("JWT_PRIVATE_KEY", ""),
		JWTKeyID:              r.String("JWT_KEY_ID", ""),
		JWTSigningAlg:         strings.ToUpper(r.String("JWT_SIGNING_ALG", "")),
		JWTKeys:               r.String("JWT_KEYS", r.String("GOTRUE_JWT_KEYS", "")),
		AnonKey:               r.String("ANON_KEY", ""),
		ServiceRoleKey:        r.String("SERVICE_ROLE_KEY", ""),
		PublishableKey:        r.String("PUBLISHABLE_KEY", ""),
		SecretKey:             r.String("SECRET_KEY", ""),
		KeysFile:              r.String("BASALT_KEYS_FILE", ""),
		ApplyMigrations:       r.Bool("BASALT_MIGRATE", true),
		PublicDefaultGrants:   r.Bool("BASALT_PUBLIC_DEFAULT_GRANTS", false),
		ThirdParty: ThirdParty{
			Issuers:               r.List("THIRD_PARTY_AUTH_ISSUERS", nil),
			FirebaseProjectID:     r.String("THIRD_PARTY_AUTH_FIREBASE_PROJECT_ID", ""),
			Auth0Tenant:           r.String("THIRD_PARTY_AUTH_AUTH0_TENANT", ""),
			Auth0TenantRegion:     r.String("THIRD_PARTY_AUTH_AUTH0_TENANT_REGION", ""),
			ClerkDomain:           r.String("THIRD_PARTY_AUTH_CLERK_DOMAIN", ""),
			CognitoUserPoolID:     r.String("THIRD_PARTY_AUTH_COGNITO_USER_POOL_ID", ""),
			CognitoUserPoolRegion: r.String("THIRD_PARTY_AUTH_COGNITO_USER_POOL_REGION", ""),
			WorkOSIssuerURL:       r.String("THIRD_PARTY_AUTH_WORKOS_ISSUER_URL", ""),
			DefaultRole:           r.String("THIRD_PARTY_AUTH_DEFAULT_ROLE", "anon"),
			JWKSRefresh:           r.PositiveDuration("THIRD_PARTY_AUTH_JWKS_REFRESH", 10*time.Minute),
		},
		CORSOrigins:        r.List("BASALT_CORS_ORIGINS", []string{"*"}),
		TrustedProxyHeader: r.String("BASALT_TRUSTED_PROXY_HEADER", ""),
		ReadHeaderTimeout:  r.Duration("BASALT_HTTP_READ_HEADER_TIMEOUT", 10*time.Second),
		ReadTimeout:        r.Duration("BASALT_HTTP_READ_TIMEOUT", 0),
		WriteTimeout:       r.Duration("BASALT_HTTP_WRITE_TIMEOUT", 0),
		IdleTimeout:        r.Duration("BASALT_HTTP_IDLE_TIMEOUT", 120*time.Second),
		ShutdownTimeout:    r.Duration("BASALT_SHUTDOWN_TIMEOUT", 15*time.Second),
		LogLevel:           strings.ToLower(r.String("BASALT_LOG_LEVEL", "info")),
	}
	defHost := "127.0.0.1"
	if mode == Serve {
		defHost = "0.0.0.0"
	}
	c.Host = r.String("BASALT_HOST", defHost)
	c.PublicURL = strings.TrimRight(r.String("API_EXTERNAL_URL", ""), "/")
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			r.Fail("API_EXTERNAL_URL=%q: want an absolute http(s) URL", c.PublicURL)
		}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		r.Fail("BASALT_LOG_LEVEL=%q: want debug, info, warn or error", c.LogLevel)
	}
	switch c.JWTSigningAlg {
	case "", "ES256", "HS256", "RS256":
	default:
		r.Fail("JWT_SIGNING_ALG=%q: want ES256, HS256 or RS256", c.JWTSigningAlg)
	}
	if mode == Serve {
		if c.DatabaseURL == "" {
			r.Fail("DATABASE_URL is required by basalt serve (postgres://user:password@host:5432/db)")
		}
		if c.JWTSecret == "" && c.KeysFile == "" {
			r.Fail("JWT_SECRET (at least 32 characters) or BASALT_KEYS_FILE is required by basalt serve")
		}
		if c.JWTSecret != "" && len(c.JWTSecret) < 32 {
			r.Fail("JWT_SECRET must be at least 32 characters")
		}
	}
	if c.ReadReplicaURL != "" {
		if u, err := url.Parse(c.ReadReplicaURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			r.Fail("BASALT_READ_REPLICA_URL: want a postgres:// URL")
		}
		if c.ReadReplicaPoll <= 0 || c.ReadReplicaMaxLag <= c.ReadReplicaPoll {
			r.Fail("BASALT_READ_REPLICA_MAX_LAG (%s) must be longer than BASALT_READ_REPLICA_POLL (%s), which must be positive",
				c.ReadReplicaMaxLag, c.ReadReplicaPoll)
		}
	}
	for _, o := range c.CORSOrigins {
		if o != "*" && !strings.HasPrefix(o, "http://") && !strings.HasPrefix(o, "https://") {
			r.Fail("BASALT_CORS_ORIGINS: %q is not * or an http(s) origin", o)
		}
	}
	return c, r.Err()
}

// UserDatabaseURL returns the URL user requests connect with (role
// authenticator): AuthenticatorURL, else DatabaseURL with the user replaced
// by authenticator and AuthenticatorPassword. Empty when neither is usable.
func (c Config) UserDatabaseURL() (string, error) {
	if c.AuthenticatorURL != "" {
		return c.AuthenticatorURL, nil
	}
	if c.DatabaseURL == "" || c.AuthenticatorPassword == "" {
		return "", errors.New("set BASALT_AUTHENTICATOR_URL, or BASALT_AUTHENTICATOR_PASSWORD to connect as authenticator to DATABASE_URL's server")
	}
	u, err := url.Parse(c.DatabaseURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", fmt.Errorf("DATABASE_URL must be a postgres:// URL to derive the authenticator URL")
	}
	u.User = url.UserPassword("authenticator", c.AuthenticatorPassword)
	return u.String(), nil
}

// ReplicaUserURL returns the URL REST reads connect to the read replica
// with: ReadReplicaURL as it is when it names a user, else ReadReplicaURL as
// role authenticator with the password of the primary's authenticator
// connection (from AuthenticatorURL or AuthenticatorPassword). Empty when no
// replica is configured.
func (c Config) ReplicaUserURL() (string, error) {
	if c.ReadReplicaURL == "" {
		return "", nil
	}
	u, err := url.Parse(c.ReadReplicaURL)
	if err != nil {
		return "", fmt.Errorf("BASALT_READ_REPLICA_URL: %w", err)
	}
	if u.User != nil && u.User.Username() != "" {
		return c.ReadReplicaURL, nil
	}
	password := c.AuthenticatorPassword
	if c.AuthenticatorURL != "" {
		if au, err := url.Parse(c.AuthenticatorURL); err == nil && au.User != nil {
			password, _ = au.User.Password()
		}
	}
	if password == "" {
		u.User = url.User("authenticator")
	} else {
		u.User = url.UserPassword("authenticator", password)
	}
	return u.String(), nil
}
