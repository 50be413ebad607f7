package auth

import (
	"context"
	"strconv"
	"strings"

	"golang.org/x/oauth2"
)

// GitHub (or GitHub Enterprise at EXTERNAL_GITHUB_URL) signs in through
// OAuth 2.0: the profile from /user, the addresses with their verified and
// primary flags from /user/emails.
func init() {
	registerProvider(&builtinProvider{
		name: "github",
		redirect: func(_ context.Context, _ *Service, pc ProviderConfig, conf *oauth2.Config, extra []string) (oauthProvider, error) {
			conf.Scopes = append([]string{"user:email"}, extra...)
			auth := hostOf(pc.URL, "github.com")
			api := hostOf(pc.URL, "api.github.com")
			if !strings.HasSuffix(api, "api.github.com") {
				api += "/api/v3" // GitHub Enterprise serves its API under the site
			}
			conf.Endpoint = oauth2.Endpoint{AuthURL: auth + "/login/oauth/authorize", TokenURL: auth + "/login/oauth/access_token"}
			return &githubProvider{oauth2Flow{conf}, api}, nil
		},
	})
}

type githubProvider struct {
	oauth2Flow
	api string
}

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
