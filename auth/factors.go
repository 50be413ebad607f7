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

type enrollParams struct {
	FriendlyName string `json:"friendly_name"`
	FactorType   string `json:"factor_type"`
	Issuer       string `json:"issuer"`
	Phone        string `json:"phone"`
}

// enrollFactor handles POST /factors (contract E21). Only TOTP is offered.
func (s *Service) enrollFactor(w http.ResponseWriter, r *http.Request, a *authed) error {
	var p enrollParams
	if err := decode(r, &p); err != nil {
		return err
	}
	u := a.user
	if u.IsAnonymous {
		return forbidden("no_authorization", "Anonymous user not allowed to perform these actions")
	}
	switch p.FactorType {
	case "totp":
		if !s.cfg.MFATOTPEnroll {
			return unprocessable("mfa_totp_enroll_not_enabled", "MFA enroll is disabled for TOTP")
		}
	case "phone":
		return unprocessable("mfa_phone_enroll_not_enabled", "MFA enroll is disabled for Phone")
	case "webauthn":
		return unprocessable("mfa_webauthn_enroll_not_enabled", "MFA enroll is disabled for WebAuthn")
	default:
		return badRequest("validation_failed", "factor_type needs to be totp, phone, or webauthn")
	}
	issuer := p.Issuer
	if issuer == "" {
		if site, err := url.Parse(s.cfg.SiteURL); err == nil {
			issuer = site.Host
		}
	}
	ctx := r.Context()
	now := s.now()
	// Unfinished enrolments expire, like the reference's cleanup.
	if _, err := s.db.Exec(ctx, `DELETE FROM auth.mfa_factors WHERE user_id = $1 AND status = 'unverified' AND created_at < $2`,
		u.ID, now.Add(-300*time.Second)); err != nil {
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
		if p.FriendlyName != "" && f.FriendlyName == p.FriendlyName {
			return unprocessable("mfa_factor_name_conflict", "A factor with the friendly name %q for this user already exists", p.FriendlyName)
		}
	}
	if len(factors) >= s.cfg.MFAMaxFactors {
		return unprocessable("too_many_enrolled_mfa_factors", "Maximum number of verified factors reached, unenroll to continue")
	}
	// Once MFA is on, adding a factor needs the second factor: otherwise a
	// stolen password could enrol the attacker's authenticator.
	if verified > 0 && (a.session == nil || a.session.AAL != "aal2") {
		return forbidden("insufficient_aal", "AAL2 required to enroll a new factor")
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
	id := newUUID()
	_, err = s.db.Exec(ctx, `INSERT INTO auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at, secret)
		VALUES ($1, $2, $3, 'totp', 'unverified', $4, $4, $5)`, id, u.ID, p.FriendlyName, now, secret)
	if pg.Is(err, "23505") {
		return unprocessable("mfa_factor_name_conflict", "A factor with the friendly name %q for this user already exists", p.FriendlyName)
	}
	if err != nil {
		return fmt.Errorf("enroll factor for %s: %w", u.ID, err)
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": "totp", "friendly_name": p.FriendlyName,
		"totp": map[string]string{"qr_code": svg, "secret": secret, "uri": uri}})
	return nil
}

