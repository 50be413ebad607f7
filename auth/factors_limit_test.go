package auth

import (
	"testing"
	"time"
)

// verifyWrong sends n wrong codes to challenge ch from ip, each refused as
// a wrong code.
func (u *totpUser) verifyWrong(ip, ch string, n int) {
	u.e.t.Helper()
	for range n {
		wantErr(u.e.t, u.verify(ip, ch, u.wrong()), 422, "mfa_verification_failed", "Invalid TOTP code entered")
	}
}

// Verifications of one factor have a budget, from every address together:
// past it a wrong code and then the right one are refused as the
// reference refuses requests over a rate limit, until the window ends;
// another user's factor is not affected.
func TestMFAVerifyLimitPerFactor(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) {
		autoconfirm(c)
		c.RateLimits.MFAVerifyFactor = 3
	})
	u := newTOTPUser(e, "10.0.0.1", "guessed@example.com")
	ch := u.challenge("10.0.0.1")
	u.verifyWrong("10.0.0.1", ch, 3)
	wantErr(t, u.verify("10.0.0.1", ch, u.wrong()), 429, "over_request_rate_limit", "Request rate limit reached")
	wantErr(t, u.verify("10.0.0.1", ch, u.code()), 429, "over_request_rate_limit", "Request rate limit reached")
	// Another address gains nothing: the budget is the factor's.
	wantErr(t, u.verify("10.0.0.2", u.challenge("10.0.0.2"), u.code()), 429, "over_request_rate_limit", "")

	e.clock.add(time.Second) // last_challenged_at is unique across factors, as in the reference
	other := newTOTPUser(e, "10.0.0.1", "bystander@example.com")
	och := other.challenge("10.0.0.1")
	wantErr(t, other.verify("10.0.0.1", och, other.wrong()), 422, "mfa_verification_failed", "")
	if r := other.verify("10.0.0.1", och, other.code()); r.Status != 200 {
		t.Fatalf("another factor: %d %s", r.Status, r.Body)
	}

	e.clock.add(mfaFactorWindow)
	if r := u.verify("10.0.0.1", u.challenge("10.0.0.1"), u.code()); r.Status != 200 {
		t.Fatalf("after the window: %d %s", r.Status, r.Body)
	}
}

// The per-address budget (MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY) refuses
// an address's verifications past it, and only that address's; as in the
// reference, challenges have a budget of their own.
func TestMFAVerifyLimitPerAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) {
		autoconfirm(c)
		c.RateLimits.MFA = 3
	})
	u := newTOTPUser(e, "10.0.0.1", "noisy@example.com")
	ch := u.challenge("10.0.0.1")
	u.verifyWrong("10.0.0.1", ch, 3)
	wantErr(t, u.verify("10.0.0.1", ch, u.code()), 429, "over_request_rate_limit", "Request rate limit reached")
	u.challenge("10.0.0.1")

	e.clock.add(time.Second) // last_challenged_at is unique across factors, as in the reference
	other := newTOTPUser(e, "10.0.0.2", "elsewhere@example.com")
	if r := other.verify("10.0.0.2", other.challenge("10.0.0.2"), other.code()); r.Status != 200 {
		t.Fatalf("another address: %d %s", r.Status, r.Body)
	}
}
