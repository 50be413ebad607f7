package auth

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// WebAuthn MFA factors: a factor is enrolled without a credential; its
// first challenge is a registration ("create") whose verification stores
// the authenticator's public key and verifies the factor, and every later
// challenge is an assertion ("request") against that key. Either way a
// successful verification raises the session to aal2 (completeMFA).

// webAuthnChallenge is the webauthn part of a challenge's answer: the
// options auth-js hands to navigator.credentials.create() or get(), under
// publicKey.
type webAuthnChallenge struct {
	Type              string `json:"type"`
	CredentialOptions any    `json:"credential_options"`
}

// webAuthnVerify is the webauthn part of a verify request. auth-js also
// sends rpId and rpOrigins; they are ignored, as by the reference: the
// relying party is the server's setting, never the caller's.
type webAuthnVerify struct {
	Type               string          `json:"type"`
	CredentialResponse json.RawMessage `json:"credential_response"`
}

// check validates the verify request's webauthn part, with the reference's
// errors.
func (p *webAuthnVerify) check() error {
	switch {
	case p == nil:
		return badRequest("validation_failed", "WebAuthn config required")
	case p.Type != "create" && p.Type != "request":
		return badRequest("validation_failed", "WebAuthn type must be create or request")
	case len(p.CredentialResponse) == 0 || string(p.CredentialResponse) == "null":
		return badRequest("validation_failed", "credential_response required")
	}
	return nil
}

// beginWebAuthnFactor starts the factor's ceremony: a registration while
// the factor is unverified (excluding the authenticators the user already
// has, so one key is not enrolled twice), else an assertion that only this
// factor's key can answer. It returns the options and the ceremony state
// to keep with the challenge.
func (s *Service) beginWebAuthnFactor(ctx context.Context, u *user, f *factor) (*webAuthnChallenge, []byte, error) {
	var out webAuthnChallenge
	var sd *webauthn.SessionData
	if f.Status == "verified" {
		creds, err := factorCredentials(ctx, s.db, u.ID, f.ID)
		if err != nil {
			return nil, nil, err
		}
		assertion, session, err := s.mfaRP.BeginLogin(webAuthnUser{u: u, creds: creds})
		if err != nil {
			return nil, nil, internalErr(fmt.Errorf("begin webauthn login: %w", err))
		}
		out, sd = webAuthnChallenge{Type: "request", CredentialOptions: assertion}, session
	} else {
		creds, err := factorCredentials(ctx, s.db, u.ID, "")
		if err != nil {
			return nil, nil, err
		}
		creation, session, err := s.mfaRP.BeginRegistration(webAuthnUser{u: u, creds: creds},
			webauthn.WithExclusions(webauthn.Credentials(creds).CredentialDescriptors()))
		if err != nil {
			return nil, nil, internalErr(fmt.Errorf("begin webauthn registration: %w", err))
		}
		out, sd = webAuthnChallenge{Type: "create", CredentialOptions: creation}, session
	}
	b, err := encodeSession(sd)
	if err != nil {
		return nil, nil, err
	}
	return &out, b, nil
}

// finishWebAuthnFactor checks the authenticator's response to challenge ch
// and records what it proved: the new key of a factor being enrolled, or
// the signature counter of a known one. The response must be of the kind
// the challenge asked for, so an assertion challenge cannot be answered by
// registering some other authenticator.
func (s *Service) finishWebAuthnFactor(ctx context.Context, tx pgx.Tx, u *user, f *factor, ch *mfaChallenge, p *webAuthnVerify) error {
	if ch.SessionData == nil {
		return unprocessable("mfa_factor_not_found", "MFA factor with the provided challenge ID not found")
	}
	sd, err := decodeSession(ch.SessionData)
	if err != nil {
		return err
	}
	want := "request"
	if f.Status != "verified" {
		want = "create"
	}
	if p.Type != want {
		return badRequest("validation_failed", "WebAuthn type must be %s for this factor", want)
	}
	failed := func(err error) error {
		e := badRequest("webauthn_verification_failed", "Credential verification failed")
		e.Cause = err
		return e
	}
	if want == "create" {
		parsed, err := parseCreation(p.CredentialResponse)
		if err != nil {
			return badRequest("validation_failed", "Invalid credential_response")
		}
		creds, err := factorCredentials(ctx, tx, u.ID, "")
		if err != nil {
			return err
		}
		cred, err := s.mfaRP.CreateCredential(webAuthnUser{u: u, creds: creds}, sd, parsed)
		if err != nil {
			return failed(err)
		}
		return saveFactorCredential(ctx, tx, f.ID, cred)
	}
	parsed, err := parseAssertion(p.CredentialResponse)
	if err != nil {
		return badRequest("validation_failed", "Invalid credential_response")
	}
	creds, err := factorCredentials(ctx, tx, u.ID, f.ID)
	if err != nil {
		return err
	}
	cred, err := s.mfaRP.ValidateLogin(webAuthnUser{u: u, creds: creds}, sd, parsed)
	if err != nil {
		return failed(err)
	}
	// A counter that went backwards means the key was copied.
	if cred.Authenticator.CloneWarning {
		return failed(fmt.Errorf("signature counter of factor %s went backwards", f.ID))
	}
	return saveFactorCredential(ctx, tx, f.ID, cred)
}

// saveFactorCredential stores the factor's credential in the reference's
// format (go-webauthn's Credential as JSON) with its authenticator model.
func saveFactorCredential(ctx context.Context, tx pgx.Tx, factorID string, cred *webauthn.Credential) error {
	b, err := json.Marshal(cred)
	if err != nil {
		return fmt.Errorf("encode webauthn credential: %w", err)
	}
	_, err = tx.Exec(ctx, `UPDATE auth.mfa_factors SET web_authn_credential = $2, web_authn_aaguid = $3 WHERE id = $1`,
		factorID, b, aaguidUUID(cred.Authenticator.AAGUID))
	if err != nil {
		return fmt.Errorf("store credential of factor %s: %w", factorID, err)
	}
	return nil
}

// factorCredentials lists the keys of the user's verified WebAuthn factors,
// or of factor factorID alone when it is not "".
func factorCredentials(ctx context.Context, db pg.DB, userID, factorID string) ([]webauthn.Credential, error) {
	rows, err := db.Query(ctx, `SELECT web_authn_credential FROM auth.mfa_factors
		WHERE user_id = $1 AND factor_type = 'webauthn' AND status = 'verified' AND web_authn_credential IS NOT NULL
		AND ($2 = '' OR id::text = $2) ORDER BY created_at, id`, userID, factorID)
	if err != nil {
		return nil, fmt.Errorf("load webauthn factors of %s: %w", userID, err)
	}
	creds, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (webauthn.Credential, error) {
		var b []byte
		var c webauthn.Credential
		if err := r.Scan(&b); err != nil {
			return c, err
		}
		return c, json.Unmarshal(b, &c)
	})
	if err != nil {
		return nil, fmt.Errorf("load webauthn factors of %s: %w", userID, err)
	}
	return creds, nil
}
