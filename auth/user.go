package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// audienceOK checks the token's aud against the request audience
// (X-JWT-AUD, else the configured one). GoTrue does this in its GET /user
// handler rather than in the shared authentication step, and so does this
// service: it is not part of authenticate.
func (s *Service) audienceOK(r *http.Request, a *authed) error {
	want := r.Header.Get("X-JWT-AUD")
	if want == "" {
		want = s.cfg.JWTAud
	}
	switch aud := a.claims.Map["aud"].(type) {
	case string:
		if aud == want {
			return nil
		}
	case []any:
		for _, v := range aud {
			if v == want {
				return nil
			}
		}
	}
	return badRequest("validation_failed", "Token audience doesn't match request audience")
}

// getUser handles GET /user.
func (s *Service) getUser(w http.ResponseWriter, r *http.Request, a *authed) error {
	if err := s.audienceOK(r, a); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, a.user)
	return nil
}

// updateUserParams is the body of PUT /user. Password is a pointer to tell
// "not sent" from "", and AppData is only parsed to refuse it (app_metadata
// is for the service role, see adminUpdateUser).
type updateUserParams struct {
	Email               string         `json:"email"`
	Phone               string         `json:"phone"`
	Password            *string        `json:"password"`
	Nonce               string         `json:"nonce"`
	Data                map[string]any `json:"data"`
	AppData             map[string]any `json:"app_metadata"`
	Channel             string         `json:"channel"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`
}

// updateUser handles PUT /user (contract E13).
func (s *Service) updateUser(w http.ResponseWriter, r *http.Request, a *authed) error {
	var p updateUserParams
	if err := decode(r, &p); err != nil {
		return err
	}
	// app_metadata holds what the server vouches for (providers, roles an
	// app grants); a user writing it would be granting themselves rights.
	if p.AppData != nil {
		return forbidden("not_admin", "Updating app_metadata requires admin privileges")
	}
	u := a.user
	// With MFA on, changing how the account is reached or unlocked needs
	// the second factor.
	changingSecurity := (p.Password != nil && *p.Password != "") || (p.Email != "" && p.Email != u.Email) || p.Phone != ""
	if changingSecurity && u.hasVerifiedFactor() && (a.session == nil || a.session.AAL != "aal2") {
		return newErr(http.StatusUnauthorized, "insufficient_aal", "AAL2 session is required to update email or password when MFA is enabled.")
	}
	// A password alone would give an anonymous account a password nobody
	// can ever sign in with (there is no address to name the account by).
	if u.IsAnonymous && p.Password != nil && *p.Password != "" && p.Email == "" && p.Phone == "" && u.Email == "" && u.Phone == "" {
		return unprocessable("validation_failed", "Updating password of an anonymous user without an email or phone is not allowed")
	}
	// A code challenge makes the email change confirmation a PKCE link.
	pkce, err := checkPKCEParams(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	var email, phone string
	if p.Email != "" {
		var verr *apiError
		if email, verr = validateEmail(p.Email); verr != nil {
			return verr
		}
	}
	if p.Phone != "" {
		var verr *apiError
		if phone, verr = validatePhone(p.Phone); verr != nil {
			return verr
		}
	}
	ctx := r.Context()
	now := s.now()
	redirect := s.redirectTarget(r, "")
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		if p.Password != nil && *p.Password != "" {
			pw := *p.Password
			if len(pw) > maxPasswordBytes {
				return tooLongPassword()
			}
			if err := s.checkPassword(pw); err != nil {
				return err
			}
			// A nonce is only asked for (and only checked) when the setting
			// is on and the session is older than a day, as in the reference.
			if s.cfg.UpdatePasswordRequireReauth && (a.session == nil || now.After(a.session.CreatedAt.Add(24*time.Hour))) {
				if p.Nonce == "" {
					return badRequest("reauthentication_needed", "Password update requires reauthentication")
				}
				if !s.nonceValid(u, p.Nonce) {
					return unprocessable("reauthentication_not_valid", "Nonce has expired or is invalid")
				}
			}
			// Reusing the current password is refused like the reference
			// does, since the client asked for a change that would not happen.
			if same, err := s.passwordMatches(u.EncryptedPassword, pw); err != nil {
				return err
			} else if same {
				return unprocessable("same_password", "New password should be different from the old password.")
			}
			hash, err := s.hashPassword(pw)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `UPDATE auth.users SET encrypted_password = $2, updated_at = $3,
				reauthentication_token = '', recovery_token = '', confirmation_token = '' WHERE id = $1`, u.ID, hash, now); err != nil {
				return fmt.Errorf("update password of %s: %w", u.ID, err)
			}
			if _, err := tx.Exec(ctx, `DELETE FROM auth.one_time_tokens WHERE user_id = $1`, u.ID); err != nil {
				return fmt.Errorf("clear one-time tokens of %s: %w", u.ID, err)
			}
			// A new password signs every other device out.
			q, args := `DELETE FROM auth.sessions WHERE user_id = $1`, []any{u.ID}
			if a.session != nil {
				q, args = q+` AND id <> $2`, append(args, a.session.ID)
			}
			if _, err := tx.Exec(ctx, q, args...); err != nil {
				return fmt.Errorf("revoke other sessions of %s: %w", u.ID, err)
			}
		}
		// user_metadata is merged: keys not sent stay, a null value removes
		// the key.
		if p.Data != nil {
			u.UserMetadata = mergeMetadata(u.UserMetadata, p.Data)
			if _, err := tx.Exec(ctx, `UPDATE auth.users SET raw_user_meta_data = $2, updated_at = $3 WHERE id = $1`,
				u.ID, u.UserMetadata, now); err != nil {
				return fmt.Errorf("update metadata of %s: %w", u.ID, err)
			}
		}
		// A new email or phone is only pending until confirmed (except for
		// anonymous users with autoconfirm, who are signing up).
		if email != "" && email != u.Email {
			if err := s.changeEmail(r, tx, u, email, redirect, pkce, p); err != nil {
				return err
			}
		}
		if phone != "" && phone != u.Phone {
			if err := s.changePhone(r, tx, u, phone); err != nil {
				return err
			}
		}
		// The answer is the user as stored now, not as patched in memory:
		// triggers on auth.users may have changed it too.
		fresh, err := userByID(ctx, tx, u.ID)
		if err != nil {
			return err
		}
		*u = *fresh
		action := "user_modified"
		if p.Password != nil && *p.Password != "" {
			action = "user_updated_password"
		}
		return s.audit(ctx, tx, r, u, action, nil)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, u)
	return nil
}

