package auth

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Apple's two OIDC issuers: its discovery document names one, its tokens
// may carry either.
const (
	issuerApple  = "https://appleid.apple.com"
	issuerApple2 = "https://account.apple.com"
)

// Sign in with Apple: OpenID Connect with a form-POST callback that
// carries the user's name on the first sign-in only; its ID tokens are
// accepted by the id_token grant, for the web client ids and the iOS
// bundle id.
func init() {
	registerProvider(&builtinProvider{
		name: "apple",
		redirect: func(ctx context.Context, s *Service, pc ProviderConfig, conf *oauth2.Config, _ []string) (oauthProvider, error) {
			conf.Scopes = []string{"email", "name"}
			conf.Endpoint.AuthStyle = oauth2.AuthStyleInParams
			p, _, err := s.oidcFlow(ctx, "apple", pc, appleIssuers(pc), conf)
			if op, ok := p.(*oidcProvider); ok {
				// Apple requires form_post when name or email is asked
				// for, and rejects parameters it does not know (the
				// reference drops the app's).
				op.formPost, op.dropClientParams = true, true
			}
			return p, err
		},
		idToken: &idTokenRule{rank: 1, issuers: appleIssuers, checkIssuer: checkAppleIssuer, iosAudience: true},
		claims:  appleUser,
		callback: func(params url.Values, pu *providerUser) {
			if raw := params.Get("user"); raw != "" {
				appleName(raw, pu)
			}
		},
	})
}

// appleIssuers are the issuers Apple's tokens may carry, or the one
// configured.
func appleIssuers(pc ProviderConfig) []string {
	if pc.Issuer != "" {
		return []string{pc.Issuer}
	}
	return []string{issuerApple, issuerApple2}
}

// checkAppleIssuer gives the reference's errors for a token that is not
// Apple's.
func checkAppleIssuer(p idTokenParams, tokenIssuer string, parsed bool, issuers []string) error {
	if !parsed {
		return badRequest("validation_failed", "Unable to detect issuer in ID token for Apple provider")
	}
	if !slices.Contains(issuers, tokenIssuer) {
		return badRequest("validation_failed", "Detected ID token issuer is not an Apple ID token issuer")
	}
	if p.Issuer != "" && p.Issuer != tokenIssuer {
		return badRequest("validation_failed", "Provided issuer does not match ID token issuer")
	}
	return nil
}

// appleUser: Apple only sends addresses it has verified, and says whether
// one is a private relay address.
func appleUser(tok *oidc.IDToken, c providerClaims) (*providerUser, error) {
	var a struct {
		IsPrivateEmail *flexBool `json:"is_private_email"`
		AuthTime       *float64  `json:"auth_time"`
		TransferSub    string    `json:"transfer_sub"`
	}
	if err := tok.Claims(&a); err != nil {
		return nil, err
	}
	pu := &providerUser{Claims: providerClaims{Issuer: tok.Issuer, Subject: tok.Subject, ProviderID: tok.Subject}}
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
	pu.Emails = []providerEmail{{Email: c.Email, Verified: true, Primary: true}}
	return pu, nil
}

// appleName reads the name Apple posts (as JSON in the user field) on a
// user's first sign-in only.
func appleName(raw string, pu *providerUser) {
	var u struct {
		Name struct {
			FirstName string `json:"firstName"`
			LastName  string `json:"lastName"`
		} `json:"name"`
	}
	if json.Unmarshal([]byte(raw), &u) == nil {
		name := strings.TrimSpace(u.Name.FirstName + " " + u.Name.LastName)
		pu.Claims.Name, pu.Claims.FullName = name, name
	}
}
