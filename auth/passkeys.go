package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// Passkeys: first-factor sign-in with a discoverable WebAuthn credential
// (auth-js's experimental passkey API). Registration needs a signed-in
// user; sign-in names no user, the authenticator hands back the user
// handle. Each ceremony's state is a row of auth.webauthn_challenges that
// the verification deletes before checking anything, so it answers once.

// requirePasskeys answers 404 passkey_disabled while passkeys are off.
func (s *Service) requirePasskeys(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.cfg.WebAuthn.PasskeyEnabled {
			return notFound("passkey_disabled", "Passkeys are disabled")
		}
		return h(w, r)
	}
}

// passkeyOptions is the answer of both options endpoints: the options go
// to navigator.credentials.create() / get() as they are.
type passkeyOptions struct {
	ChallengeID string `json:"challenge_id"`
	Options     any    `json:"options"`
	ExpiresAt   int64  `json:"expires_at"`
}

// passkeyVerifyParams is the body of both verify endpoints.
type passkeyVerifyParams struct {
	ChallengeID string          `json:"challenge_id"`
	Credential  json.RawMessage `json:"credential"`
}

// check validates the body with the reference's errors.
func (p *passkeyVerifyParams) check() error {
	switch {
	case p.ChallengeID == "":
		return badRequest("validation_failed", "challenge_id is required")
	case len(p.Credential) == 0 || string(p.Credential) == "null":
		return badRequest("validation_failed", "credential is required")
	case !isUUID(p.ChallengeID):
		return badRequest("validation_failed", "challenge_id must be a valid UUID")
	}
	return nil
}

// verificationFailed is the answer to a response that does not prove the
// credential (bad signature, wrong origin or relying party, unknown key).
func verificationFailed(cause error) error {
	e := badRequest("webauthn_verification_failed", "Credential verification failed")
	e.Cause = cause
	return e
}

// canManagePasskeys refuses changes to a user's passkeys from an aal1
// session once MFA is on: a stolen password must not add a way in.
func canManagePasskeys(a *authed) error {
	if a.user.hasVerifiedFactor() && (a.session == nil || a.session.AAL != "aal2") {
		return forbidden("insufficient_aal", "AAL2 session is required to manage passkeys when MFA is enabled")
	}
	return nil
}

// passkeyRegistrationOptions handles POST /passkeys/registration/options.
func (s *Service) passkeyRegistrationOptions(w http.ResponseWriter, r *http.Request, a *authed) error {
	if err := s.canRegisterPasskey(a); err != nil {
		return err
	}
	ctx := r.Context()
	pks, err := loadPasskeys(ctx, s.db, a.user.ID)
	if err != nil {
		return err
	}
	if len(pks) >= s.cfg.WebAuthn.MaxPasskeys {
		return unprocessable("too_many_passkeys", "Maximum number of passkeys reached")
	}
	creds := passkeyCredentials(pks)
	// Excluding the user's keys stops an authenticator being registered twice.
	creation, sd, err := s.passkeyRP.BeginRegistration(webAuthnUser{u: a.user, creds: creds},
		webauthn.WithExclusions(webauthn.Credentials(creds).CredentialDescriptors()))
	if err != nil {
		return internalErr(fmt.Errorf("begin passkey registration: %w", err))
	}
	return s.startPasskeyCeremony(w, r, &a.user.ID, "registration", sd, creation.Response)
}

// canRegisterPasskey applies the reference's rules for adding a passkey.
func (s *Service) canRegisterPasskey(a *authed) error {
	if a.user.IsAnonymous {
		return forbidden("no_authorization", "Anonymous user not allowed to perform these actions")
	}
	if a.user.IsSSOUser {
		return unprocessable("validation_failed", "SSO users cannot register passkeys")
	}
	return canManagePasskeys(a)
}

