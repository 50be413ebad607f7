package auth

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// WebAuthnConfig configures passkeys and WebAuthn MFA factors: the
// reference's GOTRUE_WEBAUTHN_*, GOTRUE_PASSKEY_* and
// GOTRUE_MFA_WEB_AUTHN_* settings. Both features share the relying party.
type WebAuthnConfig struct {
	// RPID is the relying party id: the app's domain (no scheme, no port),
	// which every credential is bound to.
	RPID string
	// RPDisplayName is the name authenticators show for the app.
	RPDisplayName string
	// RPOrigins are the origins (scheme://host[:port]) whose pages may run
	// a ceremony; a response from any other origin is refused.
	RPOrigins []string
	// ChallengeExpiry is how long a passkey ceremony may take. (MFA
	// challenges use MFAChallengeExpiry, as TOTP ones do.)
	ChallengeExpiry time.Duration
	// PasskeyEnabled turns on /passkeys (else 404 passkey_disabled).
	PasskeyEnabled bool
	// MaxPasskeys caps the passkeys of one user.
	MaxPasskeys int
	// MFAEnroll and MFAVerify allow enrolling and verifying WebAuthn factors.
	MFAEnroll, MFAVerify bool
}

// defaultWebAuthnConfig is the reference's defaults: everything off.
func defaultWebAuthnConfig() WebAuthnConfig {
	return WebAuthnConfig{ChallengeExpiry: 5 * time.Minute, MaxPasskeys: 10}
}

// on reports whether any WebAuthn feature is switched on.
func (w *WebAuthnConfig) on() bool { return w.PasskeyEnabled || w.MFAEnroll || w.MFAVerify }

// readWebAuthn reads the WEBAUTHN_*, PASSKEY_* and MFA_WEB_AUTHN_* settings.
func (e *envReader) readWebAuthn(c *Config) {
	w := &c.WebAuthn
	e.str("WEBAUTHN_RP_ID", &w.RPID)
	e.str("WEBAUTHN_RP_DISPLAY_NAME", &w.RPDisplayName)
	e.list("WEBAUTHN_RP_ORIGINS", &w.RPOrigins)
	e.duration("WEBAUTHN_CHALLENGE_EXPIRY_DURATION", &w.ChallengeExpiry)
	e.boolean("PASSKEY_ENABLED", &w.PasskeyEnabled)
	e.integer("PASSKEY_MAX_PASSKEYS_PER_USER", &w.MaxPasskeys)
	e.boolean("MFA_WEB_AUTHN_ENROLL_ENABLED", &w.MFAEnroll)
	e.boolean("MFA_WEB_AUTHN_VERIFY_ENABLED", &w.MFAVerify)
	e.integer("RATE_LIMIT_PASSKEY", &c.RateLimits.Passkey)
}

// validateWebAuthn checks the relying party when a WebAuthn feature is on.
// The reference only logs a bad relying party and then fails every
// ceremony; refusing to start says what is wrong before anyone signs in.
func (c *Config) validateWebAuthn() error {
	w := &c.WebAuthn
	if !w.on() {
		return nil
	}
	if w.RPID == "" || len(w.RPOrigins) == 0 || w.RPDisplayName == "" {
		return errors.New("auth: passkeys and WebAuthn MFA need WEBAUTHN_RP_ID, WEBAUTHN_RP_DISPLAY_NAME and WEBAUTHN_RP_ORIGINS")
	}
	if w.ChallengeExpiry <= 0 {
		w.ChallengeExpiry = 5 * time.Minute
	}
	if w.MaxPasskeys <= 0 {
		w.MaxPasskeys = 10
	}
	if _, err := w.relyingParty(false); err != nil {
		return fmt.Errorf("auth: webauthn relying party: %w", err)
	}
	return nil
}

// relyingParty builds the go-webauthn relying party. Passkeys must be
// discoverable (the sign-in names no user, the authenticator does) and ask
// for no attestation, as the reference's; MFA factors take the library's
// defaults, as the reference's do.
func (w *WebAuthnConfig) relyingParty(passkey bool) (*webauthn.WebAuthn, error) {
	cfg := &webauthn.Config{RPID: w.RPID, RPDisplayName: w.RPDisplayName, RPOrigins: w.RPOrigins}
	if passkey {
		cfg.AttestationPreference = protocol.PreferNoAttestation
		cfg.AuthenticatorSelection = protocol.AuthenticatorSelection{
			ResidentKey:      protocol.ResidentKeyRequirementRequired,
			UserVerification: protocol.VerificationPreferred,
		}
	}
	return webauthn.New(cfg)
}
