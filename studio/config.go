package studio

import (
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/config"
)

// Config is Studio's configuration. Every variable is listed in
// studio/README.md.
type Config struct {
	// Enabled: `basalt dev` serves Studio unless BASALT_STUDIO_ENABLED=false;
	// `basalt serve` only when BASALT_STUDIO_ENABLED=true or
	// BASALT_STUDIO_PORT is set.
	Enabled bool
	// Host and Port are where Studio listens (default 127.0.0.1:54323).
	// Under `basalt dev` the host must be a loopback address.
	Host string
	Port int
	// Open lets every request from this machine in without signing in: the
	// dev operator. Set by the binary for `basalt dev` only, never from the
	// environment.
	Open bool
	// PublicURL is the origin browsers reach Studio at
	// (BASALT_STUDIO_URL); when set, requests naming another host are
	// refused (DNS rebinding) and Origin must match it. Empty: the request's
	// own Host is the origin.
	PublicURL string
	// SecureCookie marks the session cookie Secure (default: on for serve):
	// browsers then send it over HTTPS only.
	SecureCookie bool
	// SessionTTL is how long a session lasts after sign-in (default 12h).
	SessionTTL time.Duration
	// TrustedProxyHeader names the header a proxy in front writes the
	// client's address to (the binary's BASALT_TRUSTED_PROXY_HEADER); empty
	// trusts the socket peer only.
	TrustedProxyHeader string
	// BootstrapEmail and BootstrapPassword create an operator at start when
	// none with that email exists (BASALT_STUDIO_OPERATOR_EMAIL and
	// BASALT_STUDIO_OPERATOR_PASSWORD).
	BootstrapEmail, BootstrapPassword string
	// SignInMax sign-in attempts per client address per SignInWindow, and
	// a quarter of that per email address (at least 3).
	SignInMax    int
	SignInWindow time.Duration

	// StatementTimeout bounds every statement Studio runs for the SQL
	// editor and the table editor (BASALT_STUDIO_STATEMENT_TIMEOUT, 30s).
	StatementTimeout time.Duration
	// RowCap is the most rows a SQL editor result keeps; the statement is
	// cancelled past it (BASALT_STUDIO_ROW_CAP, 1000).
	RowCap int
	// MaxQueryBytes is the largest SQL text accepted (1 MiB).
	MaxQueryBytes int64
}

// DefaultPort is Studio's port, as in Supabase's local stack.
const DefaultPort = 54323

// ConfigFromEnv reads Studio's settings. dev says the command is `basalt
// dev`, whose defaults differ: Studio on, open on loopback, plain cookies.
func ConfigFromEnv(getenv func(string) string, dev bool) (Config, error) {
	r := config.NewReader(getenv)
	portSet := strings.TrimSpace(getenv("BASALT_STUDIO_PORT")) != ""
	c := Config{
		Enabled:          r.Bool("BASALT_STUDIO_ENABLED", dev || portSet),
		Host:             r.String("BASALT_STUDIO_HOST", "127.0.0.1"),
		Port:             r.Port("BASALT_STUDIO_PORT", DefaultPort),
		Open:             dev,
		PublicURL:        strings.TrimRight(r.String("BASALT_STUDIO_URL", ""), "/"),
		SecureCookie:     r.Bool("BASALT_STUDIO_SECURE_COOKIE", !dev),
		SessionTTL:       r.PositiveDuration("BASALT_STUDIO_SESSION_TTL", 12*time.Hour),
		BootstrapEmail:   strings.ToLower(r.String("BASALT_STUDIO_OPERATOR_EMAIL", "")),
		SignInMax:        int(r.IntBetween("BASALT_STUDIO_SIGN_IN_MAX", 20, 1, 100000)),
		SignInWindow:     r.PositiveDuration("BASALT_STUDIO_SIGN_IN_WINDOW", 5*time.Minute),
		StatementTimeout: r.PositiveDuration("BASALT_STUDIO_STATEMENT_TIMEOUT", 30*time.Second),
		RowCap:           int(r.IntBetween("BASALT_STUDIO_ROW_CAP", 1000, 1, 100000)),
		MaxQueryBytes:    1 << 20,
		// The binary's own variable: Studio sits behind the same proxy.
		TrustedProxyHeader: r.String("BASALT_TRUSTED_PROXY_HEADER", ""),
	}
	r.ParseSecret("BASALT_STUDIO_OPERATOR_PASSWORD", func(v string) error {
		if err := checkPassword(v); err != nil {
			return err
		}
		c.BootstrapPassword = v
		return nil
	})
	if (c.BootstrapEmail == "") != (strings.TrimSpace(getenv("BASALT_STUDIO_OPERATOR_PASSWORD")) == "") {
		r.Fail("BASALT_STUDIO_OPERATOR_EMAIL and BASALT_STUDIO_OPERATOR_PASSWORD go together")
	}
	if c.BootstrapEmail != "" && !strings.Contains(c.BootstrapEmail, "@") {
		r.Fail("BASALT_STUDIO_OPERATOR_EMAIL=%q: not an email address", c.BootstrapEmail)
	}
	if c.PublicURL != "" {
		if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" {
			r.Fail("BASALT_STUDIO_URL=%q: want an origin such as https://studio.example.com", c.PublicURL)
		}
	}
	if dev && c.Enabled && !loopbackHost(c.Host) {
		r.Fail("BASALT_STUDIO_HOST=%q: under basalt dev Studio is open without sign-in, so it listens on a loopback address only", c.Host)
	}
	return c, r.Err()
}

// loopbackHost reports whether host names this machine only.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
