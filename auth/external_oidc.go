package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
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
	pu, err := userFromClaims(tok, provider)
	if err != nil {
		return nil, nil, err
	}
	return tok, pu, nil
}

// oidcProvider signs in through an OpenID Connect provider: Google, Apple
// and custom providers. The ID token of the code exchange is verified
// (signature, issuer, expiry, audience, and the flow's nonce) and is the
// source of the user's claims; a provider that sends none is asked at its
// userinfo endpoint.
type oidcProvider struct {
	s         *Service
	name      string
	conf      *oauth2.Config
	oidc      *oidc.Provider
	audiences []string
	// issuers are the issuers the provider's tokens may carry; with more
	// than one (Apple), discovery ran at the first and the issuer is
	// checked against the list instead of by go-oidc.
	issuers    []string
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
	if p.skipIssuer && !slices.Contains(p.issuers, idt.Issuer) {
		return nil, fmt.Errorf("ID token issuer %q is not one of %s's", idt.Issuer, p.name)
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
