package auth

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

type generateLinkParams struct {
	Type       string         `json:"type"`
	Email      string         `json:"email"`
	NewEmail   string         `json:"new_email"`
	Password   string         `json:"password"`
	Data       map[string]any `json:"data"`
	RedirectTo string         `json:"redirect_to"`
}

// adminGenerateLink handles POST /admin/generate_link (contract E34): it
// creates the token a mail would carry, without sending, and returns the
// user flattened together with the link properties.
func (s *Service) adminGenerateLink(w http.ResponseWriter, r *http.Request) error {
	var p generateLinkParams
	if err := decode(r, &p); err != nil {
		return err
	}
	email, verr := validateEmail(p.Email)
	if verr != nil {
		return verr
	}
	redirect := s.redirectTarget(r, p.RedirectTo)
	ctx := r.Context()
	var u *user
	var d *otpDelivery
	// The link type can differ from the requested type: a magic link for an
	// unknown address is a sign-up.
	linkType := p.Type
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		u, err = userByEmail(ctx, tx, email)
		missing := errors.Is(err, pg.ErrNotFound)
		if err != nil && !missing {
			return err
		}
		switch p.Type {
		case "magiclink":
			if missing {
				// An unknown address turns the magic link into a sign-up.
				linkType = "signup"
				if u, err = s.createUser(ctx, tx, newUserParams{Email: email, PasswordHash: mustHash(s, randomPassword()), UserMetadata: p.Data}); err != nil {
					return err
				}
				d, err = s.deliverEmailOTP(ctx, tx, u, specConfirmation, email, redirect, false, false)
				return err
			}
			d, err = s.deliverEmailOTP(ctx, tx, u, specMagicLink, email, redirect, false, false)
		// Recovery and email change need an existing user; there is nothing to
		// recover for an unknown address.
		case "recovery":
			if missing {
				return notFound("user_not_found", "User with this email not found")
			}
			d, err = s.deliverEmailOTP(ctx, tx, u, specRecovery, email, redirect, false, false)
		// Sign-up and invite links create the user now (unconfirmed) when it
		// does not exist yet; a confirmed user cannot be signed up twice.
		case "signup", "invite":
			if !missing && u.EmailConfirmedAt != nil {
				return unprocessable("email_exists", "A user with this email address has already been registered")
			}
			if missing {
				np := newUserParams{Email: email, UserMetadata: p.Data}
				if p.Type == "signup" {
					if p.Password == "" {
						return badRequest("validation_failed", "Signup requires a valid password")
					}
					if err := s.checkPassword(p.Password); err != nil {
						return err
					}
					np.PasswordHash = mustHash(s, p.Password)
				} else {
					now := s.now()
					np.InvitedAt = &now
				}
				if u, err = s.createUser(ctx, tx, np); err != nil {
					return err
				}
			}
			spec := specConfirmation
			if p.Type == "invite" {
				spec = specInvite
			}
			d, err = s.deliverEmailOTP(ctx, tx, u, spec, email, redirect, false, false)
		case "email_change_current", "email_change_new":
			if missing {
				return notFound("user_not_found", "User with this email not found")
			}
			newEmail, verr := validateEmail(p.NewEmail)
			if verr != nil {
				return verr
			}
			if other, err := userByEmail(ctx, tx, newEmail); err == nil && other.ID != u.ID {
				return unprocessable("email_exists", "A user with this email address has already been registered")
			}
			if _, err := tx.Exec(ctx, `UPDATE auth.users SET email_change = $2, email_change_confirm_status = 0 WHERE id = $1`, u.ID, newEmail); err != nil {
				return err
			}
			u.EmailChange = newEmail
			spec, to := specEmailChangeNew, newEmail
			if p.Type == "email_change_current" {
				spec, to = specEmailChangeCurrent, email
			}
			linkType = "email_change"
			d, err = s.deliverEmailOTP(ctx, tx, u, spec, to, redirect, false, false)
		default:
			return badRequest("validation_failed", "Invalid email action link type requested: %s", p.Type)
		}
		if err != nil {
			return err
		}
		u, err = userByID(ctx, tx, u.ID)
		return err
	})
	if err != nil {
		return err
	}
	// Flatten: the user's fields plus the five link properties.
	b, err := json.Marshal(u)
	if err != nil {
		return err
	}
	out := map[string]any{}
	if err := json.Unmarshal(b, &out); err != nil {
		return err
	}
	// The client splits these five keys into data.properties and keeps
	// the rest as data.user.
	out["action_link"] = d.Link
	out["email_otp"] = d.OTP
	out["hashed_token"] = d.Hash
	out["verification_type"] = linkType
	out["redirect_to"] = redirect
	writeJSON(w, http.StatusOK, out)
	return nil
}

// mustHash hashes a password; bcrypt only fails on invalid cost, which
// Validate already rejected.
func mustHash(s *Service, pw string) string {
	h, err := s.hashPassword(pw)
	if err != nil {
		panic(err)
	}
	return h
}
