package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/auth/totp"
	"github.com/basaltdev/basalt/internal/pg"
)

// enrollParams is the body of POST /factors. Issuer names the service in
// the authenticator app; it defaults to the site URL's host.
type enrollParams struct {
	FriendlyName string `json:"friendly_name"`
	FactorType   string `json:"factor_type"`
	Issuer       string `json:"issuer"`
	Phone        string `json:"phone"`
}

// enrollFactor handles POST /factors (contract E21): TOTP and WebAuthn
// factors.
func (s *Service) enrollFactor(w http.ResponseWriter, r *http.Request, a *authed) error {
	var p enrollParams
	if err := decode(r, &p); err != nil {
		return err
	}
	u := a.user
	// An anonymous user has no way back into the account but its session,
	// so a second factor would protect nothing; the reference refuses it.
	if u.IsAnonymous {
		return forbidden("no_authorization", "Anonymous user not allowed to perform these actions")
	}
	switch p.FactorType {
	case "totp":
		if !s.cfg.MFATOTPEnroll {
			return unprocessable("mfa_totp_enroll_not_enabled", "MFA enroll is disabled for TOTP")
		}
	// Phone factors answer as a reference server with them switched off
	// (its default), so auth-js shows the same errors.
	case "phone":
		return unprocessable("mfa_phone_enroll_not_enabled", "MFA enroll is disabled for Phone")
	case "webauthn":
		if !s.cfg.WebAuthn.MFAEnroll {
			return unprocessable("mfa_webauthn_enroll_not_enabled", "MFA enroll is disabled for WebAuthn")
		}
	default:
		return badRequest("validation_failed", "factor_type needs to be totp, phone, or webauthn")
	}
	ctx := r.Context()
	if err := s.checkNewFactor(ctx, a, p.FriendlyName); err != nil {
		return err
	}
	id := newUUID()
	if p.FactorType == "webauthn" {
		// The credential comes with the first verification (a "create"
		// challenge), which is what makes the factor verified.
		if err := s.insertFactor(ctx, id, u.ID, p.FriendlyName, "webauthn", nil); err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": "webauthn", "friendly_name": p.FriendlyName})
		return nil
	}
	issuer := p.Issuer
	if issuer == "" {
		if site, err := url.Parse(s.cfg.SiteURL); err == nil {
			issuer = site.Host
		}
	}
	account := u.Email
	if account == "" {
		account = u.Phone
	}
	// The secret is stored in the clear: TOTP needs it to compute codes.
	// Only the auth schema's owner can read it.
	secret := totp.NewSecret()
	uri := totp.URI(issuer, account, secret)
	svg, err := totp.QRSVG(uri)
	if err != nil {
		return err
	}
	if err := s.insertFactor(ctx, id, u.ID, p.FriendlyName, "totp", secret); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": "totp", "friendly_name": p.FriendlyName,
		"totp": map[string]string{"qr_code": svg, "secret": secret, "uri": uri}})
	return nil
}

// checkNewFactor applies the rules every enrolment follows: expired
// unfinished enrolments go, names are unique, the count is capped, and once
// MFA is on only an aal2 session may add a factor.
func (s *Service) checkNewFactor(ctx context.Context, a *authed, name string) error {
	u := a.user
	// Unfinished enrolments expire, like the reference's cleanup.
	if _, err := s.db.Exec(ctx, `DELETE FROM auth.mfa_factors WHERE user_id = $1 AND status = 'unverified' AND created_at < $2`,
		u.ID, s.now().Add(-300*time.Second)); err != nil {
		return fmt.Errorf("clean up factors of %s: %w", u.ID, err)
	}
	factors, err := loadFactors(ctx, s.db, u.ID)
	if err != nil {
		return err
	}
	verified := 0
	for _, f := range factors {
		if f.Status == "verified" {
			verified++
		}
		if name != "" && f.FriendlyName == name {
			return unprocessable("mfa_factor_name_conflict", "A factor with the friendly name %q for this user already exists", name)
		}
	}
	// The cap counts unverified factors too: each holds a secret, and an
	// endless loop of abandoned enrolments must not grow the table.
	if len(factors) >= s.cfg.MFAMaxFactors {
		return unprocessable("too_many_enrolled_mfa_factors", "Maximum number of verified factors reached, unenroll to continue")
	}
	// Once MFA is on, adding a factor needs the second factor: otherwise a
	// stolen password could enrol the attacker's authenticator.
	if verified > 0 && (a.session == nil || a.session.AAL != "aal2") {
		return forbidden("insufficient_aal", "AAL2 required to enroll a new factor")
	}
	return nil
}

