package auth

import (
	"encoding/json"
	"fmt"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
)

// WebAuthn ceremonies (passkeys.go, factors_webauthn.go) are run by
// go-webauthn; this file holds what both features share.

// initWebAuthn builds the relying parties when a WebAuthn feature is on
// (the settings were validated by Config.Validate).
func (s *Service) initWebAuthn() error {
	w := &s.cfg.WebAuthn
	if !w.on() {
		return nil
	}
	var err error
	if s.passkeyRP, err = w.relyingParty(true); err != nil {
		return fmt.Errorf("auth: webauthn relying party: %w", err)
	}
	if s.mfaRP, err = w.relyingParty(false); err != nil {
		return fmt.Errorf("auth: webauthn relying party: %w", err)
	}
	return nil
}

// webAuthnUser presents a user to go-webauthn. The user handle is the
// user id as text, as the reference makes it: a discoverable credential
// hands it back at sign-in, and that is how the account is found.
type webAuthnUser struct {
	u     *user
	creds []webauthn.Credential
}

func (w webAuthnUser) WebAuthnID() []byte { return []byte(w.u.ID) }

// WebAuthnName is the account name authenticators list: the email, else
// the phone number.
func (w webAuthnUser) WebAuthnName() string {
	if w.u.Email != "" {
		return w.u.Email
	}
	return w.u.Phone
}

// WebAuthnDisplayName prefers the name the user gave (user_metadata.name).
func (w webAuthnUser) WebAuthnDisplayName() string {
	if n, ok := w.u.UserMetadata["name"].(string); ok && n != "" {
		return n
	}
	return w.WebAuthnName()
}

func (w webAuthnUser) WebAuthnCredentials() []webauthn.Credential { return w.creds }

// encodeSession and decodeSession store a ceremony's state between its two
// requests, as JSON (a jsonb column), the reference's format.
func encodeSession(sd *webauthn.SessionData) ([]byte, error) {
	b, err := json.Marshal(sd)
	if err != nil {
		return nil, fmt.Errorf("encode webauthn session: %w", err)
	}
	return b, nil
}

func decodeSession(b []byte) (webauthn.SessionData, error) {
	var sd webauthn.SessionData
	if err := json.Unmarshal(b, &sd); err != nil {
		return sd, fmt.Errorf("decode webauthn session: %w", err)
	}
	return sd, nil
}

// parseCreation and parseAssertion read the JSON a browser's
// navigator.credentials.create() / get() result serializes to (auth-js's
// serializeCredentialCreationResponse / serializeCredentialRequestResponse).
func parseCreation(raw json.RawMessage) (*protocol.ParsedCredentialCreationData, error) {
	return protocol.ParseCredentialCreationResponseBytes(raw)
}

func parseAssertion(raw json.RawMessage) (*protocol.ParsedCredentialAssertionData, error) {
	return protocol.ParseCredentialRequestResponseBytes(raw)
}

// aaguidUUID formats an authenticator's AAGUID for a uuid column (nil when
// the authenticator reported none).
func aaguidUUID(aaguid []byte) any {
	if len(aaguid) != 16 {
		return nil
	}
	b := aaguid
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
