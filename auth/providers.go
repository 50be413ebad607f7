package auth

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// builtinProvider is one external sign-in provider with settings of its
// own (EXTERNAL_<NAME>_*). Each lives in a file of its own
// (provider_<name>.go) that registers it from init; nothing else in the
// service names it: the settings reader, the checks, /settings, the
// redirect flow and the id_token grant all read the registry.
type builtinProvider struct {
	// name is what clients pass as ?provider=, in lower case.
	name string
	// env is the <NAME> of its EXTERNAL_<NAME>_* settings; empty means
	// name in upper case.
	env string
	// redirect builds the provider for one redirect flow (/authorize and
	// /callback). conf carries the client id, secret and callback URL;
	// extra are the app's scopes.
	redirect func(ctx context.Context, s *Service, pc ProviderConfig, conf *oauth2.Config, extra []string) (oauthProvider, error)
	// idToken, when set, lets the id_token grant accept the provider's
	// ID tokens (native sign-in).
	idToken *idTokenRule
	// claims maps a verified ID token to the user; nil means the standard
	// OIDC claims, with email_verified as sent.
	claims func(tok *oidc.IDToken, std providerClaims) (*providerUser, error)
	// callback reads what the provider sends with its callback besides
	// the code (Apple's user field); nil when it sends nothing more.
	callback func(params url.Values, pu *providerUser)
}

// idTokenRule is how the id_token grant recognises and checks one
// provider's tokens.
type idTokenRule struct {
	// rank is the provider's place in the order in which the reference
	// tells providers apart (a request naming one provider and another's
	// issuer goes to the first that matches).
	rank int
	// issuers are the issuers whose tokens are the provider's, given its
	// settings. With more than one, discovery runs at the first and a
	// token's issuer is checked against the list.
	issuers func(pc ProviderConfig) []string
	// checkIssuer, when set, checks the issuer a token names before it is
	// verified, with the provider's own errors (parsed is false when the
	// token could not be read at all); the token's issuer is then the one
	// it is verified against.
	checkIssuer func(p idTokenParams, tokenIssuer string, parsed bool, issuers []string) error
	// skipNonce: the provider's tokens carry no usable nonce.
	skipNonce bool
	// iosAudience: tokens of the configured iOS bundle id are accepted
	// too.
	iosAudience bool
}

// builtins are the registered providers, by name.
var builtins = map[string]*builtinProvider{}

// registerProvider adds a provider to the registry; a provider file
// calls it from init. Names are unique and lower case.
func registerProvider(p *builtinProvider) {
	if p.name == "" || p.name != strings.ToLower(p.name) || strings.HasPrefix(p.name, customPrefix) {
		panic(fmt.Sprintf("auth: bad provider name %q", p.name))
	}
	if _, dup := builtins[p.name]; dup {
		panic("auth: provider " + p.name + " registered twice")
	}
	if p.redirect == nil {
		panic("auth: provider " + p.name + " has no redirect flow")
	}
	builtins[p.name] = p
}

// envName is the <NAME> of the provider's EXTERNAL_<NAME>_* settings.
func (p *builtinProvider) envName() string {
	if p.env != "" {
		return p.env
	}
	return strings.ToUpper(p.name)
}

// builtinNames are the registered providers' names, sorted.
func builtinNames() []string { return slices.Sorted(maps.Keys(builtins)) }

// idTokenProviders are the registered providers the id_token grant
// accepts, in the reference's order.
func idTokenProviders() []*builtinProvider {
	var out []*builtinProvider
	for _, name := range builtinNames() {
		if p := builtins[name]; p.idToken != nil {
			out = append(out, p)
		}
	}
	slices.SortStableFunc(out, func(a, b *builtinProvider) int { return a.idToken.rank - b.idToken.rank })
	return out
}

// userFromClaims maps a verified ID token of the named provider to a
// user: the provider's own mapping when it has one, else the standard
// claims.
func userFromClaims(tok *oidc.IDToken, provider string) (*providerUser, error) {
	var c providerClaims
	if err := tok.Claims(&c); err != nil {
		return nil, err
	}
	if p, ok := builtins[provider]; ok && p.claims != nil {
		return p.claims(tok, c)
	}
	pu := &providerUser{Claims: c}
	if c.Email != "" {
		pu.Emails = []providerEmail{{Email: c.Email, Verified: bool(c.EmailVerified), Primary: true}}
	}
	return pu, nil
}

// listedProviders are the providers the reference's /settings lists
// (every one, offered here or not: auth-js and the Supabase UI read the
// map to decide which buttons to show). A registered provider is listed
// whether or not it is named here.
var listedProviders = []string{"apple", "azure", "bitbucket", "discord", "facebook", "snapchat", "figma", "fly",
	"github", "gitlab", "google", "keycloak", "kakao", "linkedin", "linkedin_oidc", "notion", "spotify", "slack",
	"slack_oidc", "workos", "twitch", "twitter", "zoom"}

// settingsProviders are the names /settings lists: the reference's list
// and every registered provider.
func settingsProviders() []string {
	out := slices.Clone(listedProviders)
	for _, name := range builtinNames() {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}