// startPasskeyCeremony stores a ceremony's state and answers its options.
// Expired ceremonies are swept on the way, as sign-in options are asked
// for without an account and would otherwise pile up.
func (s *Service) startPasskeyCeremony(w http.ResponseWriter, r *http.Request, userID *string, kind string, sd *webauthn.SessionData, options any) error {
	b, err := encodeSession(sd)
	if err != nil {
		return err
	}
	now := s.now()
	expires := now.Add(s.cfg.WebAuthn.ChallengeExpiry)
	id := newUUID()
	batch := &pgx.Batch{}
	batch.Queue(`DELETE FROM auth.webauthn_challenges WHERE expires_at < $1`, now)
	batch.Queue(`INSERT INTO auth.webauthn_challenges (id, user_id, challenge_type, session_data, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, id, userID, kind, b, now, expires)
	if err := s.db.SendBatch(r.Context(), batch).Close(); err != nil {
		return fmt.Errorf("store %s challenge: %w", kind, err)
	}
	writeJSON(w, http.StatusOK, passkeyOptions{ChallengeID: id, Options: options, ExpiresAt: expires.Unix()})
	return nil
}

// consumeChallenge deletes and returns the ceremony state of challenge id,
// of the given kind and user (nil: a sign-in, which has none). Deleting
// first means a failed or repeated answer cannot try the challenge again.
func (s *Service) consumeChallenge(ctx context.Context, id, kind string, userID *string) (webauthn.SessionData, error) {
	var b []byte
	var expires time.Time
	err := s.db.QueryRow(ctx, `DELETE FROM auth.webauthn_challenges
		WHERE id = $1 AND challenge_type = $2 AND user_id IS NOT DISTINCT FROM $3::uuid RETURNING session_data, expires_at`,
		id, kind, userID).Scan(&b, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return webauthn.SessionData{}, badRequest("webauthn_challenge_not_found", "Challenge not found or already used")
	}
	if err != nil {
		return webauthn.SessionData{}, fmt.Errorf("consume challenge %s: %w", id, err)
	}
	if s.now().After(expires) {
		return webauthn.SessionData{}, badRequest("webauthn_challenge_expired", "Challenge has expired")
	}
	return decodeSession(b)
}

// passkeyRegistrationVerify handles POST /passkeys/registration/verify:
// the new passkey is stored, named "Passkey" (the user can rename it).
func (s *Service) passkeyRegistrationVerify(w http.ResponseWriter, r *http.Request, a *authed) error {
	if err := s.canRegisterPasskey(a); err != nil {
		return err
	}
	var p passkeyVerifyParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.check(); err != nil {
		return err
	}
	ctx := r.Context()
	sd, err := s.consumeChallenge(ctx, p.ChallengeID, "registration", &a.user.ID)
	if err != nil {
		return err
	}
	parsed, err := parseCreation(p.Credential)
	if err != nil {
		e := badRequest("webauthn_verification_failed", "Invalid credential response")
		e.Cause = err
		return e
	}
	cred, err := s.passkeyRP.CreateCredential(webAuthnUser{u: a.user}, sd, parsed)
	if err != nil {
		return verificationFailed(err)
	}
	pk := passkey{ID: newUUID(), FriendlyName: "Passkey", CreatedAt: s.now().UTC().Truncate(time.Microsecond)}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		// Counted again under a lock on the user, so racing registrations
		// cannot pass the cap together.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM auth.users WHERE id = $1 FOR UPDATE`, a.user.ID); err != nil {
			return fmt.Errorf("lock user %s: %w", a.user.ID, err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM auth.webauthn_credentials WHERE user_id = $1`, a.user.ID).Scan(&n); err != nil {
			return fmt.Errorf("count passkeys: %w", err)
		}
		if n >= s.cfg.WebAuthn.MaxPasskeys {
			return unprocessable("too_many_passkeys", "Maximum number of passkeys reached")
		}
		if err := insertPasskey(ctx, tx, a.user.ID, pk, cred); err != nil {
			return err
		}
		return s.audit(ctx, tx, r, a.user, "passkey_created", map[string]any{"passkey_id": pk.ID})
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pk.toJSON())
	return nil
}

// passkeyAuthenticationOptions handles POST /passkeys/authentication/options:
// a discoverable sign-in, so no credentials are listed and no user is named.
func (s *Service) passkeyAuthenticationOptions(w http.ResponseWriter, r *http.Request) error {
	assertion, sd, err := s.passkeyRP.BeginDiscoverableLogin()
	if err != nil {
		return internalErr(fmt.Errorf("begin passkey sign-in: %w", err))
	}
	return s.startPasskeyCeremony(w, r, nil, "authentication", sd, assertion.Response)
}

// passkeyAuthenticationVerify handles POST /passkeys/authentication/verify:
// the assertion's user handle names the account, its key must be one of
// that account's passkeys, and a new aal1 session is issued (amr passkey).
func (s *Service) passkeyAuthenticationVerify(w http.ResponseWriter, r *http.Request) error {
	var p passkeyVerifyParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := p.check(); err != nil {
		return err
	}
	ctx := r.Context()
	sd, err := s.consumeChallenge(ctx, p.ChallengeID, "authentication", nil)
	if err != nil {
		return err
	}
	parsed, err := parseAssertion(p.Credential)
	if err != nil {
		e := badRequest("webauthn_verification_failed", "Invalid credential response")
		e.Cause = err
		return e
	}
	var u *user
	find := func(_, userHandle []byte) (webauthn.User, error) {
		id := string(userHandle)
		if !isUUID(id) {
			return nil, errors.New("user handle is not a user id")
		}
		var err error
		if u, err = userByID(ctx, s.db, id); err != nil {
			return nil, err
		}
		pks, err := loadPasskeys(ctx, s.db, id)
		if err != nil {
			return nil, err
		}
		return webAuthnUser{u: u, creds: passkeyCredentials(pks)}, nil
	}
	_, cred, err := s.passkeyRP.ValidatePasskeyLogin(find, sd, parsed)
	if err != nil {
		return verificationFailed(err)
	}
	if err := passkeyUserCanSignIn(u, s.now()); err != nil {
		return err
	}
	var resp *tokenResponse
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var id string
		err := tx.QueryRow(ctx, `UPDATE auth.webauthn_credentials SET sign_count = $2, last_used_at = $3, updated_at = $3
			WHERE credential_id = $1 AND user_id = $4 RETURNING id`, cred.ID, int64(cred.Authenticator.SignCount), s.now(), u.ID).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			// Deleted between the check and now.
			return verificationFailed(errors.New("passkey deleted during sign-in"))
		}
		if err != nil {
			return fmt.Errorf("record passkey use: %w", err)
		}
		resp, err = s.issueSession(ctx, tx, r, u, "passkey")
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// passkeyUserCanSignIn applies the reference's checks on the account a
// passkey names.
func passkeyUserCanSignIn(u *user, now time.Time) error {
	switch {
	case u.Email != "" && u.EmailConfirmedAt == nil:
		return forbidden("email_not_confirmed", "Email not confirmed")
	case u.Phone != "" && u.PhoneConfirmedAt == nil:
		return forbidden("phone_not_confirmed", "Phone not confirmed")
	case u.isBanned(now):
		return forbidden("user_banned", "User is banned")
	}
	return nil
}

// passkeyList handles GET /passkeys.
func (s *Service) passkeyList(w http.ResponseWriter, r *http.Request, a *authed) error {
	return s.writePasskeys(w, r, a.user.ID)
}

// passkeyUpdateParams is the body of PATCH /passkeys/{id}.
type passkeyUpdateParams struct {
	FriendlyName string `json:"friendly_name"`
}

// passkeyUpdate handles PATCH /passkeys/{id}: renames a passkey.
func (s *Service) passkeyUpdate(w http.ResponseWriter, r *http.Request, a *authed) error {
	id := r.PathValue("id")
	if !isUUID(id) {
		return notFound("validation_failed", "Passkey not found")
	}
	var p passkeyUpdateParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.FriendlyName == "" {
		return badRequest("validation_failed", "friendly_name is required")
	}
	if len(p.FriendlyName) > 120 {
		return badRequest("validation_failed", "friendly_name must be 120 characters or less")
	}
	ctx := r.Context()
	var pk passkey
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		pk, err = scanPasskey(tx.QueryRow(ctx, `UPDATE auth.webauthn_credentials SET friendly_name = $3, updated_at = $4
			WHERE id = $1 AND user_id = $2 RETURNING `+passkeyColumns, id, a.user.ID, p.FriendlyName, s.now()))
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("validation_failed", "Passkey not found")
		}
		if err != nil {
			return fmt.Errorf("rename passkey %s: %w", id, err)
		}
		return s.audit(ctx, tx, r, a.user, "passkey_updated", map[string]any{"passkey_id": id})
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, pk.toJSON())
	return nil
}

// passkeyDelete handles DELETE /passkeys/{id}.
func (s *Service) passkeyDelete(w http.ResponseWriter, r *http.Request, a *authed) error {
	if err := canManagePasskeys(a); err != nil {
		return err
	}
	return s.deletePasskey(w, r, a.user, a.user, r.PathValue("id"))
}

// deletePasskey removes passkey id of owner (204); actor is who the audit
// log names.
func (s *Service) deletePasskey(w http.ResponseWriter, r *http.Request, owner, actor *user, id string) error {
	if !isUUID(id) {
		return notFound("validation_failed", "Passkey not found")
	}
	ctx := r.Context()
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM auth.webauthn_credentials WHERE id = $1 AND user_id = $2`, id, owner.ID)
		if err != nil {
			return fmt.Errorf("delete passkey %s: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return notFound("validation_failed", "Passkey not found")
		}
		traits := map[string]any{"passkey_id": id}
		if actor != owner {
			traits["user_id"] = owner.ID
		}
		return s.audit(ctx, tx, r, actor, "passkey_deleted", traits)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// adminPasskeyList handles GET /admin/users/{id}/passkeys.
func (s *Service) adminPasskeyList(w http.ResponseWriter, r *http.Request) error {
	u, err := s.pathUser(r, s.db)
	if err != nil {
		return err
	}
	return s.writePasskeys(w, r, u.ID)
}

// adminPasskeyDelete handles DELETE /admin/users/{id}/passkeys/{pid}.
func (s *Service) adminPasskeyDelete(w http.ResponseWriter, r *http.Request) error {
	u, err := s.pathUser(r, s.db)
	if err != nil {
		return err
	}
	// The admin is a role, not a user: the entry names no actor.
	return s.deletePasskey(w, r, u, nil, r.PathValue("pid"))
}

// writePasskeys answers the user's passkeys, oldest first.
func (s *Service) writePasskeys(w http.ResponseWriter, r *http.Request, userID string) error {
	pks, err := loadPasskeys(r.Context(), s.db, userID)
	if err != nil {
		return err
	}
	out := make([]passkeyJSON, len(pks))
	for i, pk := range pks {
		out[i] = pk.toJSON()
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// passkey is a row of auth.webauthn_credentials.
type passkey struct {
	ID           string
	FriendlyName string
	CreatedAt    time.Time
	LastUsedAt   *time.Time
	// Cred is the key as go-webauthn verifies it.
	Cred webauthn.Credential
}

// passkeyJSON is a passkey on the wire.
type passkeyJSON struct {
	ID           string     `json:"id"`
	FriendlyName string     `json:"friendly_name,omitempty"`
	CreatedAt    time.Time  `json:"created_at"`
	LastUsedAt   *time.Time `json:"last_used_at,omitempty"`
}

func (pk passkey) toJSON() passkeyJSON {
	return passkeyJSON{ID: pk.ID, FriendlyName: pk.FriendlyName, CreatedAt: pk.CreatedAt.UTC(), LastUsedAt: utc(pk.LastUsedAt)}
}

// passkeyColumns is the select list scanPasskey reads.
const passkeyColumns = `id, friendly_name, created_at, last_used_at, credential_id, public_key, attestation_type,
 transports, backup_eligible, backed_up, sign_count`

// scanPasskey reads one row selected with passkeyColumns.
func scanPasskey(r pgx.Row) (passkey, error) {
	var pk passkey
	var transports []byte
	var signCount int64
	c := &pk.Cred
	err := r.Scan(&pk.ID, &pk.FriendlyName, &pk.CreatedAt, &pk.LastUsedAt, &c.ID, &c.PublicKey, &c.AttestationType,
		&transports, &c.Flags.BackupEligible, &c.Flags.BackupState, &signCount)
	if err != nil {
		return pk, err
	}
	c.Authenticator.SignCount = uint32(signCount)
	if err := json.Unmarshal(transports, &c.Transport); err != nil {
		return pk, fmt.Errorf("passkey %s transports: %w", pk.ID, err)
	}
	return pk, nil
}

// loadPasskeys lists a user's passkeys, oldest first.
func loadPasskeys(ctx context.Context, db pg.DB, userID string) ([]passkey, error) {
	rows, err := db.Query(ctx, `SELECT `+passkeyColumns+` FROM auth.webauthn_credentials WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("load passkeys of %s: %w", userID, err)
	}
	pks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (passkey, error) { return scanPasskey(r) })
	if err != nil {
		return nil, fmt.Errorf("load passkeys of %s: %w", userID, err)
	}
	return pks, nil
}

// passkeyCredentials lists the keys of pks for go-webauthn.
func passkeyCredentials(pks []passkey) []webauthn.Credential {
	creds := make([]webauthn.Credential, len(pks))
	for i, pk := range pks {
		creds[i] = pk.Cred
	}
	return creds
}

// insertPasskey stores a verified new credential. A credential id already
// registered (to anyone) is refused.
func insertPasskey(ctx context.Context, tx pgx.Tx, userID string, pk passkey, cred *webauthn.Credential) error {
	transports := cred.Transport
	if transports == nil {
		transports = []protocol.AuthenticatorTransport{}
	}
	tb, err := json.Marshal(transports)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `INSERT INTO auth.webauthn_credentials (id, user_id, credential_id, public_key, attestation_type, aaguid,
		sign_count, transports, backup_eligible, backed_up, friendly_name, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)`,
		pk.ID, userID, cred.ID, cred.PublicKey, cred.AttestationType, aaguidUUID(cred.Authenticator.AAGUID),
		int64(cred.Authenticator.SignCount), tb, cred.Flags.BackupEligible, cred.Flags.BackupState, pk.FriendlyName, pk.CreatedAt)
	if pg.Is(err, "23505") {
		return unprocessable("webauthn_credential_exists", "This credential is already registered")
	}
	if err != nil {
		return fmt.Errorf("store passkey: %w", err)
	}
	return nil
}
