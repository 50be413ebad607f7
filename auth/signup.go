package auth

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/pg"
)

// signupParams is the body of POST /signup (and the user part of /otp).
type signupParams struct {
	Email               string         `json:"email"`
	Phone               string         `json:"phone"`
	Password            string         `json:"password"`
	Data                map[string]any `json:"data"`
	Channel             string         `json:"channel"`
	CodeChallenge       string         `json:"code_challenge"`
	CodeChallengeMethod string         `json:"code_challenge_method"`
}

// signup handles POST /signup: anonymous sign-in when neither email nor
// phone is given, else an email or phone sign-up (contract E1).
func (s *Service) signup(w http.ResponseWriter, r *http.Request) error {
	var p signupParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.Email == "" && p.Phone == "" {
		// Anonymous sign-ins have their own hourly budget; the reference counts
		// them apart from the OTP-class requests below.
		if err := s.limit(r.Context(), "anon|"+httpx.ClientIP(r), s.cfg.RateLimits.Anonymous, time.Hour,
			"over_request_rate_limit", "Request rate limit reached"); err != nil {
			return err
		}
		return s.signupAnonymous(w, r, p)
	}
	if err := s.limit(r.Context(), "otp|"+httpx.ClientIP(r), s.cfg.RateLimits.OTP, 5*time.Minute,
		"over_request_rate_limit", "Request rate limit reached"); err != nil {
		return err
	}
	if s.cfg.DisableSignup {
		return unprocessable("signup_disabled", "Signups not allowed for this instance")
	}
	// The checks run in the reference's order, so a request with several
	// problems reports the same one.
	if p.Password == "" {
		return badRequest("validation_failed", "Signup requires a valid password")
	}
	// bcrypt ignores bytes past 72; accepting them would let two different
	// passwords match.
	if len(p.Password) > maxPasswordBytes {
		return tooLongPassword()
	}
	if err := s.checkPassword(p.Password); err != nil {
		return err
	}
	if p.Email != "" && p.Phone != "" {
		return badRequest("validation_failed", "Only an email address or phone number should be provided on signup.")
	}
	pkce, err := checkPKCEParams(p.CodeChallenge, p.CodeChallengeMethod)
	if err != nil {
		return err
	}
	if p.Phone != "" {
		if pkce {
			return badRequest("validation_failed", "PKCE not supported for phone signups")
		}
		return s.signupPhone(w, r, p)
	}
	if !s.cfg.EmailEnabled {
		return badRequest("email_provider_disabled", "Email signups are disabled")
	}
	email, verr := validateEmail(p.Email)
	if verr != nil {
		return verr
	}
	// The confirmation link sends the browser here after verification; an
	// unlisted redirect_to silently becomes the site URL.
	redirect := s.redirectTarget(r, "")
	// Hashed before the transaction, so no database connection waits on
	// bcrypt, and for taken addresses too, so the answer's timing does not
	// tell them from new ones.
	hash, err := s.hashPassword(p.Password)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var resp any
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		u, err := userByEmail(ctx, tx, email)
		switch {
		case errors.Is(err, pg.ErrNotFound):
		case err != nil:
			return err
		// A confirmed account exists. With autoconfirm the client gets the
		// real answer (it would have had a session anyway); otherwise the
		// reply must look like a fresh sign-up.
		case u.EmailConfirmedAt != nil:
			if s.cfg.MailerAutoconfirm {
				return unprocessable("user_already_exists", "User already registered")
			}
			// No account enumeration: answer as for a new user, send nothing.
			resp = s.fakeUser(email, p.Data)
			return s.audit(ctx, tx, r, u, "user_repeated_signup", map[string]any{"provider": "email"})
		default:
			// Unconfirmed: resend the confirmation, change nothing else.
			if err := s.throttle(ctx, tx, u, "confirmation_sent_at", s.cfg.MaxEmailFrequency, "over_email_send_rate_limit"); err != nil {
				return err
			}
			if err := s.sendConfirmation(ctx, tx, u, p, redirect, pkce); err != nil {
				return err
			}
			resp, err = userByID(ctx, tx, u.ID)
			return err
		}
		// A new address: create the user (one INSERT, metadata included, so
		// app triggers on auth.users see it) and its email identity.
		u, err = s.createUser(ctx, tx, newUserParams{Email: email, PasswordHash: hash, UserMetadata: p.Data})
		if err != nil {
			return err
		}
		// The audit entry says whether the account is usable yet.
		action := "user_confirmation_requested"
		if s.cfg.MailerAutoconfirm {
			action = "user_signedup"
		}
		if err := s.audit(ctx, tx, r, u, action, map[string]any{"provider": "email"}); err != nil {
			return err
		}
		if s.cfg.MailerAutoconfirm {
			if err := s.confirmEmail(ctx, tx, u); err != nil {
				return err
			}
			if u, err = userByID(ctx, tx, u.ID); err != nil {
				return err
			}
			// Autoconfirm: the sign-up is also a sign-in (amr password).
			resp, err = s.issueSession(ctx, tx, r, u, "password")
			return err
		}
		if err := s.sendConfirmation(ctx, tx, u, p, redirect, pkce); err != nil {
			return err
		}
		resp, err = userByID(ctx, tx, u.ID)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// sendConfirmation mails a sign-up confirmation, starting a PKCE flow first
// when the client asked for one.
func (s *Service) sendConfirmation(ctx context.Context, tx pgx.Tx, u *user, p signupParams, redirect string, pkce bool) error {
	// "email/signup" becomes the session's amr method when the flow is
	// exchanged, as the reference records it.
	if pkce {
		if err := s.createFlowState(ctx, tx, u.ID, p.CodeChallenge, p.CodeChallengeMethod, "email", "email/signup"); err != nil {
			return err
		}
	}
	_, err := s.deliverEmailOTP(ctx, tx, u, specConfirmation, u.Email, redirect, pkce, true)
	return err
}

// fakeUser is the anti-enumeration answer for an already registered email:
// shaped like a fresh unconfirmed user (new random id, confirmation just
// "sent", no identities), so the response cannot be told apart from a
// real sign-up. Nothing is stored and no mail goes out, so the owner's
// account is untouched.
func (s *Service) fakeUser(email string, data map[string]any) *user {
	now := s.now().UTC()
	if data == nil {
		data = map[string]any{}
	}
	return &user{ID: newUUID(), Aud: s.cfg.JWTAud, Role: s.cfg.JWTDefaultRole, Email: email, ConfirmationSentAt: &now,
		AppMetadata: map[string]any{"provider": "email", "providers": []any{"email"}}, UserMetadata: data,
		Identities: []identity{}, CreatedAt: now, UpdatedAt: now}
}

// signupPhone signs up with a phone number and password; the number is
// confirmed by SMS unless SMS autoconfirm is on.
func (s *Service) signupPhone(w http.ResponseWriter, r *http.Request, p signupParams) error {
	if !s.cfg.PhoneEnabled {
		return badRequest("phone_provider_disabled", "Phone signups are disabled")
	}
	phone, verr := validatePhone(p.Phone)
	if verr != nil {
		return verr
	}
	hash, err := s.hashPassword(p.Password)
	if err != nil {
		return err
	}
	ctx := r.Context()
	var resp any
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		u, err := userByPhone(ctx, tx, phone)
		switch {
		case errors.Is(err, pg.ErrNotFound):
			if u, err = s.createUser(ctx, tx, newUserParams{Phone: phone, PasswordHash: hash, UserMetadata: p.Data}); err != nil {
				return err
			}
		case err != nil:
			return err
		// The same rule as for email: only with autoconfirm, where a
		// sign-up would have returned a session anyway, does a taken
		// number get a real error.
		case u.PhoneConfirmedAt != nil:
			if s.cfg.SMSAutoconfirm {
				return unprocessable("user_already_exists", "User already registered")
			}
			resp = s.fakeUser("", p.Data)
			return nil
		}
		if s.cfg.SMSAutoconfirm {
			if err := s.confirmPhone(ctx, tx, u); err != nil {
				return err
			}
			if u, err = userByID(ctx, tx, u.ID); err != nil {
				return err
			}
			resp, err = s.issueSession(ctx, tx, r, u, "password")
			return err
		}
		if err := s.throttle(ctx, tx, u, "confirmation_sent_at", s.cfg.SMSMaxFrequency, "over_sms_send_rate_limit"); err != nil {
			return err
		}
		if _, err := s.deliverSMS(ctx, tx, u, "confirmation_token", "confirmation_sent_at", "confirmation_token", phone); err != nil {
			return err
		}
		resp, err = userByID(ctx, tx, u.ID)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// signupAnonymous creates an anonymous user and signs it in. The user has
// no email, phone or identity; it can later become permanent by adding an
// email or phone through PUT /user, keeping its id and data. Its tokens
// carry is_anonymous, which RLS policies use to tell such users apart.
func (s *Service) signupAnonymous(w http.ResponseWriter, r *http.Request, p signupParams) error {
	if !s.cfg.AnonymousEnabled {
		return unprocessable("anonymous_provider_disabled", "Anonymous sign-ins are disabled")
	}
	if s.cfg.DisableSignup {
		return unprocessable("signup_disabled", "Signups not allowed for this instance")
	}
	ctx := r.Context()
	var resp *tokenResponse
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		u, err := s.createUser(ctx, tx, newUserParams{UserMetadata: p.Data, Anonymous: true})
		if err != nil {
			return err
		}
		resp, err = s.issueSession(ctx, tx, r, u, "anonymous")
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}
