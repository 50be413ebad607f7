package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/oauth2"
)

// oauthProvider is one external provider as the redirect flow uses it.
type oauthProvider interface {
	// authCodeURL is where the browser signs in, carrying state, the
	// app's extra parameters and Basalt's own (nonce, PKCE).
	authCodeURL(state string, app []oauth2.AuthCodeOption, own ...oauth2.AuthCodeOption) string
	// exchange trades the callback's code for the provider's tokens.
	exchange(ctx context.Context, code string, opts ...oauth2.AuthCodeOption) (*oauth2.Token, error)
	// userData reads who signed in; nonce is the flow's OIDC nonce.
	userData(ctx context.Context, tok *oauth2.Token, nonce string) (*providerUser, error)
	// usesNonce: the provider is OIDC and gets a nonce with the request.
	usesNonce() bool
	// requiresPKCE: Basalt uses PKCE with the provider itself.
	requiresPKCE() bool
}

// errProviderNotFound and errProviderDisabled are the reasons /authorize
// gives for a provider it cannot use, in the reference's words.
func errProviderNotFound(name string) error {
	return fmt.Errorf("Provider %s could not be found", name)
}

var errProviderDisabled = errors.New("provider is not enabled")

// providerConfig returns the settings of an enabled provider.
func (s *Service) providerConfig(name string) (ProviderConfig, error) {
	p, ok := s.cfg.External[name]
	if !ok {
		if _, known := builtins[name]; known {
			return p, errProviderDisabled
		}
		return p, errProviderNotFound(name)
	}
	if !p.Enabled {
		return p, errProviderDisabled
	}
	if p.RedirectURI == "" {
		p.RedirectURI = s.cfg.APIURL + "/auth/v1/callback"
	}
	return p, nil
}

// provider builds the named provider for one flow; scopes are the app's
// extra scopes (comma-separated, as auth-js sends them). OIDC providers
// are discovered here (cached), so an unreachable issuer fails the flow,
// not the start of the server.
func (s *Service) provider(ctx context.Context, name, scopes string) (oauthProvider, ProviderConfig, error) {
	name = strings.ToLower(name)
	if _, env := s.cfg.External[name]; strings.HasPrefix(name, customPrefix) && !env {
		return s.storedProvider(ctx, name, scopes)
	}
	pc, err := s.providerConfig(name)
	if err != nil {
		return nil, pc, err
	}
	extra := splitScopes(scopes)
	conf := &oauth2.Config{ClientID: pc.ClientIDs[0], ClientSecret: pc.Secret, RedirectURL: pc.RedirectURI}
	if strings.HasPrefix(name, customPrefix) {
		conf.Scopes = pc.Scopes
		if len(conf.Scopes) == 0 {
			conf.Scopes = []string{"openid", "email", "profile"}
		}
		if len(extra) > 0 {
			conf.Scopes = extra
		}
		if !slices.Contains(conf.Scopes, "openid") {
			conf.Scopes = append([]string{"openid"}, conf.Scopes...)
		}
		return s.oidcFlow(ctx, name, pc, []string{pc.Issuer}, conf)
	}
	bp, ok := builtins[name]
	if !ok {
		return nil, pc, errProviderNotFound(name)
	}
	p, err := bp.redirect(ctx, s, pc, conf, extra)
	return p, pc, err
}

// oidcFlow discovers the provider's first issuer and builds an OIDC
// provider on conf that accepts ID tokens of any of issuers.
func (s *Service) oidcFlow(ctx context.Context, name string, pc ProviderConfig, issuers []string, conf *oauth2.Config) (oauthProvider, ProviderConfig, error) {
	op, err := s.oidc.get(ctx, issuers[0], pc.DiscoveryURL)
	if err != nil {
		return nil, pc, err
	}
	style := conf.Endpoint.AuthStyle
	conf.Endpoint = op.Endpoint()
	conf.Endpoint.AuthStyle = style
	return &oidcProvider{s: s, name: name, conf: conf, oidc: op, audiences: pc.ClientIDs,
		issuers: issuers, skipIssuer: len(issuers) > 1, pkce: pc.PKCE}, pc, nil
}

func orDefault(v, def string) string {
	if v != "" {
		return v
	}
	return def
}

// splitScopes splits the scopes query parameter: auth-js joins them with
// spaces, the reference splits on commas; either works here.
func splitScopes(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}

// hostOf is the reference's chooseHost: the configured base URL without a
// trailing slash, else https://<def>.
func hostOf(base, def string) string {
	if base == "" {
		return "https://" + def
	}
	return strings.TrimSuffix(base, "/")
}

// oauth2Flow is the redirect flow of a plain OAuth 2.0 provider (no ID
// token, no nonce): a provider file embeds it and adds userData, which
// reads who signed in from the provider's API.
type oauth2Flow struct {
	conf *oauth2.Config
}

func (f oauth2Flow) authCodeURL(state string, app []oauth2.AuthCodeOption, own ...oauth2.AuthCodeOption) string {
	return f.conf.AuthCodeURL(state, append(app, own...)...)
}
func (f oauth2Flow) exchange(ctx context.Context, code string, opts ...oauth2.AuthCodeOption) (*oauth2.Token, error) {
	return f.conf.Exchange(ctx, code, opts...)
}
func (f oauth2Flow) usesNonce() bool    { return false }
func (f oauth2Flow) requiresPKCE() bool { return false }
