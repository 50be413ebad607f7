package auth

import (
	"context"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// issuerGoogle is Google's OIDC issuer (EXTERNAL_GOOGLE_ISSUER overrides
// it).
const issuerGoogle = "https://accounts.google.com"

// Google signs in through OpenID Connect; its ID tokens are accepted by
// the id_token grant.
func init() {
	registerProvider(&builtinProvider{
		name: "google",
		redirect: func(ctx context.Context, s *Service, pc ProviderConfig, conf *oauth2.Config, extra []string) (oauthProvider, error) {
			conf.Scopes = append([]string{"openid", "email", "profile"}, extra...)
			p, _, err := s.oidcFlow(ctx, "google", pc, googleIssuers(pc), conf)
			return p, err
		},
		idToken: &idTokenRule{rank: 2, issuers: googleIssuers},
		claims:  googleUser,
	})
}

func googleIssuers(pc ProviderConfig) []string { return []string{orDefault(pc.Issuer, issuerGoogle)} }

// googleUser: Google's tokens say whether the address is verified in
// email_verified or, in older ones, verified_email, and name the Workspace
// domain in hd.
func googleUser(tok *oidc.IDToken, c providerClaims) (*providerUser, error) {
	var g struct {
		Email         string   `json:"email"`
		VerifiedEmail flexBool `json:"verified_email"`
		HostedDomain  string   `json:"hd"`
	}
	if err := tok.Claims(&g); err != nil {
		return nil, err
	}
	pu := &providerUser{Claims: providerClaims{Issuer: tok.Issuer, Subject: tok.Subject, Name: c.Name, Picture: c.Picture,
		AvatarURL: c.Picture, FullName: c.Name, ProviderID: tok.Subject}}
	if g.HostedDomain != "" {
		pu.Claims.CustomClaims = map[string]any{"hd": g.HostedDomain}
	}
	if g.Email != "" {
		pu.Emails = []providerEmail{{Email: g.Email, Verified: bool(c.EmailVerified || g.VerifiedEmail), Primary: true}}
	}
	return pu, nil
}
