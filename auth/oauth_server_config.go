package auth

import (
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/config"
)

// OAuthServerConfig configures the OAuth 2.1 / OpenID Connect server
// (the reference's OAUTH_SERVER_* settings): other apps sign users in
// through this project. Off by default.
type OAuthServerConfig struct {
	// Enabled turns the server on; while off, every path of it answers
	// 404 feature_disabled.
	Enabled bool
	// AllowDynamicRegistration lets anyone register a client at
	// POST /oauth/clients/register (RFC 7591), within RateLimits'
	// OAuthClientRegister budget.
	AllowDynamicRegistration bool
	// AuthorizationPath is the app's consent page, joined to SiteURL:
	// /oauth/authorize sends the browser there with ?authorization_id=.
	AuthorizationPath string
	// AuthorizationTTL is how long an authorization request may wait for
	// the user's decision.
	AuthorizationTTL time.Duration
	// CodeTTL is how long an authorization code may wait for its exchange
	// once the user approved (Basalt's own bound; the reference lets a code
	// live until the request's AuthorizationTTL runs out).
	CodeTTL time.Duration
	// DefaultScope is the scope of a request that names none.
	DefaultScope string
}

// defaultOAuthServerConfig is the reference's defaults.
func defaultOAuthServerConfig() OAuthServerConfig {
	return OAuthServerConfig{AuthorizationTTL: 10 * time.Minute, CodeTTL: time.Minute, DefaultScope: "email"}
}

// readOAuthServer reads OAUTH_SERVER_* and the registration budget.
func readOAuthServer(r *config.Reader, c *Config) {
	o := &c.OAuthServer
	o.Enabled = r.Bool("OAUTH_SERVER_ENABLED", o.Enabled)
	o.AllowDynamicRegistration = r.Bool("OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION", o.AllowDynamicRegistration)
	o.AuthorizationPath = r.String("OAUTH_SERVER_AUTHORIZATION_PATH", o.AuthorizationPath)
	o.AuthorizationTTL = r.Seconds("OAUTH_SERVER_AUTHORIZATION_TTL", o.AuthorizationTTL)
	o.CodeTTL = r.Seconds("OAUTH_SERVER_CODE_TTL", o.CodeTTL)
	o.DefaultScope = r.String("OAUTH_SERVER_DEFAULT_SCOPE", o.DefaultScope)
	c.RateLimits.OAuthClientRegister = r.Int("RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER", c.RateLimits.OAuthClientRegister)
}

// oauthServerProblems checks the durations and the default scope.
func (c *Config) oauthServerProblems() []problem {
	o := &c.OAuthServer
	var ps []problem
	if o.AuthorizationTTL <= 0 {
		ps = append(ps, bad("OAUTH_SERVER_AUTHORIZATION_TTL", "%s must be positive", o.AuthorizationTTL))
	}
	if o.CodeTTL <= 0 || o.CodeTTL > 10*time.Minute {
		// RFC 6749 §4.1.2: at most ten minutes.
		ps = append(ps, bad("OAUTH_SERVER_CODE_TTL", "%s must be between 1s and 10m", o.CodeTTL))
	}
	for _, sc := range strings.Fields(o.DefaultScope) {
		if !supportedScope(sc) {
			ps = append(ps, bad("OAUTH_SERVER_DEFAULT_SCOPE", "unsupported scope %q", sc))
		}
	}
	return ps
}
