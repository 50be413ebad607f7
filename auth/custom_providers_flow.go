package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/oauth2"

	"github.com/basaltdev/basalt/internal/pg"
)

// storedProvider builds a custom provider of the admin API for one flow,
// as the reference's loadCustomProvider does; the errors become /authorize's
// "Unsupported provider: …". scopes, when given, replace the provider's.
func (s *Service) storedProvider(ctx context.Context, name, scopes string) (oauthProvider, ProviderConfig, error) {
	var pc ProviderConfig
	if !s.cfg.CustomOAuth.Enabled {
		return nil, pc, errors.New("custom OAuth providers are disabled")
	}
	cp, err := customProviderByIdentifier(ctx, s.db, name)
	if errors.Is(err, pg.ErrNotFound) {
		return nil, pc, fmt.Errorf("custom provider %s not found", name)
	}
	if err != nil {
		return nil, pc, fmt.Errorf("error finding custom provider: %w", err)
	}
	if !cp.Enabled {
		return nil, pc, fmt.Errorf("custom provider %s is disabled", name)
	}
	redirect := s.cfg.APIURL + "/auth/v1/callback"
	if base := s.cfg.CustomOAuth.ExternalURL; base != "" {
		redirect = strings.TrimRight(base, "/") + "/callback"
	}
	pc = ProviderConfig{Enabled: true, ClientIDs: append([]string{cp.ClientID}, cp.AcceptableClientIDs...),
		Secret: cp.ClientSecret, RedirectURI: redirect, PKCE: cp.PKCEEnabled, SkipNonceCheck: cp.SkipNonceCheck,
		EmailOptional: cp.EmailOptional, DiscoveryURL: deref(cp.DiscoveryURL), Issuer: deref(cp.Issuer)}
	conf := &oauth2.Config{ClientID: cp.ClientID, ClientSecret: cp.ClientSecret, RedirectURL: redirect, Scopes: cp.Scopes}
	if extra := splitScopes(scopes); len(extra) > 0 {
		conf.Scopes = extra
	}
	shape := &claimShaping{allowlist: cp.CustomClaimsAllowlist, mapping: cp.AttributeMapping, params: cp.AuthorizationParams}
	if !cp.oidc() {
		conf.Endpoint = oauth2.Endpoint{AuthURL: deref(cp.AuthorizationURL), TokenURL: deref(cp.TokenURL)}
		return &oauth2Provider{conf: conf, userinfo: deref(cp.UserinfoURL), pkce: cp.PKCEEnabled, shape: shape}, pc, nil
	}
	conf.Scopes = withOpenID(conf.Scopes)
	p, pc, err := s.oidcFlow(ctx, name, pc, []string{pc.Issuer}, conf)
	if err != nil {
		return nil, pc, fmt.Errorf("error creating OIDC provider: %w", err)
	}
	p.(*oidcProvider).shape = shape
	return p, pc, nil
}

// storedIDTokenIssuer is what the id_token grant accepts for a custom
// OIDC provider of the admin API, with the reference's errors.
func (s *Service) storedIDTokenIssuer(ctx context.Context, name string) (*idTokenIssuer, error) {
	if !s.cfg.CustomOAuth.Enabled {
		return nil, badRequest("validation_failed", "Custom OAuth providers are disabled")
	}
	cp, err := customProviderByIdentifier(ctx, s.db, name)
	if errors.Is(err, pg.ErrNotFound) {
		return nil, badRequest("validation_failed", "Custom provider %q not found", name)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case !cp.Enabled:
		return nil, badRequest("provider_disabled", "Custom provider %q is disabled", name)
	case !cp.oidc():
		return nil, badRequest("validation_failed", "Provider %q is not an OIDC provider", name)
	}
	audiences := append([]string{cp.ClientID}, cp.AcceptableClientIDs...)
	return &idTokenIssuer{provider: name, issuers: []string{*cp.Issuer}, audiences: audiences,
		cfg: ProviderConfig{Enabled: true, Issuer: *cp.Issuer, DiscoveryURL: deref(cp.DiscoveryURL),
			SkipNonceCheck: cp.SkipNonceCheck, EmailOptional: cp.EmailOptional}}, nil
}

// claimShaping is what a custom provider of the admin API adds to a flow,
// as in the reference: its authorization_params on the authorization
// request, raw claims named in custom_claims_allowlist copied into
// custom_claims, then attribute_mapping applied to the claims.
type claimShaping struct {
	allowlist []string
	mapping   map[string]any
	params    map[string]any
}

// authParams are the provider's authorization_params; they come after
// the app's parameters, so they win.
func (c *claimShaping) authParams() []oauth2.AuthCodeOption {
	if c == nil {
		return nil
	}
	var out []oauth2.AuthCodeOption
	for k, v := range c.params {
		if s, ok := v.(string); ok {
			out = append(out, oauth2.SetAuthURLParam(k, s))
		}
	}
	return out
}

// apply copies the allow-listed raw claims and maps the result. A target
// given a string takes the claim of that name (when present), any other
// value is set as it is; a mapping that leaves the claims unreadable is
// dropped, as in the reference.
func (c *claimShaping) apply(claims *providerClaims, raw map[string]any) {
	for _, k := range c.allowlist {
		if v, ok := raw[k]; ok {
			if claims.CustomClaims == nil {
				claims.CustomClaims = map[string]any{}
			}
			claims.CustomClaims[k] = v
		}
	}
	if len(c.mapping) == 0 {
		return
	}
	m := claims.identityData()
	for target, src := range c.mapping {
		if name, ok := src.(string); ok {
			if v, ok := m[name]; ok {
				m[target] = v
			}
			continue
		}
		m[target] = src
	}
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	var mapped providerClaims
	if json.Unmarshal(b, &mapped) == nil {
		*claims = mapped
	}
}

// oauth2Provider signs in through a plain OAuth 2.0 provider of the admin
// API: who signed in is what its userinfo URL answers, as claims.
type oauth2Provider struct {
	conf     *oauth2.Config
	userinfo string
	pkce     bool
	shape    *claimShaping
}

func (p *oauth2Provider) authCodeURL(state string, app []oauth2.AuthCodeOption, own ...oauth2.AuthCodeOption) string {
	return p.conf.AuthCodeURL(state, append(append(app, own...), p.shape.authParams()...)...)
}
func (p *oauth2Provider) exchange(ctx context.Context, code string, opts ...oauth2.AuthCodeOption) (*oauth2.Token, error) {
	return p.conf.Exchange(ctx, code, opts...)
}
func (p *oauth2Provider) usesNonce() bool    { return false }
func (p *oauth2Provider) requiresPKCE() bool { return p.pkce }

func (p *oauth2Provider) userData(ctx context.Context, tok *oauth2.Token, _ string) (*providerUser, error) {
	return userinfoUser(ctx, p.conf, tok, p.userinfo, p.shape)
}

// userinfoUser reads the user from a userinfo endpoint: its answer as
// claims (shaped, for providers of the admin API), the address from them.
func userinfoUser(ctx context.Context, conf *oauth2.Config, tok *oauth2.Token, endpoint string, shape *claimShaping) (*providerUser, error) {
	var raw map[string]any
	if err := getJSON(ctx, conf, tok, endpoint, &raw); err != nil {
		return nil, err
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	var c providerClaims
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("userinfo claims: %w", err)
	}
	if shape != nil {
		shape.apply(&c, raw)
	}
	pu := &providerUser{Claims: c}
	if c.Email != "" {
		pu.Emails = []providerEmail{{Email: c.Email, Verified: bool(c.EmailVerified), Primary: true}}
	}
	return pu, nil
}