// insertFactor stores a new unverified factor. Two enrolments racing with
// the same name are caught by the unique index on a user's non-blank
// friendly names and get the same answer as checkNewFactor's check.
func (s *Service) insertFactor(ctx context.Context, id, userID, name, typ string, secret any) error {
	_, err := s.db.Exec(ctx, `INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
		VALUES ($1, $2, $3, $4::auth.factor_type, 'unverified', $5, $5, $6)`, id, userID, name, typ, s.now(), secret)
	if pg.Is(err, "23505") {
		return unprocessable("mfa_factor_name_conflict", "A factor with the friendly name %q for this user already exists", name)
	}
	if err != nil {
		return fmt.Errorf("enroll factor for %s: %w", userID, err)
	}
	return nil
}

// pathFactor loads the caller's factor named by {id}. The user id is part
// of the lookup, so another user's factor id is "not found", never a way to
// act on someone else's factor.
func (s *Service) pathFactor(ctx context.Context, r *http.Request, userID, id string) (*factor, error) {
	if !isUUID(id) {
		return nil, notFound("validation_failed", "factor_id must be an UUID")
	}
	f, err := scanFactor(s.db.QueryRow(ctx, `SELECT `+factorColumns+` FROM auth.mfa_factors WHERE id = $1 AND user_id = $2`, id, userID))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("mfa_factor_not_found", "Factor not found")
	}
	if err != nil {
		return nil, fmt.Errorf("load factor %s: %w", id, err)
	}
	return &f, nil
}

// challengeIP is the address stored with a challenge (the column is NOT NULL).
func challengeIP(r *http.Request) string {
	if ip, ok := clientInet(r).(string); ok {
		return ip
	}
	return "0.0.0.0"
}

