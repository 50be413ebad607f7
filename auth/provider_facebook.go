package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// issuerFacebook is the issuer of Facebook's Limited Login ID tokens.
const issuerFacebook = "https://www.facebook.com"

// Facebook Login (or a compatible host at EXTERNAL_FACEBOOK_URL) signs in
// through OAuth 2.0, reading the profile from the Graph API's /me with an
// appsecret_proof as Facebook recommends; the id_token grant accepts
// Limited Login tokens, which carry no usable nonce.
func init() {
	registerProvider(&builtinProvider{
		name: "facebook",
		redirect: func(_ context.Context, _ *Service, pc ProviderConfig, conf *oauth2.Config, extra []string) (oauthProvider, error) {
			conf.Scopes = append([]string{"email"}, extra...)
			graph := hostOf(pc.URL, "graph.facebook.com")
			conf.Endpoint = oauth2.Endpoint{AuthURL: hostOf(pc.URL, "www.facebook.com") + "/dialog/oauth",
				TokenURL: graph + "/oauth/access_token"}
			return &facebookProvider{oauth2Flow{conf}, graph + "/me?fields=email,first_name,last_name,name,picture"}, nil
		},
		idToken: &idTokenRule{rank: 4, issuers: func(ProviderConfig) []string { return []string{issuerFacebook} }, skipNonce: true},
		claims:  facebookUser,
	})
}

type facebookProvider struct {
	oauth2Flow
	profile string
}

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

// facebookUser maps a Limited Login token: Facebook only shares verified
// addresses.
func facebookUser(tok *oidc.IDToken, c providerClaims) (*providerUser, error) {
	pu := &providerUser{Claims: providerClaims{Issuer: tok.Issuer, Subject: tok.Subject, Name: c.Name, Picture: c.Picture,
		ProviderID: tok.Subject, Email: c.Email, EmailVerified: flexBool(c.Email != "")}}
	if c.Email != "" {
		pu.Emails = []providerEmail{{Email: c.Email, Verified: true, Primary: true}}
	}
	return pu, nil
}
