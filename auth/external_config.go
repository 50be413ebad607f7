package auth

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
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

// builtinProviders are the providers with their own settings, by the name
// clients pass as ?provider=.
var builtinProviders = []string{"apple", "facebook", "github", "google"}

// customPrefix marks custom OIDC providers, named custom:<id> on the wire
// as in the reference.
const customPrefix = "custom:"

// readExternal reads EXTERNAL_<NAME>_* for the built-in providers and for
// every custom provider listed in EXTERNAL_CUSTOM_PROVIDERS, plus the
// settings shared by all of them.
func (e *envReader) readExternal(c *Config) {
	c.External = map[string]ProviderConfig{}
	for _, name := range builtinProviders {
		if p, ok := e.provider(strings.ToUpper(name), c.APIURL); ok {
			c.External[name] = p
		}
	}
	var custom []string
	e.list("EXTERNAL_CUSTOM_PROVIDERS", &custom)
	for _, id := range custom {
		id = strings.ToLower(id)
		env := strings.ToUpper(strings.ReplaceAll(id, "-", "_"))
		p, _ := e.provider(env, c.APIURL)
		if e.get("EXTERNAL_"+env+"_ENABLED") == "" {
			// A listed provider is on unless its ENABLED says otherwise.
			p.Enabled = true
		}
		if p.RedirectURI == "" {
			p.RedirectURI = c.APIURL + "/auth/v1/callback"
		}
		if p.Issuer == "" {
			p.Issuer = p.URL
		}
		c.External[customPrefix+id] = p
	}
	e.str("EXTERNAL_IOS_BUNDLE_ID", &c.IOSBundleID)
	e.list("EXTERNAL_ALLOWED_ID_TOKEN_ISSUERS", &c.AllowedIDTokenIssuers)
	e.boolean("SECURITY_MANUAL_LINKING_ENABLED", &c.ManualLinking)
	e.boolean("MAILER_ALLOW_UNVERIFIED_EMAIL_SIGN_INS", &c.AllowUnverifiedEmailSignIns)
	e.duration("EXTERNAL_OIDC_PROVIDER_CACHE_TTL", &c.OIDCCacheTTL)
}

// provider reads EXTERNAL_<env>_*; ok is false when none of them is set.
func (e *envReader) provider(env, apiURL string) (ProviderConfig, bool) {
	var p ProviderConfig
	k := "EXTERNAL_" + env + "_"
	set := false
	for _, n := range []string{"ENABLED", "CLIENT_ID", "SECRET", "REDIRECT_URI", "URL", "ISSUER", "DISCOVERY_URL", "SCOPES",
		"PKCE_ENABLED", "SKIP_NONCE_CHECK", "EMAIL_OPTIONAL"} {
		if e.get(k+n) != "" {
			set = true
		}
	}
	if !set {
		return p, false
	}
	e.boolean(k+"ENABLED", &p.Enabled)
	e.list(k+"CLIENT_ID", &p.ClientIDs)
	e.str(k+"SECRET", &p.Secret)
	e.str(k+"REDIRECT_URI", &p.RedirectURI)
	e.str(k+"URL", &p.URL)
	e.str(k+"ISSUER", &p.Issuer)
	e.str(k+"DISCOVERY_URL", &p.DiscoveryURL)
	if v := e.get(k + "SCOPES"); v != "" {
		p.Scopes = strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })
	}
	e.boolean(k+"PKCE_ENABLED", &p.PKCE)
	e.boolean(k+"SKIP_NONCE_CHECK", &p.SkipNonceCheck)
	e.boolean(k+"EMAIL_OPTIONAL", &p.EmailOptional)
	if p.RedirectURI == "" {
		// Supabase's default: the callback of this API.
		p.RedirectURI = apiURL + "/auth/v1/callback"
	}
	return p, true
}

// validateExternal checks the enabled providers: the reference refuses to
// use one without a client id and secret, and a custom one needs an issuer.
func (c *Config) validateExternal() error {
	if c.OIDCCacheTTL <= 0 {
		c.OIDCCacheTTL = time.Hour
	}
	for name, p := range c.External {
		if !p.Enabled {
			continue
		}
		if !strings.HasPrefix(name, customPrefix) && !slices.Contains(builtinProviders, name) {
			return fmt.Errorf("auth: unknown external provider %q", name)
		}
		if len(p.ClientIDs) == 0 || p.Secret == "" {
			return fmt.Errorf("auth: external provider %s needs a client id and a secret", name)
		}
		if strings.HasPrefix(name, customPrefix) && p.Issuer == "" {
			return fmt.Errorf("auth: custom provider %s needs an issuer (EXTERNAL_<NAME>_ISSUER)", name)
		}
		for _, v := range []string{p.RedirectURI, p.URL, p.Issuer, p.DiscoveryURL} {
			if v == "" {
				continue
			}
			if u, err := url.Parse(v); err != nil || u.Scheme == "" || u.Host == "" {
				return fmt.Errorf("auth: external provider %s: %q must be an absolute URL", name, v)
			}
		}
	}
	return nil
}