// challengeFactor handles POST /factors/{id}/challenge (contract E22).
func (s *Service) challengeFactor(w http.ResponseWriter, r *http.Request, a *authed) error {
	ctx := r.Context()
	f, err := s.pathFactor(ctx, r, a.user.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := s.checkVerifyEnabled(f); err != nil {
		return err
	}
	var webauthnData *webAuthnChallenge
	var sessionData []byte
	if f.FactorType == "webauthn" {
		if webauthnData, sessionData, err = s.beginWebAuthnFactor(ctx, a.user, f); err != nil {
			return err
		}
	}
	// The challenge records the caller's address; verify must come from the
	// same one (see lockChallenge). last_challenged_at is what the factor's
	// JSON shows, as in the reference.
	now := s.now()
	id := newUUID()
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO auth.mfa_challenges (id, factor_id, created_at, ip_address, web_authn_session_data)
			VALUES ($1, $2, $3, $4, $5)`, id, f.ID, now, challengeIP(r), sessionData); err != nil {
			return fmt.Errorf("create challenge: %w", err)
		}
		_, err := tx.Exec(ctx, `UPDATE auth.mfa_factors SET last_challenged_at = $2, updated_at = $2 WHERE id = $1`, f.ID, now)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, challengeResponse{ID: id, Type: f.FactorType,
		ExpiresAt: now.Add(s.cfg.MFAChallengeExpiry).Unix(), WebAuthn: webauthnData})
	return nil
}

// challengeResponse is the answer to POST /factors/{id}/challenge.
type challengeResponse struct {
	ID        string             `json:"id"`
	Type      string             `json:"type"`
	ExpiresAt int64              `json:"expires_at"`
	WebAuthn  *webAuthnChallenge `json:"webauthn,omitempty"`
}

// checkVerifyEnabled refuses challenges and verifications of a factor
// type that is switched off.
func (s *Service) checkVerifyEnabled(f *factor) error {
	switch {
	case f.FactorType == "totp" && !s.cfg.MFATOTPVerify:
		return unprocessable("mfa_totp_verify_not_enabled", "MFA verification is disabled for TOTP")
	case f.FactorType == "webauthn" && !s.cfg.WebAuthn.MFAVerify:
		return unprocessable("mfa_webauthn_verify_not_enabled", "MFA verification is disabled for WebAuthn")
	}
	return nil
}

// mfaFactorWindow is the period of a factor's verification budget
// (RateLimits.MFAVerifyFactor).
const mfaFactorWindow = 15 * time.Minute

// verifyFactorParams is the body of POST /factors/{id}/verify: a code for
// TOTP, the authenticator's response for WebAuthn.
type verifyFactorParams struct {
	ChallengeID string          `json:"challenge_id"`
	Code        string          `json:"code"`
	WebAuthn    *webAuthnVerify `json:"webauthn"`
}

// verifyFactor handles POST /factors/{id}/verify (contract E23): once the
// factor is proven, the session becomes aal2 (see completeMFA).
func (s *Service) verifyFactor(w http.ResponseWriter, r *http.Request, a *authed) error {
	var p verifyFactorParams
	if err := decode(r, &p); err != nil {
		return err
	}
	ctx := r.Context()
	f, err := s.pathFactor(ctx, r, a.user.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	if p.Code == "" && f.FactorType != "webauthn" {
		return badRequest("validation_failed", "Code needs to be non-empty")
	}
	if err := s.checkVerifyEnabled(f); err != nil {
		// The reference names the enroll switch when WebAuthn verification
		// is off; clients see that code, so it is kept.
		if f.FactorType == "webauthn" {
			return unprocessable("mfa_webauthn_enroll_not_enabled", "MFA verification is disabled for WebAuthn")
		}
		return err
	}
	if f.FactorType == "webauthn" {
		if err := p.WebAuthn.check(); err != nil {
			return err
		}
	}
	if a.session == nil {
		return forbidden("session_not_found", "Session from session_id claim in JWT does not exist")
	}
	// Every verification of the factor counts, right or wrong, before the
	// code is looked at (as the per-IP budget does): past the budget even
	// the right code waits for the window to end, so a guesser learns
	// nothing from it.
	if err := s.limit(ctx, "mfa_verify_factor|"+f.ID, s.cfg.RateLimits.MFAVerifyFactor, mfaFactorWindow,
		"over_request_rate_limit", "Request rate limit reached"); err != nil {
		return err
	}
	var resp *tokenResponse
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		ch, err := s.lockChallenge(ctx, tx, r, f, p.ChallengeID)
		if err != nil {
			return err
		}
		method := "totp"
		if f.FactorType == "webauthn" {
			method = "mfa/webauthn"
			if err := s.finishWebAuthnFactor(ctx, tx, a.user, f, ch, p.WebAuthn); err != nil {
				return err
			}
		} else if err := s.claimTOTPStep(ctx, tx, f, p.Code); err != nil {
			return err
		}
		resp, err = s.completeMFA(ctx, tx, a, f, p.ChallengeID, method)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// claimTOTPStep checks code against the factor and records its time step
// as used. One step of clock skew either way is accepted, as authenticator
// apps drift; a step at or before the last one accepted is refused like a
// wrong code, so a code that has been seen once (over a shoulder, by a
// phishing page that relayed it) opens nothing more. The conditional
// UPDATE makes two verifications racing with one code take turns on the
// factor's row: the second finds the step taken.
func (s *Service) claimTOTPStep(ctx context.Context, tx pgx.Tx, f *factor, code string) error {
	invalid := unprocessable("mfa_verification_failed", "Invalid TOTP code entered")
	step, ok := totp.Match(f.Secret, code, s.now())
	if !ok {
		return invalid
	}
	tag, err := tx.Exec(ctx, `UPDATE auth.mfa_factors SET last_totp_step = $2
		WHERE id = $1 AND (last_totp_step IS NULL OR last_totp_step < $2)`, f.ID, step)
	if err != nil {
		return fmt.Errorf("claim totp step of factor %s: %w", f.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return invalid
	}
	return nil
}

// mfaChallenge is a row of auth.mfa_challenges being verified.
type mfaChallenge struct {
	CreatedAt   time.Time
	IP          string
	VerifiedAt  *time.Time
	SessionData []byte
}

// lockChallenge loads and locks the factor's challenge id and checks it may
// still be answered. The lock makes two verifications of one challenge take
// turns, and the second finds it already used: a proof cannot be replayed,
// even concurrently.
func (s *Service) lockChallenge(ctx context.Context, tx pgx.Tx, r *http.Request, f *factor, id string) (*mfaChallenge, error) {
	var ch mfaChallenge
	err := tx.QueryRow(ctx, `SELECT created_at, host(ip_address), verified_at, web_authn_session_data FROM auth.mfa_challenges
		WHERE id = $1 AND factor_id = $2 FOR UPDATE`, id, f.ID).Scan(&ch.CreatedAt, &ch.IP, &ch.VerifiedAt, &ch.SessionData)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && ch.VerifiedAt != nil) || (err != nil && pg.Is(err, "22P02")) {
		return nil, unprocessable("mfa_factor_not_found", "MFA factor with the provided challenge ID not found")
	}
	if err != nil {
		return nil, fmt.Errorf("load challenge: %w", err)
	}
	// A challenge is bound to the address that asked for it.
	if ch.IP != challengeIP(r) {
		return nil, unprocessable("mfa_ip_address_mismatch", "Challenge and verify IP addresses mismatch.")
	}
	if s.now().After(ch.CreatedAt.Add(s.cfg.MFAChallengeExpiry)) {
		return nil, unprocessable("mfa_challenge_expired", "MFA challenge %s has expired, verify against another challenge or create a new challenge.", id)
	}
	return &ch, nil
}

// completeMFA finishes a proven verification inside its transaction: the
// challenge is used up, the factor verified (other unfinished enrolments of
// its type dropped, as the reference does), the session raised to aal2
// with method in its amr, the user's aal1 sessions signed out, and the
// session's refresh token rotated. It returns the new session.
func (s *Service) completeMFA(ctx context.Context, tx pgx.Tx, a *authed, f *factor, challengeID, method string) (*tokenResponse, error) {
	now := s.now()
	if _, err := tx.Exec(ctx, `UPDATE auth.mfa_challenges SET verified_at = $2 WHERE id = $1`, challengeID, now); err != nil {
		return nil, fmt.Errorf("mark challenge verified: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE auth.mfa_factors SET status = 'verified', updated_at = $2 WHERE id = $1`, f.ID, now); err != nil {
		return nil, fmt.Errorf("verify factor: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM auth.mfa_factors WHERE user_id = $1 AND id <> $2 AND status = 'unverified'
		AND factor_type = $3::auth.factor_type`, a.user.ID, f.ID, f.FactorType); err != nil {
		return nil, fmt.Errorf("drop other unverified factors: %w", err)
	}
	if err := addAMR(ctx, tx, a.session.ID, method, now); err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, `UPDATE auth.sessions SET aal = 'aal2', factor_id = $2, updated_at = $3 WHERE id = $1`,
		a.session.ID, f.ID, now); err != nil {
		return nil, fmt.Errorf("raise session aal: %w", err)
	}
	// Sessions that never passed the second factor are signed out, as the
	// reference does once MFA is proven.
	if _, err := tx.Exec(ctx, `DELETE FROM auth.sessions WHERE user_id = $1 AND id <> $2 AND coalesce(aal, 'aal1') = 'aal1'`,
		a.user.ID, a.session.ID); err != nil {
		return nil, fmt.Errorf("sign out other aal1 sessions: %w", err)
	}
	// Rotate: the old refresh tokens of this session stop working.
	if _, err := tx.Exec(ctx, `UPDATE auth.refresh_tokens SET revoked = true, updated_at = $2
		WHERE session_id = $1 AND NOT coalesce(revoked,false)`, a.session.ID, now); err != nil {
		return nil, fmt.Errorf("revoke refresh tokens: %w", err)
	}
	rt := newRefreshToken()
	if _, err := tx.Exec(ctx, `INSERT INTO auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id)
		VALUES ($1, $2, $3, false, $4, $4, $5)`, instanceID, rt, a.user.ID, now, a.session.ID); err != nil {
		return nil, fmt.Errorf("issue refresh token: %w", err)
	}
	// The new access token must carry aal2 and the new amr entry now, so
	// the app can reach aal2-only data without another refresh.
	u, err := userByID(ctx, tx, a.user.ID)
	if err != nil {
		return nil, err
	}
	return s.tokenResponse(ctx, tx, u, a.session.ID, "aal2", rt, method)
}

// unenrollFactor handles DELETE /factors/{id} (contract E24).
func (s *Service) unenrollFactor(w http.ResponseWriter, r *http.Request, a *authed) error {
	ctx := r.Context()
	f, err := s.pathFactor(ctx, r, a.user.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	// Removing a verified factor lowers the account's protection, so it
	// needs an aal2 session.
	if f.Status == "verified" && (a.session == nil || a.session.AAL != "aal2") {
		return unprocessable("insufficient_aal", "AAL2 required to unenroll verified factor")
	}
	if err := s.deleteFactor(ctx, f.ID); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": f.ID})
	return nil
}

// deleteFactor removes a factor and downgrades the sessions it raised: a
// session must not stay aal2 on the strength of a factor that no longer
// exists. Their access tokens keep aal2 until they expire, as in the
// reference.
func (s *Service) deleteFactor(ctx context.Context, id string) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE auth.sessions SET aal = 'aal1', factor_id = NULL WHERE factor_id = $1`, id); err != nil {
			return fmt.Errorf("downgrade sessions of factor %s: %w", id, err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM auth.mfa_factors WHERE id = $1`, id); err != nil {
			return fmt.Errorf("delete factor %s: %w", id, err)
		}
		return nil
	})
}

// adminListFactors handles GET /admin/users/{id}/factors: the factors in
// their public shape, secrets left out as everywhere else.
func (s *Service) adminListFactors(w http.ResponseWriter, r *http.Request) error {
	u, err := s.pathUser(r, s.db)
	if err != nil {
		return err
	}
	out := []factorJSON{}
	for _, f := range u.Factors {
		out = append(out, f.toJSON())
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// adminDeleteFactor handles DELETE /admin/users/{id}/factors/{fid}.
func (s *Service) adminDeleteFactor(w http.ResponseWriter, r *http.Request) error {
	u, err := s.pathUser(r, s.db)
	if err != nil {
		return err
	}
	f, err := s.pathFactor(r.Context(), r, u.ID, r.PathValue("fid"))
	if err != nil {
		return err
	}
	if err := s.deleteFactor(r.Context(), f.ID); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, f.toJSON())
	return nil
}