// changeEmail starts an email change: immediate for anonymous users with
// autoconfirm, else confirmation mail(s) to the new (and current) address.
func (s *Service) changeEmail(r *http.Request, tx pgx.Tx, u *user, email, redirect string, pkce bool, p updateUserParams) error {
	ctx := r.Context()
	now := s.now()
	// A signed-in user may learn that an address is taken: they could sign
	// up with it anyway, and the reference answers the same.
	if other, err := userByEmail(ctx, tx, email); err == nil && other.ID != u.ID {
		return unprocessable("email_exists", "A user with this email address has already been registered")
	} else if err != nil && !errors.Is(err, pg.ErrNotFound) {
		return err
	}
	// Anonymous users adding an email with autoconfirm on are signing up;
	// permanent users always confirm a new address.
	if u.IsAnonymous && s.cfg.MailerAutoconfirm {
		return s.applyEmail(ctx, tx, u, email, true)
	}
	// Secure change (the default): codes to both addresses; the change
	// applies once both are confirmed.
	if err := s.throttle(ctx, tx, u, "email_change_sent_at", s.cfg.MaxEmailFrequency, "over_email_send_rate_limit"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE auth.users SET email_change = $2, email_change_confirm_status = 0,
		email_change_token_current = '', email_change_token_new = '', updated_at = $3 WHERE id = $1`, u.ID, email, now); err != nil {
		return fmt.Errorf("start email change of %s: %w", u.ID, err)
	}
	u.EmailChange = email
	if pkce {
		if err := s.createFlowState(ctx, tx, u.ID, p.CodeChallenge, p.CodeChallengeMethod, "email_change", "email_change"); err != nil {
			return err
		}
	}
	if _, err := s.deliverEmailOTP(ctx, tx, u, specEmailChangeNew, email, redirect, pkce, true); err != nil {
		return err
	}
	if s.cfg.SecureEmailChange && u.Email != "" {
		if _, err := s.deliverEmailOTP(ctx, tx, u, specEmailChangeCurrent, u.Email, redirect, pkce, true); err != nil {
			return err
		}
	}
	return nil
}

// applyEmail sets the user's email (and its identity), clearing a pending
// change. A user without an email identity gets one.
func (s *Service) applyEmail(ctx context.Context, tx pgx.Tx, u *user, email string, confirmed bool) error {
	now := s.now()
	var confirmedAt any
	if confirmed {
		confirmedAt = now
	}
	if _, err := tx.Exec(ctx, `UPDATE auth.users SET email = $2, email_confirmed_at = coalesce($3, email_confirmed_at),
		email_change = '', email_change_token_new = '', email_change_token_current = '', email_change_confirm_status = 0,
		email_change_sent_at = NULL, is_anonymous = false, updated_at = $4 WHERE id = $1`, u.ID, email, confirmedAt, now); err != nil {
		if pg.Is(err, "23505") {
			return unprocessable("email_exists", "A user with this email address has already been registered")
		}
		return fmt.Errorf("apply email of %s: %w", u.ID, err)
	}
	tag, err := tx.Exec(ctx, `UPDATE auth.identities SET identity_data = identity_data || jsonb_build_object('email', $2::text),
		updated_at = $3 WHERE user_id = $1 AND provider = 'email'`, u.ID, email, now)
	if err != nil {
		return fmt.Errorf("update email identity of %s: %w", u.ID, err)
	}
	if tag.RowsAffected() == 0 {
		if err := s.addIdentity(ctx, tx, u.ID, "email", u.ID, identityData(u.ID, nil, "email", email, confirmed)); err != nil {
			return err
		}
	}
	fresh, err := userByID(ctx, tx, u.ID)
	if err != nil {
		return err
	}
	*u = *fresh
	// The change is done: its codes must not confirm anything later.
	if _, err := tx.Exec(ctx, `DELETE FROM auth.one_time_tokens WHERE user_id = $1 AND token_type IN ('email_change_token_new','email_change_token_current')`, u.ID); err != nil {
		return fmt.Errorf("retire the email-change codes of %s: %w", u.ID, err)
	}
	return syncProviders(ctx, tx, u)
}

// changePhone starts a phone change: immediate with SMS autoconfirm, else
// an SMS code to the new number.
func (s *Service) changePhone(r *http.Request, tx pgx.Tx, u *user, phone string) error {
	ctx := r.Context()
	if other, err := userByPhone(ctx, tx, phone); err == nil && other.ID != u.ID {
		return unprocessable("phone_exists", "A user with this phone number has already been registered")
	} else if err != nil && !errors.Is(err, pg.ErrNotFound) {
		return err
	}
	if s.cfg.SMSAutoconfirm {
		return s.applyPhone(ctx, tx, u, phone)
	}
	if err := s.throttle(ctx, tx, u, "phone_change_sent_at", s.cfg.SMSMaxFrequency, "over_sms_send_rate_limit"); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE auth.users SET phone_change = $2 WHERE id = $1`, u.ID, phone); err != nil {
		return fmt.Errorf("start phone change of %s: %w", u.ID, err)
	}
	_, err := s.deliverSMS(ctx, tx, u, "phone_change_token", "phone_change_sent_at", "phone_change_token", phone)
	return err
}

