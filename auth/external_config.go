package auth

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/config"
)

// ProviderConfig configures one external sign-in provider
// (EXTERNAL_<NAME>_* variables, as in the reference).
type ProviderConfig struct {
	// Enabled switches the provider on; a disabled one answers as unknown.
	Enabled bool
	// ClientIDs are the OAuth client ids: the first one signs in through
	// /authorize, and ID tokens for any of them are accepted by the
	// id_token grant (a web and an iOS client, say).
	ClientIDs []string
	// Secret is the OAuth client secret (for Apple, the signed client
	// secret JWT, as the reference takes it).
	Secret string
	// RedirectURI is the callback registered with the provider; default
	// <API_EXTERNAL_URL>/auth/v1/callback.
	RedirectURI string
	// URL is the provider's base URL where the reference takes one
	// (GitHub Enterprise, a Facebook-compatible host).
	URL string
	// Issuer overrides the OIDC issuer of Google and Apple and is the
	// issuer of a custom OIDC provider; discovery runs at
	// <Issuer>/.well-known/openid-configuration.
	Issuer string
	// DiscoveryURL, when set, is where a custom provider's discovery
	// document lives instead.
	DiscoveryURL string
	// Scopes replace a custom provider's default scopes.
	Scopes []string
	// PKCE makes Basalt use PKCE with the provider itself (custom
	// providers that require it).
	PKCE bool
	// SkipNonceCheck accepts ID tokens without the nonce the client sent
	// (id_token grant), as the reference's setting of that name.
	SkipNonceCheck bool
	// EmailOptional lets users without an email address sign up.
	EmailOptional bool
}

// customPrefix marks custom OIDC providers, named custom:<id> on the wire
// as in the reference.
const customPrefix = "custom:"

// readExternal reads EXTERNAL_<NAME>_* for the built-in providers and for
// every custom provider listed in EXTERNAL_CUSTOM_PROVIDERS, plus the
// settings shared by all of them.
func readExternal(r *config.Reader, c *Config) {
	c.External = map[string]ProviderConfig{}
	for _, name := range builtinNames() {
		if p, ok := readProvider(r, builtins[name].envName(), c.APIURL, false); ok {
			c.External[name] = p
		}
	}
	for _, id := range r.List("EXTERNAL_CUSTOM_PROVIDERS", nil) {
		id = strings.ToLower(id)
		env := strings.ToUpper(strings.ReplaceAll(id, "-", "_"))
		// A listed provider is on unless its ENABLED says otherwise.
		p, _ := readProvider(r, env, c.APIURL, true)
		if p.Issuer == "" {
			p.Issuer = p.URL
		}
		c.External[customPrefix+id] = p
	}
	c.IOSBundleID = r.String("EXTERNAL_IOS_BUNDLE_ID", c.IOSBundleID)
	c.AllowedIDTokenIssuers = r.List("EXTERNAL_ALLOWED_ID_TOKEN_ISSUERS", c.AllowedIDTokenIssuers)
	c.ManualLinking = r.Bool("SECURITY_MANUAL_LINKING_ENABLED", c.ManualLinking)
	c.AllowUnverifiedEmailSignIns = r.Bool("MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS", c.AllowUnverifiedEmailSignIns)
	c.OIDCCacheTTL = r.Seconds("EXTERNAL_OIDC_PROVIDER_CACHE_TTL", c.OIDCCacheTTL)
}

// providerSettings are the EXTERNAL_<NAME>_* settings of one provider.
var providerSettings = []string{"ENABLED", "CLIENT_ID", "SECRET", "REDIRECT_URI", "URL", "ISSUER", "DISCOVERY_URL", "SCOPES",
	"PKCE_ENABLED", "SKIP_NONCE_CHECK", "EMAIL_OPTIONAL"}

// readProvider reads EXTERNAL_<env>_*; ok is false when none of them is set.
func readProvider(r *config.Reader, env, apiURL string, enabled bool) (ProviderConfig, bool) {
	k := "EXTERNAL_" + env + "_"
	set := false
	for _, n := range providerSettings {
		set = set || r.String(k+n, "") != ""
	}
	p := ProviderConfig{
		Enabled:   r.Bool(k+"ENABLED", enabled),
		ClientIDs: r.List(k+"CLIENT_ID", nil),
		Secret:    r.String(k+"SECRET", ""),
		// Supabase's default: the callback of this API.
		RedirectURI:    r.String(k+"REDIRECT_URI", apiURL+"/auth/v1/callback"),
		URL:            r.String(k+"URL", ""),
		Issuer:         r.String(k+"ISSUER", ""),
		DiscoveryURL:   r.String(k+"DISCOVERY_URL", ""),
		PKCE:           r.Bool(k+"PKCE_ENABLED", false),
		SkipNonceCheck: r.Bool(k+"SKIP_NONCE_CHECK", false),
		EmailOptional:  r.Bool(k+"EMAIL_OPTIONAL", false),
	}
	if v := r.String(k+"SCOPES", ""); v != "" {
		p.Scopes = strings.FieldsFunc(v, func(c rune) bool { return c == ',' || c == ' ' })
	}
	return p, set
}

// externalProblems checks the enabled providers: the reference refuses to
// use one without a client id and secret, and a custom one needs an issuer.
func (c *Config) externalProblems() []problem {
	if c.OIDCCacheTTL <= 0 {
		c.OIDCCacheTTL = time.Hour
	}
	var ps []problem
	for _, name := range slices.Sorted(maps.Keys(c.External)) {
		p := c.External[name]
		if !p.Enabled {
			continue
		}
		k := "EXTERNAL_" + strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(name, customPrefix), "-", "_")) + "_"
		bp, known := builtins[name]
		if !strings.HasPrefix(name, customPrefix) && !known {
			ps = append(ps, bad(k+"ENABLED", "unknown external provider %q", name))
			continue
		}
		if known {
			k = "EXTERNAL_" + bp.envName() + "_"
		}
		if len(p.ClientIDs) == 0 {
			ps = append(ps, bad(k+"CLIENT_ID", "provider %s is enabled without a client id", name))
		}
		if p.Secret == "" {
			ps = append(ps, bad(k+"SECRET", "provider %s is enabled without a secret", name))
		}
		if strings.HasPrefix(name, customPrefix) && p.Issuer == "" {
			ps = append(ps, bad(k+"ISSUER", "custom provider %s needs an issuer", name))
		}
		for _, u := range [][2]string{{"REDIRECT_URI", p.RedirectURI}, {"URL", p.URL}, {"ISSUER", p.Issuer}, {"DISCOVERY_URL", p.DiscoveryURL}} {
			if u[1] != "" && !absoluteURL(u[1]) {
				ps = append(ps, bad(k+u[0], "%q must be an absolute URL", u[1]))
			}
		}
	}
	return ps
}
