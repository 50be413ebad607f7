package auth

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// otpParams is the body of POST /otp (and /magiclink). A channel (sms or
// whatsapp) only means something for phone codes.
type otpParams struct {
	Email               string         `json:"email" validate:"excluded_with=Phone" msg:"Only an email address or phone number should be provided"`
	Phone               string         `json:"phone" validate:"required_without=Email" msg:"One of email or phone must be set"`
	Data                map[string]any `json:"data"`
	CreateUser          *bool          `json:"create_user"`
	Channel             string         `json:"channel" validate:"excluded_with=Email" msg:"Channel should only be specified with Phone OTP"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`
}

// randomPassword is the password of users created without one (OTP and
// admin sign-ups, accepted invitations): 256 random bits nobody knows, so
// the password grant cannot succeed until the user sets a password of
// their own, yet the account looks like any other password account.
func randomPassword() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// magicLink handles the legacy POST /magiclink: an email-only /otp.
func (s *Service) magicLink(w http.ResponseWriter, r *http.Request) error {
	return s.otp(w, r)
}

// otp handles POST /otp (contract E7): a magic link + code by email, or a
// code by SMS, signing the user up first when allowed.
func (s *Service) otp(w http.ResponseWriter, r *http.Request) error {
	var p otpParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if err := checkBody(&p); err != nil {
		return err
	}
	// create_user defaults to true: an OTP request for a new address signs
	// it up, unless the app opted out.
	createUser := p.CreateUser == nil || *p.CreateUser
	pkce, err := checkPKCEParams(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	if p.Phone != "" {
		return s.otpPhone(w, r, p, createUser)
	}
	if !s.cfg.EmailEnabled {
		return unprocessable("email_provider_disabled", "Email logins are disabled")
	}
	// Both switches give the same code as in the reference, so auth-js
	// apps handle them alike; the message tells an operator which one.
	if !s.cfg.MagicLinkEnabled {
		return unprocessable("email_provider_disabled", "Login with magic link is disabled")
	}
	email, verr := validateEmail(p.Email)
	if verr != nil {
		return verr
	}
	redirect := s.redirectTarget(r, "")
	ctx := r.Context()
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		u, err := userByEmail(ctx, tx, email)
		if errors.Is(err, pg.ErrNotFound) {
			// With create_user false an unknown address is an error, as in
			// the reference: the app asked for sign-in only, and auth-js
			// shows the message. This does reveal which addresses exist;
			// apps that mind leave create_user on.
			if !createUser {
				return unprocessable("otp_disabled", "Signups not allowed for otp")
			}
			if s.cfg.DisableSignup {
				return unprocessable("signup_disabled", "Signups not allowed for this instance")
			}
			hash, err := s.hashPassword(randomPassword())
			if err != nil {
				return err
			}
			if u, err = s.createUser(ctx, tx, newUserParams{Email: email, PasswordHash: hash, UserMetadata: p.Data}); err != nil {
				return err
			}
			// With autoconfirm the new user is confirmed at once and gets
			// a magic link below, like any confirmed user.
			if s.cfg.MailerAutoconfirm {
				if err := s.confirmEmail(ctx, tx, u); err != nil {
					return err
				}
				if u, err = userByID(ctx, tx, u.ID); err != nil {
					return err
				}
			}
		} else if err != nil {
			return err
		}
		// An unconfirmed user gets a sign-up confirmation (its link and code
		// confirm and sign in); a confirmed one gets a magic link.
		if u.EmailConfirmedAt == nil {
			if err := s.throttle(ctx, tx, u, "confirmation_sent_at", s.cfg.MaxEmailFrequency, "over_email_send_rate_limit"); err != nil {
				return err
			}
			return s.sendConfirmation(ctx, tx, u, signupParams{CodeChallenge: p.CodeChallenge, CodeChallengeMethod: p.CodeChallengeMethod}, redirect, pkce)
		}
		if err := s.throttle(ctx, tx, u, "recovery_sent_at", s.cfg.MaxEmailFrequency, "over_email_send_rate_limit"); err != nil {
			return err
		}
		// PKCE: the link will carry ?code= for this flow instead of tokens.
		if pkce {
			if err := s.createFlowState(ctx, tx, u.ID, p.CodeChallenge, p.CodeChallengeMethod, "magiclink", "magiclink"); err != nil {
				return err
			}
		}
		_, err = s.deliverEmailOTP(ctx, tx, u, specMagicLink, u.Email, redirect, pkce, true)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{})
	return nil
}

// otpPhone texts a sign-in code, creating the user when allowed. Phone
// users have a single code kind: the confirmation code both confirms the
// number and signs in, as in the reference.
func (s *Service) otpPhone(w http.ResponseWriter, r *http.Request, p otpParams, createUser bool) error {
	if !s.cfg.PhoneEnabled {
		return unprocessable("phone_provider_disabled", "Unsupported phone provider")
	}
	phone, verr := validatePhone(p.Phone)
	if verr != nil {
		return verr
	}
	ctx := r.Context()
	var messageID string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		u, err := userByPhone(ctx, tx, phone)
		if errors.Is(err, pg.ErrNotFound) {
			if !createUser {
				return unprocessable("otp_disabled", "Signups not allowed for otp")
			}
			if s.cfg.DisableSignup {
				return unprocessable("signup_disabled", "Signups not allowed for this instance")
			}
			hash, err := s.hashPassword(randomPassword())
			if err != nil {
				return err
			}
			if u, err = s.createUser(ctx, tx, newUserParams{Phone: phone, PasswordHash: hash, UserMetadata: p.Data}); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		if err := s.throttle(ctx, tx, u, "confirmation_sent_at", s.cfg.SMSMaxFrequency, "over_sms_send_rate_limit"); err != nil {
			return err
		}
		messageID, err = s.deliverSMS(ctx, tx, u, "confirmation_token", "confirmation_sent_at", "confirmation_token", phone)
		return err
	})
	if err != nil {
		return err
	}
	writeSent(w, messageID)
	return nil
}

// writeSent answers a request that sent a code: SMS answers carry the
// provider's message id (auth-js returns it as data.messageId), email
// answers are an empty object, as the reference's are.
func writeSent(w http.ResponseWriter, messageID string) {
	if messageID != "" {
		writeJSON(w, http.StatusOK, map[string]any{"message_id": messageID})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{})
}