// applyPhone sets and confirms the user's phone.
func (s *Service) applyPhone(ctx context.Context, tx pgx.Tx, u *user, phone string) error {
	now := s.now()
	if _, err := tx.Exec(ctx, `UPDATE auth.users SET phone = $2, phone_confirmed_at = $3, phone_change = '',
		phone_change_token = '', phone_change_sent_at = NULL, is_anonymous = false, updated_at = $3 WHERE id = $1`, u.ID, phone, now); err != nil {
		if pg.Is(err, "23505") {
			return unprocessable("phone_exists", "A user with this phone number has already been registered")
		}
		return fmt.Errorf("apply phone of %s: %w", u.ID, err)
	}
	tag, err := tx.Exec(ctx, `UPDATE auth.identities SET identity_data = identity_data || jsonb_build_object('phone', $2::text),
		updated_at = $3 WHERE user_id = $1 AND provider = 'phone'`, u.ID, phone, now)
	if err != nil {
		return fmt.Errorf("update phone identity of %s: %w", u.ID, err)
	}
	if tag.RowsAffected() == 0 {
		if err := s.addIdentity(ctx, tx, u.ID, "phone", u.ID, identityData(u.ID, nil, "phone", phone, true)); err != nil {
			return err
		}
	}
	fresh, err := userByID(ctx, tx, u.ID)
	if err != nil {
		return err
	}
	*u = *fresh
	return syncProviders(ctx, tx, u)
}

// nonceValid checks a reauthentication nonce against the stored hash. The
// nonce is hashed with the address it was sent to, like every code, so a
// leaked hash is useless on its own; it expires with the email OTP
// lifetime.
func (s *Service) nonceValid(u *user, nonce string) bool {
	if u.ReauthToken == "" || u.ReauthSentAt == nil || s.now().After(u.ReauthSentAt.Add(s.cfg.MailerOTPExp)) {
		return false
	}
	addr := u.Email
	if addr == "" {
		addr = u.Phone
	}
	return u.ReauthToken == otpHash(addr, nonce)
}
