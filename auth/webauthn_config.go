package auth

import (
	"strings"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/basaltdev/basalt/internal/config"
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
func readWebAuthn(r *config.Reader, c *Config) {
	w := &c.WebAuthn
	w.RPID = r.String("WEBAUTHN_RP_ID", w.RPID)
	w.RPDisplayName = r.String("WEBAUTHN_RP_DISPLAY_NAME", w.RPDisplayName)
	w.RPOrigins = r.List("WEBAUTHN_RP_ORIGINS", w.RPOrigins)
	w.ChallengeExpiry = r.Seconds("WEBAUTHN_CHALLENGE_EXPIRY_DURATION", w.ChallengeExpiry)
	w.PasskeyEnabled = r.Bool("PASSKEY_ENABLED", w.PasskeyEnabled)
	w.MaxPasskeys = r.Int("PASSKEY_MAX_PASSKEYS_PER_USER", w.MaxPasskeys)
	w.MFAEnroll = r.Bool("MFA_WEB_AUTHN_ENROLL_ENABLED", w.MFAEnroll)
	w.MFAVerify = r.Bool("MFA_WEB_AUTHN_VERIFY_ENABLED", w.MFAVerify)
}

// webAuthnProblems checks the relying party when a WebAuthn feature is on.
// The reference only logs a bad relying party and then fails every
// ceremony; refusing to start says what is wrong before anyone signs in.
func (c *Config) webAuthnProblems() []problem {
	w := &c.WebAuthn
	if !w.on() {
		return nil
	}
	var ps []problem
	for _, s := range [][2]string{{"WEBAUTHN_RP_ID", w.RPID}, {"WEBAUTHN_RP_DISPLAY_NAME", w.RPDisplayName}, {"WEBAUTHN_RP_ORIGINS", strings.Join(w.RPOrigins, ",")}} {
		if s[1] == "" {
			ps = append(ps, bad(s[0], "required when passkeys or WebAuthn MFA are on"))
		}
	}
	if len(ps) > 0 {
		return ps
	}
	if w.ChallengeExpiry <= 0 {
		w.ChallengeExpiry = 5 * time.Minute
	}
	if w.MaxPasskeys <= 0 {
		w.MaxPasskeys = 10
	}
	if _, err := w.relyingParty(false); err != nil {
		return []problem{bad("WEBAUTHN_RP_ID", "relying party: %v", err)}
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
