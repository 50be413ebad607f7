package auth

import (
	"encoding/json"
	"strconv"
	"strings"
)

// providerUser is what a provider told about the user: its addresses and
// the profile claims that become identity_data (the reference's
// UserProvidedData).
type providerUser struct {
	Emails []providerEmail
	Claims providerClaims
}

// providerEmail is one address of the user at the provider.
type providerEmail struct {
	Email    string
	Verified bool
	Primary  bool
}

// primaryEmail picks the address the account uses, as the reference does:
// the primary one, else the last one listed; Claims.Email and
// EmailVerified are set to match.
func (p *providerUser) primaryEmail() providerEmail {
	var pick providerEmail
	for _, e := range p.Emails {
		pick = e
		if e.Primary {
			break
		}
	}
	pick.Email = strings.ToLower(pick.Email)
	p.Claims.Email = pick.Email
	p.Claims.EmailVerified = flexBool(pick.Verified)
	return pick
}

// providerClaims are the standard OIDC profile claims plus the legacy keys
// the reference still fills (full_name, avatar_url, provider_id,
// user_name, slug), under the reference's JSON names.
type providerClaims struct {
	Issuer  string   `json:"iss,omitempty"`
	Subject string   `json:"sub,omitempty"`
	Aud     audience `json:"aud,omitempty"`
	Iat     float64  `json:"iat,omitempty"`
	Exp     float64  `json:"exp,omitempty"`

	Name              string   `json:"name,omitempty"`
	FamilyName        string   `json:"family_name,omitempty"`
	GivenName         string   `json:"given_name,omitempty"`
	MiddleName        string   `json:"middle_name,omitempty"`
	NickName          string   `json:"nickname,omitempty"`
	PreferredUsername string   `json:"preferred_username,omitempty"`
	Profile           string   `json:"profile,omitempty"`
	Picture           string   `json:"picture,omitempty"`
	Website           string   `json:"website,omitempty"`
	Gender            string   `json:"gender,omitempty"`
	Birthdate         string   `json:"birthdate,omitempty"`
	ZoneInfo          string   `json:"zoneinfo,omitempty"`
	Locale            string   `json:"locale,omitempty"`
	Email             string   `json:"email,omitempty"`
	EmailVerified     flexBool `json:"email_verified"`
	Phone             string   `json:"phone,omitempty"`
	PhoneVerified     flexBool `json:"phone_verified"`

	CustomClaims map[string]any `json:"custom_claims,omitempty"`

	FullName    string `json:"full_name,omitempty"`
	AvatarURL   string `json:"avatar_url,omitempty"`
	Slug        string `json:"slug,omitempty"`
	ProviderID  string `json:"provider_id,omitempty"`
	UserNameKey string `json:"user_name,omitempty"`
}

// identityData is the claims as identity_data and user_metadata store
// them: empty claims left out, email_verified and phone_verified always
// present, as the reference's map of the same struct.
func (c providerClaims) identityData() map[string]any {
	b, _ := json.Marshal(c)
	m := map[string]any{}
	_ = json.Unmarshal(b, &m)
	return m
}

// audience is an aud claim: one string or a list.
type audience []string

func (a *audience) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*a = audience{s}
		return nil
	}
	var l []string
	if err := json.Unmarshal(b, &l); err != nil {
		return err
	}
	*a = l
	return nil
}

// flexBool is a boolean claim that some providers send as "true"/"false".
type flexBool bool

func (f *flexBool) UnmarshalJSON(b []byte) error {
	var v bool
	if json.Unmarshal(b, &v) == nil {
		*f = flexBool(v)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, _ = strconv.ParseBool(s)
	*f = flexBool(v)
	return nil
}