// pathFactor loads the caller's factor named by {id}.
func (s *Service) pathFactor(ctx context.Context, r *http.Request, userID, id string) (*factor, error) {
	if !uuidRE.MatchString(id) {
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
	if f.FactorType == "totp" && !s.cfg.MFATOTPVerify {
		return unprocessable("mfa_totp_verify_not_enabled", "MFA verification is disabled for TOTP")
	}
	now := s.now()
	id := newUUID()
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO auth.mfa_challenges (id, factor_id, created_at, ip_address) VALUES ($1, $2, $3, $4)`,
			id, f.ID, now, challengeIP(r)); err != nil {
			return fmt.Errorf("create challenge: %w", err)
		}
		_, err := tx.Exec(ctx, `UPDATE auth.mfa_factors SET last_challenged_at = $2, updated_at = $2 WHERE id = $1`, f.ID, now)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": f.FactorType, "expires_at": now.Add(s.cfg.MFAChallengeExpiry).Unix()})
	return nil
}

type verifyFactorParams struct {
	ChallengeID string `json:"challenge_id"`
	Code        string `json:"code"`
}

// verifyFactor handles POST /factors/{id}/verify (contract E23): the session
// becomes aal2 with a totp amr entry, other aal1 sessions are signed out,
// and a fresh token pair is returned.
func (s *Service) verifyFactor(w http.ResponseWriter, r *http.Request, a *authed) error {
	var p verifyFactorParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.Code == "" {
		return badRequest("validation_failed", "Code needs to be non-empty")
	}
	ctx := r.Context()
	f, err := s.pathFactor(ctx, r, a.user.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	if f.FactorType == "totp" && !s.cfg.MFATOTPVerify {
		return unprocessable("mfa_totp_verify_not_enabled", "MFA verification is disabled for TOTP")
	}
	if a.session == nil {
		return forbidden("session_not_found", "Session from session_id claim in JWT does not exist")
	}
	now := s.now()
	var resp *tokenResponse
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var created time.Time
		var ip string
		var verifiedAt *time.Time
		err := tx.QueryRow(ctx, `SELECT created_at, host(ip_address), verified_at FROM auth.mfa_challenges
			WHERE id = $1 AND factor_id = $2 FOR UPDATE`, p.ChallengeID, f.ID).Scan(&created, &ip, &verifiedAt)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && verifiedAt != nil) || (err != nil && pg.Is(err, "22P02")) {
			return unprocessable("mfa_factor_not_found", "MFA factor with the provided challenge ID not found")
		}
		if err != nil {
			return fmt.Errorf("load challenge: %w", err)
		}
		// A challenge is bound to the address that asked for it.
		if ip != challengeIP(r) {
			return unprocessable("mfa_ip_address_mismatch", "Challenge and verify IP addresses mismatch.")
		}
		if now.After(created.Add(s.cfg.MFAChallengeExpiry)) {
			return unprocessable("mfa_challenge_expired", "MFA challenge %s has expired, verify against another challenge or create a new challenge.", p.ChallengeID)
		}
		// One step of clock skew either way, as authenticator apps drift.
		if !totp.Validate(f.Secret, p.Code, now) {
			return unprocessable("mfa_verification_failed", "Invalid TOTP code entered")
		}
		for _, q := range []string{
			`UPDATE auth.mfa_challenges SET verified_at = $2 WHERE id = $1`,
		} {
			if _, err := tx.Exec(ctx, q, p.ChallengeID, now); err != nil {
				return fmt.Errorf("mark challenge verified: %w", err)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.mfa_factors SET status = 'verified', updated_at = $2 WHERE id = $1`, f.ID, now); err != nil {
			return fmt.Errorf("verify factor: %w", err)
		}
		if _, err := tx.Exec(ctx, `DELETE FROM auth.mfa_factors WHERE user_id = $1 AND id <> $2 AND status = 'unverified'
			AND factor_type = $3::auth.factor_type`, a.user.ID, f.ID, f.FactorType); err != nil {
			return fmt.Errorf("drop other unverified factors: %w", err)
		}
		if err := addAMR(ctx, tx, a.session.ID, "totp", now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.sessions SET aal = 'aal2', factor_id = $2, updated_at = $3 WHERE id = $1`,
			a.session.ID, f.ID, now); err != nil {
			return fmt.Errorf("raise session aal: %w", err)
		}
		// Sessions that never passed the second factor are signed out, as the
		// reference does once MFA is proven.
		if _, err := tx.Exec(ctx, `DELETE FROM auth.sessions WHERE user_id = $1 AND id <> $2 AND coalesce(aal, 'aal1') = 'aal1'`,
			a.user.ID, a.session.ID); err != nil {
			return fmt.Errorf("sign out other aal1 sessions: %w", err)
		}
		// Rotate: the old refresh tokens of this session stop working.
		if _, err := tx.Exec(ctx, `UPDATE auth.refresh_tokens SET revoked = true, updated_at = $2
			WHERE session_id = $1 AND NOT coalesce(revoked,false)`, a.session.ID, now); err != nil {
			return fmt.Errorf("revoke refresh tokens: %w", err)
		}
		rt := newRefreshToken()
		if _, err := tx.Exec(ctx, `INSERT INTO auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id)
			VALUES ($1, $2, $3, false, $4, $4, $5)`, instanceID, rt, a.user.ID, now, a.session.ID); err != nil {
			return fmt.Errorf("issue refresh token: %w", err)
		}
		u, err := userByID(ctx, tx, a.user.ID)
		if err != nil {
			return err
		}
		resp, err = s.tokenResponse(ctx, tx, u, a.session.ID, "aal2", rt, "totp")
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
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

// deleteFactor removes a factor and downgrades the sessions it raised.
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

// adminListFactors handles GET /admin/users/{id}/factors.
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
