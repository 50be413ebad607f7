package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Issuers of the providers whose ID tokens have their own claim shapes.
const (
	issuerGoogle   = "https://accounts.google.com"
	issuerApple    = "https://appleid.apple.com"
	issuerApple2   = "https://account.apple.com"
	issuerFacebook = "https://www.facebook.com"
)

// oidcCache keeps each issuer's discovery document (and with it the
// provider's JWKS, which go-oidc refreshes on an unknown key id) for the
// configured time, so a sign-in does not fetch it again. Failures are not
// kept: the next sign-in tries again.
type oidcCache struct {
	mu      sync.Mutex
	ttl     time.Duration
	client  *http.Client
	entries map[string]oidcEntry
}

type oidcEntry struct {
	p       *oidc.Provider
	fetched time.Time
}

// get returns the provider of issuer, discovered at discoveryURL when set,
// else at <issuer>/.well-known/openid-configuration. The document's
// issuer must be issuer.
func (c *oidcCache) get(ctx context.Context, issuer, discoveryURL string) (*oidc.Provider, error) {
	key := issuer + " " + discoveryURL
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && time.Since(e.fetched) < c.ttl {
		return e.p, nil
	}
	ctx = oidc.ClientContext(ctx, c.client)
	var p *oidc.Provider
	var err error
	if discoveryURL == "" {
		p, err = oidc.NewProvider(ctx, issuer)
	} else {
		p, err = discover(ctx, c.client, issuer, discoveryURL)
	}
	if err != nil {
		return nil, fmt.Errorf("discover OIDC provider %s: %w", issuer, err)
	}
	c.mu.Lock()
	if c.entries == nil {
		c.entries = map[string]oidcEntry{}
	}
	c.entries[key] = oidcEntry{p: p, fetched: time.Now()}
	c.mu.Unlock()
	return p, nil
}

// forget drops what is cached for issuer (every discovery URL), so that
// the next flow discovers it again: the admin API changed or removed a
// provider of that issuer.
func (c *oidcCache) forget(issuer string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key := range c.entries {
		if strings.HasPrefix(key, issuer+" ") {
			delete(c.entries, key)
		}
	}
}

// discover reads a discovery document from an explicit URL (go-oidc only
// looks under the issuer) and checks that it names the expected issuer.
func discover(ctx context.Context, client *http.Client, issuer, discoveryURL string) (*oidc.Provider, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, discoveryURL, nil)
	if err != nil {
		return nil, err
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", discoveryURL, res.Status)
	}
	var pc oidc.ProviderConfig
	if err := json.Unmarshal(body, &pc); err != nil {
		return nil, fmt.Errorf("%s: %w", discoveryURL, err)
	}
	if pc.IssuerURL != issuer {
		return nil, fmt.Errorf("%s names issuer %q, want %q", discoveryURL, pc.IssuerURL, issuer)
	}
	return pc.NewProvider(ctx), nil
}

// verifyIDToken checks an ID token's signature against the provider's
// keys, its issuer and its expiry (audience and nonce are the callers'
// business: each flow accepts different ones), and reads the user from it
// in the shape the provider (google, apple, facebook, else standard
// claims) uses.
func (s *Service) verifyIDToken(ctx context.Context, p *oidc.Provider, raw string, skipIssuer bool, provider string) (*oidc.IDToken, *providerUser, error) {
	v := p.Verifier(&oidc.Config{SkipClientIDCheck: true, SkipIssuerCheck: skipIssuer, Now: s.now})
	tok, err := v.Verify(oidc.ClientContext(ctx, s.httpClient), raw)
	if err != nil {
		return nil, nil, err
	}
	pu, err := idTokenUser(tok, provider)
	if err != nil {
		return nil, nil, err
	}
	return tok, pu, nil
}

// idTokenUser maps an ID token's claims to a user the way the reference
// does for each provider: Apple and Facebook addresses count as verified,
// Google's carry email_verified, others follow the standard claims. (The
// reference tells them apart by issuer; the provider name is the same
// thing here, and also holds when an issuer is configured explicitly.)
func idTokenUser(tok *oidc.IDToken, provider string) (*providerUser, error) {
	var c providerClaims
	if err := tok.Claims(&c); err != nil {
		return nil, err
	}
	pu := &providerUser{}
	switch {
	case provider == "google":
		var g struct {
			Email         string   `json:"email"`
			VerifiedEmail flexBool `json:"verified_email"`
			HostedDomain  string   `json:"hd"`
		}
		if err := tok.Claims(&g); err != nil {
			return nil, err
		}
		pu.Claims = providerClaims{Issuer: tok.Issuer, Subject: tok.Subject, Name: c.Name, Picture: c.Picture,
			AvatarURL: c.Picture, FullName: c.Name, ProviderID: tok.Subject}
		if g.HostedDomain != "" {
			pu.Claims.CustomClaims = map[string]any{"hd": g.HostedDomain}
		}
		if g.Email != "" {
			pu.Emails = []providerEmail{{Email: g.Email, Verified: bool(c.EmailVerified || g.VerifiedEmail), Primary: true}}
		}
	case provider == "apple":
		var a struct {
			IsPrivateEmail *flexBool `json:"is_private_email"`
			AuthTime       *float64  `json:"auth_time"`
			TransferSub    string    `json:"transfer_sub"`
		}
		if err := tok.Claims(&a); err != nil {
			return nil, err
		}
		pu.Claims = providerClaims{Issuer: tok.Issuer, Subject: tok.Subject, ProviderID: tok.Subject}
		custom := map[string]any{}
		if a.IsPrivateEmail != nil {
			custom["is_private_email"] = bool(*a.IsPrivateEmail)
		}
		if a.AuthTime != nil {
			custom["auth_time"] = *a.AuthTime
		}
		if a.TransferSub != "" {
			custom["transfer_sub"] = a.TransferSub
		}
		if len(custom) > 0 {
			pu.Claims.CustomClaims = custom
		}
		// Apple only sends addresses it has verified.
		pu.Emails = []providerEmail{{Email: c.Email, Verified: true, Primary: true}}
	case provider == "facebook":
		// Limited Login tokens: Facebook only shares verified addresses.
		pu.Claims = providerClaims{Issuer: tok.Issuer, Subject: tok.Subject, Name: c.Name, Picture: c.Picture,
			ProviderID: tok.Subject, Email: c.Email, EmailVerified: flexBool(c.Email != "")}
		if c.Email != "" {
			pu.Emails = []providerEmail{{Email: c.Email, Verified: true, Primary: true}}
		}
	default:
		pu.Claims = c
		if c.Email != "" {
			pu.Emails = []providerEmail{{Email: c.Email, Verified: bool(c.EmailVerified), Primary: true}}
		}
	}
	return pu, nil
}

