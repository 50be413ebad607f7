package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
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
		if slices.Contains(builtinProviders, name) {
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
	switch {
	case name == "google":
		conf.Scopes = append([]string{"openid", "email", "profile"}, extra...)
		return s.oidcFlow(ctx, name, pc, orDefault(pc.Issuer, issuerGoogle), conf, false)
	case name == "apple":
		// Apple's discovery document names an issuer of its own choosing;
		// tokens are checked against the two issuers Apple uses instead.
		conf.Scopes = []string{"email", "name"}
		conf.Endpoint.AuthStyle = oauth2.AuthStyleInParams
		p, pc, err := s.oidcFlow(ctx, name, pc, orDefault(pc.Issuer, issuerApple), conf, pc.Issuer == "")
		if op, ok := p.(*oidcProvider); ok {
			op.formPost, op.dropClientParams = true, true
		}
		return p, pc, err
	case name == "github":
		conf.Scopes = append([]string{"user:email"}, extra...)
		return newGithub(pc, conf), pc, nil
	case name == "facebook":
		conf.Scopes = append([]string{"email"}, extra...)
		return newFacebook(pc, conf), pc, nil
	case strings.HasPrefix(name, customPrefix):
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
		return s.oidcFlow(ctx, name, pc, pc.Issuer, conf, false)
	}
	return nil, pc, errProviderNotFound(name)
}

// oidcFlow discovers issuer and builds an OIDC provider on conf.
func (s *Service) oidcFlow(ctx context.Context, name string, pc ProviderConfig, issuer string, conf *oauth2.Config, skipIssuer bool) (oauthProvider, ProviderConfig, error) {
	op, err := s.oidc.get(ctx, issuer, pc.DiscoveryURL)
	if err != nil {
		return nil, pc, err
	}
	style := conf.Endpoint.AuthStyle
	conf.Endpoint = op.Endpoint()
	conf.Endpoint.AuthStyle = style
	return &oidcProvider{s: s, name: name, conf: conf, oidc: op, audiences: pc.ClientIDs,
		skipIssuer: skipIssuer, pkce: pc.PKCE}, pc, nil
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

// githubProvider signs in with GitHub (or GitHub Enterprise at URL):
// profile from /user, addresses with their verified and primary flags
// from /user/emails.
type githubProvider struct {
	conf *oauth2.Config
	api  string
}

func newGithub(pc ProviderConfig, conf *oauth2.Config) *githubProvider {
	auth := hostOf(pc.URL, "github.com")
	api := hostOf(pc.URL, "api.github.com")
	if !strings.HasSuffix(api, "api.github.com") {
		api += "/api/v3" // GitHub Enterprise serves its API under the site
	}
	conf.Endpoint = oauth2.Endpoint{AuthURL: auth + "/login/oauth/authorize", TokenURL: auth + "/login/oauth/access_token"}
	return &githubProvider{conf: conf, api: api}
}

func (g *githubProvider) authCodeURL(state string, app []oauth2.AuthCodeOption, own ...oauth2.AuthCodeOption) string {
	return g.conf.AuthCodeURL(state, append(app, own...)...)
}
func (g *githubProvider) exchange(ctx context.Context, code string, opts ...oauth2.AuthCodeOption) (*oauth2.Token, error) {
	return g.conf.Exchange(ctx, code, opts...)
}
func (g *githubProvider) usesNonce() bool    { return false }
func (g *githubProvider) requiresPKCE() bool { return false }

func (g *githubProvider) userData(ctx context.Context, tok *oauth2.Token, _ string) (*providerUser, error) {
	var u struct {
		ID        int64  `json:"id"`
		Login     string `json:"login"`
		Name      string `json:"name"`
		AvatarURL string `json:"avatar_url"`
	}
	if err := getJSON(ctx, g.conf, tok, g.api+"/user", &u); err != nil {
		return nil, err
	}
	id := strconv.FormatInt(u.ID, 10)
	pu := &providerUser{Claims: providerClaims{Issuer: g.api, Subject: id, Name: u.Name, PreferredUsername: u.Login,
		AvatarURL: u.AvatarURL, FullName: u.Name, ProviderID: id, UserNameKey: u.Login}}
	var emails []struct {
		Email    string `json:"email"`
		Primary  bool   `json:"primary"`
		Verified bool   `json:"verified"`
	}
	if err := getJSON(ctx, g.conf, tok, g.api+"/user/emails", &emails); err != nil {
		return nil, err
	}
	for _, e := range emails {
		if e.Email != "" {
			pu.Emails = append(pu.Emails, providerEmail{Email: e.Email, Verified: e.Verified, Primary: e.Primary})
		}
	}
	return pu, nil
}

// facebookProvider signs in with Facebook Login: the profile from the
// Graph API's /me, asked with an appsecret_proof as Facebook recommends.
type facebookProvider struct {
	conf    *oauth2.Config
	profile string
}

func newFacebook(pc ProviderConfig, conf *oauth2.Config) *facebookProvider {
	conf.Endpoint = oauth2.Endpoint{AuthURL: hostOf(pc.URL, "www.facebook.com") + "/dialog/oauth",
		TokenURL: hostOf(pc.URL, "graph.facebook.com") + "/oauth/access_token"}
	return &facebookProvider{conf: conf,
		profile: hostOf(pc.URL, "graph.facebook.com") + "/me?fields=email,first_name,last_name,name,picture"}
}

func (f *facebookProvider) authCodeURL(state string, app []oauth2.AuthCodeOption, own ...oauth2.AuthCodeOption) string {
	return f.conf.AuthCodeURL(state, append(app, own...)...)
}
func (f *facebookProvider) exchange(ctx context.Context, code string, opts ...oauth2.AuthCodeOption) (*oauth2.Token, error) {
	return f.conf.Exchange(ctx, code, opts...)
}
func (f *facebookProvider) usesNonce() bool    { return false }
func (f *facebookProvider) requiresPKCE() bool { return false }

func (f *facebookProvider) userData(ctx context.Context, tok *oauth2.Token, _ string) (*providerUser, error) {
	mac := hmac.New(sha256.New, []byte(f.conf.ClientSecret))
	mac.Write([]byte(tok.AccessToken))
	var u struct {
		ID        string `json:"id"`
		Email     string `json:"email"`
		FirstName string `json:"first_name"`
		LastName  string `json:"last_name"`
		Alias     string `json:"name"`
		Picture   struct {
			Data struct {
				URL string `json:"url"`
			} `json:"data"`
		} `json:"picture"`
	}
	if err := getJSON(ctx, f.conf, tok, f.profile+"&appsecret_proof="+url.QueryEscape(hex.EncodeToString(mac.Sum(nil))), &u); err != nil {
		return nil, err
	}
	name := strings.TrimSpace(u.FirstName + " " + u.LastName)
	pu := &providerUser{Claims: providerClaims{Issuer: f.profile, Subject: u.ID, Name: name, NickName: u.Alias,
		Picture: u.Picture.Data.URL, Slug: u.Alias, AvatarURL: u.Picture.Data.URL, FullName: name, ProviderID: u.ID}}
	if u.Email != "" {
		// Facebook only hands out addresses it has confirmed.
		pu.Emails = []providerEmail{{Email: u.Email, Verified: true, Primary: true}}
	}
	return pu, nil
}
