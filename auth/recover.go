package auth

import (
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// recoverParams is the body of POST /recover; the code challenge makes the
// reset a PKCE flow (the link then carries ?code= instead of tokens).
type recoverParams struct {
	Email               string `json:"email"`
	CodeChallenge       string `json:"code_challenge"`
	CodeChallengeMethod string `json:"code_challenge_method"`
}

// recover handles POST /recover (contract E11): a password-reset mail, and
// {} for unknown addresses too, so accounts cannot be enumerated.
func (s *Service) recover(w http.ResponseWriter, r *http.Request) error {
	var p recoverParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if !s.cfg.EmailEnabled {
		return badRequest("email_provider_disabled", "Email logins are disabled")
	}
	if p.Email == "" {
		return badRequest("validation_failed", "Password recovery requires an email")
	}
	email, verr := validateEmail(p.Email)
	if verr != nil {
		return verr
	}
	pkce, err := checkPKCEParams(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	redirect := s.redirectTarget(r, "")
	ctx := r.Context()
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		u, err := userByEmail(ctx, tx, email)
		if errors.Is(err, pg.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		// The per-user gap between mails (MaxEmailFrequency) is what stops
		// someone from flooding a victim's inbox with resets. Like the
		// reference, a throttled known address answers 429 while an
		// unknown one answers {}: the per-IP limit bounds what that leaks.
		if err := s.throttle(ctx, tx, u, "recovery_sent_at", s.cfg.MaxEmailFrequency, "over_email_send_rate_limit"); err != nil {
			return err
		}
		if pkce {
			if err := s.createFlowState(ctx, tx, u.ID, p.CodeChallenge, p.CodeChallengeMethod, "recovery", "recovery"); err != nil {
				return err
			}
		}
		// The mail goes to the stored address, not the one typed: they only
		// differ in case, and the stored one is what the user confirmed.
		if _, err := s.deliverEmailOTP(ctx, tx, u, specRecovery, u.Email, redirect, pkce, true); err != nil {
			return err
		}
		return s.audit(ctx, tx, r, u, "user_recovery_requested", nil)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{})
	return nil
}

// resendParams is the body of POST /resend: Type names what to send again
// (signup, email_change, sms, phone_change).
type resendParams struct {
	Email               string `json:"email"`
	Phone               string `json:"phone"`
	Type                string `json:"type"`
	CodeChallenge       string `json:"code_challenge"`
	CodeChallengeMethod string `json:"code_challenge_method"`
}

// resend handles POST /resend (contract E10): re-sends a pending signup
// confirmation or email/phone change; silent when nothing is pending.
func (s *Service) resend(w http.ResponseWriter, r *http.Request) error {
	var p resendParams
	if err := decode(r, &p); err != nil {
		return err
	}
	switch p.Type {
	case "signup", "email_change", "sms", "phone_change":
	default:
		return badRequest("validation_failed", "Missing one of these types: signup, email_change, sms, phone_change")
	}
	// Unknown addresses and nothing-pending answer {} like a real resend, so
	// resend cannot be used to probe for accounts.
	if p.Email == "" && p.Phone == "" {
		return badRequest("validation_failed", "Missing email address or phone number")
	}
	if (p.Type == "signup" || p.Type == "email_change") && p.Email == "" {
		return badRequest("validation_failed", "Type provided requires an email address")
	}
	if (p.Type == "sms" || p.Type == "phone_change") && p.Phone == "" {
		return badRequest("validation_failed", "Type provided requires a phone number")
	}
	pkce, err := checkPKCEParams(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	redirect := s.redirectTarget(r, "")
	ctx := r.Context()
	var messageID string
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var u *user
		var err error
		switch p.Type {
		case "signup":
			email, verr := validateEmail(p.Email)
			if verr != nil {
				return verr
			}
			u, err = userByEmail(ctx, tx, email)
		case "email_change":
			email, verr := validateEmail(p.Email)
			if verr != nil {
				return verr
			}
			// An email change can be resent naming either the current or the new
			// address (auth-js sends whichever the app has at hand).
			u, err = loadUser(ctx, tx, `u.instance_id = $1 AND (lower(u.email) = $2 OR u.email_change = $2)`, instanceID, email)
		case "sms":
			phone, verr := validatePhone(p.Phone)
			if verr != nil {
				return verr
			}
			u, err = userByPhone(ctx, tx, phone)
		case "phone_change":
			phone, verr := validatePhone(p.Phone)
			if verr != nil {
				return verr
			}
			u, err = loadUser(ctx, tx, `u.instance_id = $1 AND u.phone_change = $2`, instanceID, phone)
		}
		if errors.Is(err, pg.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		// Each kind has its own sent-at column, so resending one kind of
		// message never resets the throttle of another.
		switch p.Type {
		case "signup":
			if u.EmailConfirmedAt != nil {
				return nil
			}
			if err := s.throttle(ctx, tx, u, "confirmation_sent_at", s.cfg.MaxEmailFrequency, "over_email_send_rate_limit"); err != nil {
				return err
			}
			return s.sendConfirmation(ctx, tx, u, signupParams{CodeChallenge: p.CodeChallenge, CodeChallengeMethod: p.CodeChallengeMethod}, redirect, pkce)
		case "email_change":
			if u.EmailChange == "" {
				return nil
			}
			if err := s.throttle(ctx, tx, u, "email_change_sent_at", s.cfg.MaxEmailFrequency, "over_email_send_rate_limit"); err != nil {
				return err
			}
			if _, err := s.deliverEmailOTP(ctx, tx, u, specEmailChangeNew, u.EmailChange, redirect, pkce, true); err != nil {
				return err
			}
			// The current address needs its code again only while it has not
			// confirmed yet.
			if s.cfg.SecureEmailChange && u.Email != "" && u.EmailChangeConfirmStatus == 0 {
				_, err = s.deliverEmailOTP(ctx, tx, u, specEmailChangeCurrent, u.Email, redirect, pkce, true)
			}
			return err
		case "sms":
			if u.PhoneConfirmedAt != nil {
				return nil
			}
			// Phone sign-ups share the confirmation columns with email
			// sign-ups, as in the reference's users table.
			if err := s.throttle(ctx, tx, u, "confirmation_sent_at", s.cfg.SMSMaxFrequency, "over_sms_send_rate_limit"); err != nil {
				return err
			}
			messageID, err = s.deliverSMS(ctx, tx, u, "confirmation_token", "confirmation_sent_at", "confirmation_token", u.Phone)
			return err
		default: // phone_change
			if err := s.throttle(ctx, tx, u, "phone_change_sent_at", s.cfg.SMSMaxFrequency, "over_sms_send_rate_limit"); err != nil {
				return err
			}
			messageID, err = s.deliverSMS(ctx, tx, u, "phone_change_token", "phone_change_sent_at", "phone_change_token", u.PhoneChange)
			return err
		}
	})
	if err != nil {
		return err
	}
	writeSent(w, messageID)
	return nil
}

// reauthenticate handles GET /reauthenticate (contract E15): a nonce by
// email (or SMS) for a later password change.
func (s *Service) reauthenticate(w http.ResponseWriter, r *http.Request, a *authed) error {
	u := a.user
	// The nonce goes to the address the user proved: email first, else phone.
	if u.Email == "" && u.Phone == "" {
		return badRequest("validation_failed", "Reauthentication requires the user to have an email or a phone number")
	}
	if u.Email != "" && u.EmailConfirmedAt == nil {
		return unprocessable("email_not_confirmed", "Please verify your email first.")
	}
	if u.Email == "" && u.PhoneConfirmedAt == nil {
		return unprocessable("phone_not_confirmed", "Please verify your phone first.")
	}
	// The nonce is stored hashed (see nonceValid) and checked by PUT /user
	// when a password change needs it.
	ctx := r.Context()
	var messageID string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := s.audit(ctx, tx, r, u, "user_reauthenticate_requested", nil); err != nil {
			return err
		}
		if u.Email != "" {
			if err := s.throttle(ctx, tx, u, "reauthentication_sent_at", s.cfg.MaxEmailFrequency, "over_email_send_rate_limit"); err != nil {
				return err
			}
			_, err := s.deliverEmailOTP(ctx, tx, u, specReauth, u.Email, "", false, true)
			return err
		}
		if err := s.throttle(ctx, tx, u, "reauthentication_sent_at", s.cfg.SMSMaxFrequency, "over_sms_send_rate_limit"); err != nil {
			return err
		}
		var err error
		messageID, err = s.deliverSMS(ctx, tx, u, "reauthentication_token", "reauthentication_sent_at", "reauthentication_token", u.Phone)
		return err
	})
	if err != nil {
		return err
	}
	writeSent(w, messageID)
	return nil
}