// oidcProvider signs in through an OpenID Connect provider: Google, Apple
// and custom providers. The ID token of the code exchange is verified
// (signature, issuer, expiry, audience, and the flow's nonce) and is the
// source of the user's claims; a provider that sends none is asked at its
// userinfo endpoint.
type oidcProvider struct {
	s          *Service
	name       string
	conf       *oauth2.Config
	oidc       *oidc.Provider
	audiences  []string
	skipIssuer bool
	pkce       bool
	// formPost asks for the callback as a form POST (Apple's
	// response_mode, required when name or email scopes are requested).
	formPost bool
	// dropClientParams ignores the app's extra query parameters (Apple's
	// endpoint rejects unknown ones, and the reference drops them).
	dropClientParams bool
	// shape is a custom provider's own parameters and claim handling
	// (providers of the admin API only).
	shape *claimShaping
}

func (p *oidcProvider) authCodeURL(state string, app []oauth2.AuthCodeOption, own ...oauth2.AuthCodeOption) string {
	opts := app
	if p.dropClientParams {
		opts = nil
	}
	if p.formPost {
		opts = append(opts, oauth2.SetAuthURLParam("response_mode", "form_post"))
	}
	return p.conf.AuthCodeURL(state, append(append(opts, own...), p.shape.authParams()...)...)
}

func (p *oidcProvider) usesNonce() bool    { return true }
func (p *oidcProvider) requiresPKCE() bool { return p.pkce }

func (p *oidcProvider) exchange(ctx context.Context, code string, opts ...oauth2.AuthCodeOption) (*oauth2.Token, error) {
	return p.conf.Exchange(ctx, code, opts...)
}

// userData reads the user from the exchanged tokens: the ID token when
// there is one, checked against the flow's nonce, else the userinfo
// endpoint.
func (p *oidcProvider) userData(ctx context.Context, tok *oauth2.Token, nonce string) (*providerUser, error) {
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return p.userInfo(ctx, tok)
	}
	idt, pu, err := p.s.verifyIDToken(ctx, p.oidc, raw, p.skipIssuer, p.name)
	if err != nil {
		return nil, err
	}
	if p.skipIssuer && idt.Issuer != issuerApple && idt.Issuer != issuerApple2 {
		return nil, fmt.Errorf("ID token issuer %q is not Apple's", idt.Issuer)
	}
	if !containsAny(idt.Audience, p.audiences) {
		return nil, fmt.Errorf("ID token audience %v is not this client's", idt.Audience)
	}
	if nonce != "" && idt.Nonce != nonce {
		return nil, errors.New("ID token nonce does not match the one sent with the request")
	}
	if idt.AccessTokenHash != "" {
		if err := idt.VerifyAccessToken(tok.AccessToken); err != nil {
			return nil, err
		}
	}
	if p.shape != nil {
		var raw map[string]any
		if err := idt.Claims(&raw); err != nil {
			return nil, err
		}
		// The addresses stay those of the token, as in the reference.
		p.shape.apply(&pu.Claims, raw)
	}
	return pu, nil
}

// userInfo asks the provider's userinfo endpoint for the standard claims.
func (p *oidcProvider) userInfo(ctx context.Context, tok *oauth2.Token) (*providerUser, error) {
	if p.oidc.UserInfoEndpoint() == "" {
		return nil, errors.New("the provider returned no ID token and has no userinfo endpoint")
	}
	return userinfoUser(ctx, p.conf, tok, p.oidc.UserInfoEndpoint(), p.shape)
}

// containsAny reports whether one of have is in want (empty ids never
// match).
func containsAny(have, want []string) bool {
	for _, h := range have {
		for _, w := range want {
			if w != "" && h == w {
				return true
			}
		}
	}
	return false
}

// getJSON GETs url with the provider access token and decodes the JSON
// answer into dst; a non-2xx answer is an error carrying its body.
func getJSON(ctx context.Context, conf *oauth2.Config, tok *oauth2.Token, url string, dst any) error {
	res, err := conf.Client(ctx, tok).Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return fmt.Errorf("GET %s: %s: %s", url, res.Status, strings.TrimSpace(string(body)))
	}
	return json.Unmarshal(body, dst)
}
