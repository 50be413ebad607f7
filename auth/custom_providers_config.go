package auth

import (
	"net/url"

	"github.com/basaltdev/basalt/internal/config"
)

// CustomOAuthConfig configures the custom providers managed through the
// admin API (/admin/custom-providers), as the reference's CUSTOM_OAUTH_*
// settings do. Custom providers named by EXTERNAL_CUSTOM_PROVIDERS (from
// the environment) do not depend on it.
type CustomOAuthConfig struct {
	// Enabled turns on the admin API and sign-in with the providers it
	// stores (default on, as in the reference).
	Enabled bool
	// MaxProviders caps how many providers the admin API keeps; 0: no cap.
	MaxProviders int
	// ExternalURL replaces API_EXTERNAL_URL (with its /auth/v1) as the base
	// of the callback these providers send users back to:
	// <ExternalURL>/callback.
	ExternalURL string
}

// readCustomOAuth reads CUSTOM_OAUTH_*.
func readCustomOAuth(r *config.Reader, c *Config) {
	c.CustomOAuth.Enabled = r.Bool("CUSTOM_OAUTH_ENABLED", c.CustomOAuth.Enabled)
	c.CustomOAuth.MaxProviders = r.Int("CUSTOM_OAUTH_MAX_PROVIDERS", c.CustomOAuth.MaxProviders)
	c.CustomOAuth.ExternalURL = r.String("CUSTOM_OAUTH_EXTERNAL_URL", c.CustomOAuth.ExternalURL)
}

// customOAuthProblems checks the callback base, as the reference does.
func (c *Config) customOAuthProblems() []problem {
	if c.CustomOAuth.ExternalURL == "" {
		return nil
	}
	if _, err := url.ParseRequestURI(c.CustomOAuth.ExternalURL); err != nil {
		return []problem{bad("CUSTOM_OAUTH_EXTERNAL_URL", "%q: %v", c.CustomOAuth.ExternalURL, err)}
	}
	return nil
}
