package auth

import (
	"errors"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/pg"
)

// token dispatches POST /token on the grant_type query parameter. The
// grant is in the query, not the body, as in the reference; an unknown
// grant gets the reference's odd-looking invalid_credentials answer,
// which auth-js passes through.
func (s *Service) token(w http.ResponseWriter, r *http.Request) error {
	grant := r.URL.Query().Get("grant_type")
	// One per-IP budget for every grant, keyed by the client address
	// alone, as the reference keys it. Over budget, other grants are
	// refused outright; a password attempt still gets a look per account
	// (see guessing.go), or a guesser behind a shared address would lock
	// out everyone behind it.
	rl := s.cfg.RateLimits
	within, err := s.allow(r.Context(), "token|"+httpx.ClientIP(r), rl.Token, tokenWindow)
	if err != nil {
		return err
	}
	hot := !within
	if hot && (grant != "password" || rl.PasswordFailures == 0) {
		return tooMany("over_request_rate_limit", "Request rate limit reached")
	}
	switch grant {
	case "password":
		return s.tokenPassword(w, r, hot)
	case "refresh_token":
		return s.tokenRefresh(w, r)
	case "pkce":
		return s.tokenPKCE(w, r)
	case "id_token":
		return s.tokenIDToken(w, r)
	case "web3":
		return unprocessable("web3_provider_disabled", "Web3 provider is disabled")
	}
	return badRequest("invalid_credentials", "unsupported_grant_type")
}

// passwordParams is the body of grant_type=password: an email or a phone
// number, never both.
type passwordParams struct {
	Email    string `json:"email"`
	Phone    string `json:"phone"`
	Password string `json:"password"`
}

// tokenPassword handles grant_type=password (contract E2). hot says the
// client address is over its per-IP budget.
func (s *Service) tokenPassword(w http.ResponseWriter, r *http.Request, hot bool) error {
	var p passwordParams
	if err := decode(r, &p); err != nil {
		return err
	}
	if p.Email != "" && p.Phone != "" {
		return badRequest("validation_failed", "Only an email address or phone number should be provided on login.")
	}
	if p.Email == "" && p.Phone == "" {
		return badRequest("validation_failed", "missing email or phone")
	}
	// Unknown user, missing password and wrong password answer alike, so
	// the endpoint does not reveal which addresses have accounts.
	invalid := badRequest("invalid_credentials", "Invalid login credentials")
	ctx := r.Context()
	var account, email, phone string
	if p.Email != "" {
		if !s.cfg.EmailEnabled {
			return unprocessable("email_provider_disabled", "Email logins are disabled")
		}
		// The address is only normalised here, not validated: a malformed
		// one simply finds no user and gets invalid_credentials.
		email = strings.ToLower(strings.TrimSpace(p.Email))
		account = accountKey("email", email)
	} else {
		if !s.cfg.PhoneEnabled {
			return unprocessable("phone_provider_disabled", "Phone logins are disabled")
		}
		var verr *apiError
		if phone, verr = validatePhone(p.Phone); verr != nil {
			return invalid
		}
		account = accountKey("phone", phone)
	}
	// Guessing limits come before the account is even looked up, and
	// count unknown accounts like real ones, so they reveal nothing.
	ip := httpx.ClientIP(r)
	if s.cfg.RateLimits.PasswordFailures > 0 {
		ok, err := s.claimPasswordAttempt(ctx, account, ip, hot)
		if err != nil {
			return err
		}
		if !ok {
			return tooMany("over_request_rate_limit", "Request rate limit reached")
		}
	}
	var u *user
	var err error
	if email != "" {
		u, err = userByEmail(ctx, s.db, email)
	} else {
		u, err = userByPhone(ctx, s.db, phone)
	}
	if errors.Is(err, pg.ErrNotFound) {
		// The same bcrypt work as a wrong password, so the answer's timing
		// does not tell the two apart either.
		if _, err := s.signInPassword("", p.Password); err != nil {
			return err
		}
		return invalid
	}
	if err != nil {
		return err
	}
	// The ban is checked before the password, as in the reference.
	if u.isBanned(s.now()) {
		return badRequest("user_banned", "User is banned")
	}
	ok, err := s.signInPassword(u.EncryptedPassword, p.Password)
	if err != nil {
		return err
	}
	if !ok {
		return invalid
	}
	if s.cfg.RateLimits.PasswordFailures > 0 {
		if err := s.passwordAccepted(ctx, account, ip); err != nil {
			return err
		}
	}
	// Confirmation is checked after the password, so only someone who
	// knows it learns that the address is unconfirmed.
	if p.Email != "" && u.EmailConfirmedAt == nil {
		return badRequest("email_not_confirmed", "Email not confirmed")
	}
	if p.Phone != "" && u.PhoneConfirmedAt == nil {
		return badRequest("phone_not_confirmed", "Phone not confirmed")
	}
	// The user was read and its password checked outside any transaction:
	// bcrypt takes tens of milliseconds, and holding a connection (and a
	// snapshot) for it would let a burst of sign-ins starve the pool.
	var resp *tokenResponse
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		resp, err = s.issueSession(ctx, tx, r, u, "password")
		return err
	})
	if err != nil {
		return err
	}
	// A correct password that no longer meets the policy still signs in;
	// the client shows weak_password and can ask for a new one.
	resp.WeakPassword = s.weakness(p.Password)
	writeJSON(w, http.StatusOK, resp)
	return nil
}
