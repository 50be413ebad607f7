package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// verifyParams is the body of POST /verify (and the query of GET /verify):
// either a typed code with the address it was sent to, or the token hash
// an email link carries, which names its user by itself.
type verifyParams struct {
	Type  string `json:"type" validate:"required" msg:"Verify requires a verification type"`
	Token string `json:"token" validate:"required_without=TokenHash,excluded_with=TokenHash" msg:"Verify requires either a token or a token hash"`
	// A token hash already identifies the user; extra fields are refused
	// rather than ignored, as the reference does, so a client cannot think
	// it verified one address while the hash belongs to another.
	TokenHash  string `json:"token_hash" validate:"excluded_with=Email Phone RedirectTo" msg:"Only the token_hash and type should be provided"`
	Email      string `json:"email"`
	Phone      string `json:"phone"`
	RedirectTo string `json:"redirect_to"`
}

// emailVerifyTypes are the verify types whose codes went out by email;
// "email" is the generic OTP type auth-js sends for typed email codes.
var emailVerifyTypes = map[string]bool{"signup": true, "invite": true, "magiclink": true, "recovery": true,
	"email_change": true, "email": true}

// emailChangeMessage is the answer to the first half of a secure email change.
const emailChangeMessage = "Confirmation link accepted. Please proceed to confirm link sent to the other email"

// verified is the outcome of checking a code: the user, the effective type
// (email is re-typed to signup or magiclink), whether the stored token was a
// PKCE one, and, for the first half of an email change, only a message.
type verified struct {
	user    *user
	typ     string
	pkce    bool
	message string
}

// verifyPost handles POST /verify (contract E9).
func (s *Service) verifyPost(w http.ResponseWriter, r *http.Request) error {
	var p verifyParams
	if err := decode(r, &p); err != nil {
		return err
	}
	// Codes may be typed with dashes ("123-456"), as the reference allows.
	p.Token = strings.ReplaceAll(p.Token, "-", "")
	if err := checkBody(&p); err != nil {
		return err
	}
	switch {
	case p.Type == "sms" || p.Type == "phone_change":
		if p.TokenHash == "" {
			phone, verr := validatePhone(p.Phone)
			if verr != nil {
				return verr
			}
			p.Phone = phone
		}
	case emailVerifyTypes[p.Type]:
		if p.TokenHash == "" {
			email, verr := validateEmail(p.Email)
			if verr != nil {
				// Verify has its own message for a bad address in the
				// reference, not the generic one validateEmail gives.
				return unprocessable("validation_failed", "Invalid email format")
			}
			p.Email = email
		}
	default:
		return badRequest("validation_failed", "Unsupported verification type")
	}
	ctx := r.Context()
	var resp any
	// Checking the code, clearing it and starting the session commit
	// together: a code can never be spent without its session, nor used
	// twice by concurrent requests (the second finds it cleared).
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		v, err := s.checkCode(ctx, tx, p)
		if err != nil {
			return err
		}
		// The first half of a secure email change answers with a message
		// instead of a session, in the reference's {msg, code} shape.
		if v.message != "" {
			resp = map[string]string{"msg": v.message, "code": "200"}
			return nil
		}
		resp, err = s.issueSession(ctx, tx, r, v.user, "otp")
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// verifyGet handles GET /verify, the target of email links (contract E8):
// always a 303 to the redirect URL, with tokens in the fragment (implicit),
// ?code= (PKCE) or the error.
func (s *Service) verifyGet(w http.ResponseWriter, r *http.Request) error {
	// Links carry the token hash in ?token=; the redirect target is checked
	// against the allow-list before anything else, so even error answers
	// only ever send the browser to a trusted site.
	q := r.URL.Query()
	p := verifyParams{Type: q.Get("type"), TokenHash: q.Get("token")}
	redirect := s.redirectTarget(r, "")
	pkce := strings.HasPrefix(p.TokenHash, "pkce_")
	ctx := r.Context()
	var location string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if p.Type == "" || !emailVerifyTypes[p.Type] || p.Type == "email" {
			return badRequest("validation_failed", "Verify requires a verification type")
		}
		if p.TokenHash == "" {
			return badRequest("validation_failed", "Verify requires a token or a token hash")
		}
		v, err := s.checkCode(ctx, tx, p)
		if err != nil {
			return err
		}
		if v.message != "" {
			location = withParams(redirect, v.pkce, url.Values{"message": {v.message}, "sb": {""}})
			return nil
		}
		// PKCE: no tokens in the URL; the app exchanges ?code= with its verifier.
		if v.pkce {
			code, err := s.issueAuthCode(ctx, tx, v.user.ID, flowMethodFor(v.typ))
			if err != nil {
				return err
			}
			location = addQuery(redirect, url.Values{"code": {code}})
			return nil
		}
		t, err := s.issueSession(ctx, tx, r, v.user, "otp")
		if err != nil {
			return err
		}
		// Implicit flow: tokens in the fragment, which never reaches servers;
		// url.Values.Encode sorts the keys as the reference does.
		location = redirect + "#" + url.Values{
			"access_token": {t.AccessToken}, "expires_at": {strconv.FormatInt(t.ExpiresAt, 10)},
			"expires_in": {strconv.Itoa(t.ExpiresIn)}, "refresh_token": {t.RefreshToken}, "sb": {""},
			"token_type": {"bearer"}, "type": {v.typ},
		}.Encode()
		return nil
	})
	// A link is opened by a browser, not by auth-js: errors are redirects
	// too, carrying the reference's error, error_code and
	// error_description so the app can show them.
	if err != nil {
		var ae *apiError
		if !errors.As(err, &ae) || ae.Status >= 500 {
			s.log.ErrorContext(ctx, "verify failed", "err", err)
			ae = internalErr(err)
		}
		// Error redirects drop the target's own query, as the reference does.
		base := redirect
		if u, perr := url.Parse(redirect); perr == nil {
			u.RawQuery, u.Fragment = "", ""
			base = u.String()
		}
		location = withParams(base, pkce, url.Values{"error": {oauthErrorFor(ae.Status)}, "error_code": {ae.Code},
			"error_description": {ae.Message}, "sb": {""}})
	}
	http.Redirect(w, r, location, http.StatusSeeOther)
	return nil
}

// withParams puts v in the fragment, and for PKCE flows in the query too:
// a PKCE app reads the query (where ?code= arrives), an implicit-flow app
// the fragment, and the reference writes both for PKCE so either works.
func withParams(base string, query bool, v url.Values) string {
	if query {
		base = addQuery(base, v)
	}
	return base + "#" + v.Encode()
}

// addQuery merges v into base's query; a base that does not parse is
// returned as is (it passed the allow-list, so it is one of ours).
func addQuery(base string, v url.Values) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// oauthErrorFor maps an HTTP status to the OAuth 2.0 error code the
// reference puts in error redirects (RFC 6749 section 4.1.2.1).
func oauthErrorFor(status int) string {
	switch status {
	case 400:
		return "invalid_request"
	case 401:
		return "unauthorized_client"
	case 403:
		return "access_denied"
	case 503:
		return "temporarily_unavailable"
	}
	return "server_error"
}

// flowMethodFor is the flow_state authentication method of a link type;
// only sign-up differs from the link's type, as in the reference's flow
// state records.
func flowMethodFor(typ string) string {
	switch typ {
	case "signup":
		return "email/signup"
	}
	return typ
}

// checkCode finds the user a code or token hash belongs to, checks expiry,
// applies the verification (confirm, recover, change email/phone) and
// clears the token. Errors are GoTrue's 403 otp_expired.
func (s *Service) checkCode(ctx context.Context, tx pgx.Tx, p verifyParams) (*verified, error) {
	expiredMsg := "Token has expired or is invalid"
	if p.TokenHash != "" {
		expiredMsg = "Email link is invalid or has expired"
	}
	expired := forbidden("otp_expired", "%s", expiredMsg)
	// The stored form is the SHA-224 of address+code; PKCE flows store it
	// with a pkce_ prefix, so both are tried for typed codes.
	var hashes []string
	switch {
	case p.TokenHash != "":
		hashes = []string{p.TokenHash}
	case p.Phone != "":
		h := otpHash(p.Phone, p.Token)
		hashes = []string{h}
	default:
		h := otpHash(p.Email, p.Token)
		hashes = []string{h, "pkce_" + h}
	}
	// candidates: which column to look in for each type, and the address
	// column the user is found by (when the request named one).
	type cand struct{ typ, column, sentAt, addrCond string }
	var cands []cand
	emailCond := `u.instance_id = '` + instanceID + `' AND lower(u.email) = $2` // matches users_instance_id_email_idx
	switch p.Type {
	case "signup", "invite":
		cands = []cand{{p.Type, "confirmation_token", "confirmation_sent_at", emailCond}}
	case "magiclink", "recovery":
		cands = []cand{{p.Type, "recovery_token", "recovery_sent_at", emailCond}}
	case "email":
		cands = []cand{{"signup", "confirmation_token", "confirmation_sent_at", emailCond},
			{"magiclink", "recovery_token", "recovery_sent_at", emailCond}}
	case "email_change":
		cands = []cand{{"email_change", "email_change_token_new", "email_change_sent_at", `u.email_change = $2`},
			{"email_change", "email_change_token_current", "email_change_sent_at", emailCond}}
	case "sms":
		cands = []cand{{"sms", "confirmation_token", "confirmation_sent_at", `u.phone = $2`}}
	case "phone_change":
		cands = []cand{{"phone_change", "phone_change_token", "phone_change_sent_at", `u.phone_change = $2`}}
	}
	addr := p.Email
	if p.Phone != "" {
		addr = p.Phone
	}
	// The fixed test codes of GOTRUE_SMS_TEST_OTP short-circuit the lookup
	// (they are never stored, so there is nothing to find or expire).
	if p.Type == "sms" && s.cfg.SMSTestOTP[p.Phone] != "" && s.cfg.SMSTestOTP[p.Phone] == p.Token {
		u, err := userByPhone(ctx, tx, p.Phone)
		if errors.Is(err, pg.ErrNotFound) {
			return nil, expired
		}
		if err != nil {
			return nil, err
		}
		return s.applyVerification(ctx, tx, u, "sms", "confirmation_token", false)
	}
	// Candidates in order: the first column holding a matching, unexpired
	// code wins (type email tries the sign-up code, then the magic link).
	for _, c := range cands {
		var u *user
		var err error
		if p.TokenHash != "" {
			// The regex repeats the token indexes' predicate so they are used.
			u, err = loadUser(ctx, tx, fmt.Sprintf(`u.%s = $1 AND u.%s !~ '^[0-9 ]*$'`, c.column, c.column), hashes[0])
		} else {
			u, err = loadUser(ctx, tx, fmt.Sprintf(`u.%s = ANY($1) AND u.%s <> '' AND %s`, c.column, c.column, c.addrCond), hashes, addr)
		}
		if errors.Is(err, pg.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sent := u.sentAtOf(otpSpec{sentAt: c.sentAt})
		if c.sentAt == "confirmation_sent_at" {
			sent = u.ConfirmationSentAt
		}
		exp := s.cfg.MailerOTPExp
		if c.typ == "sms" || c.typ == "phone_change" {
			exp = s.cfg.SMSOTPExp
		}
		// An expired code answers exactly like a wrong one: the caller
		// learns nothing about which codes exist.
		if sent == nil || s.now().After(sent.Add(exp)) {
			return nil, expired
		}
		if u.isBanned(s.now()) {
			return nil, forbidden("user_banned", "User is banned")
		}
		stored := map[string]string{"confirmation_token": u.ConfirmationToken, "recovery_token": u.RecoveryToken,
			"email_change_token_new": u.EmailChangeTokenNew, "email_change_token_current": u.EmailChangeTokenCurrent,
			"phone_change_token": u.PhoneChangeToken}[c.column]
		return s.applyVerification(ctx, tx, u, c.typ, c.column, strings.HasPrefix(stored, "pkce_"))
	}
	return nil, expired
}

// applyVerification performs what a verified code of typ means, clearing
// the code it consumed so it cannot be used again. It ends with
// app_metadata.providers recomputed, since confirming an email or phone may
// have added an identity.
func (s *Service) applyVerification(ctx context.Context, tx pgx.Tx, u *user, typ, column string, pkce bool) (*verified, error) {
	now := s.now()
	v := &verified{typ: typ, pkce: pkce}
	switch typ {
	case "signup", "invite":
		if u.EncryptedPassword == "" && u.InvitedAt != nil {
			// An invited user gets a random password until they set one.
			hash, err := s.hashPassword(randomPassword())
			if err != nil {
				return nil, err
			}
			if _, err := tx.Exec(ctx, `UPDATE auth.users SET encrypted_password = $2 WHERE id = $1`, u.ID, hash); err != nil {
				return nil, fmt.Errorf("set invited user's password: %w", err)
			}
		}
		if err := s.confirmEmail(ctx, tx, u); err != nil {
			return nil, err
		}
	case "magiclink", "recovery":
		// Magic links and recoveries share recovery_token, as in the
		// reference's schema; following either also proves the address.
		if _, err := tx.Exec(ctx, `UPDATE auth.users SET recovery_token = '', updated_at = $2 WHERE id = $1`, u.ID, now); err != nil {
			return nil, fmt.Errorf("clear recovery token of %s: %w", u.ID, err)
		}
		if err := deleteOneTimeToken(ctx, tx, u.ID, "recovery_token"); err != nil {
			return nil, err
		}
		if u.EmailConfirmedAt == nil {
			if err := s.confirmEmail(ctx, tx, u); err != nil {
				return nil, err
			}
		}
	case "email_change":
		// Secure change: the first of the two codes (either address) only
		// records its half; the second applies the change.
		if s.cfg.SecureEmailChange && u.EmailChangeConfirmStatus == 0 && u.Email != "" &&
			u.EmailChangeTokenNew != "" && u.EmailChangeTokenCurrent != "" {
			if _, err := tx.Exec(ctx, fmt.Sprintf(`UPDATE auth.users SET %s = '', email_change_confirm_status = 1 WHERE id = $1`, column), u.ID); err != nil {
				return nil, fmt.Errorf("record email change confirmation of %s: %w", u.ID, err)
			}
			v.message = emailChangeMessage
			return v, nil
		}
		if err := s.applyEmail(ctx, tx, u, u.EmailChange, true); err != nil {
			return nil, err
		}
	case "sms":
		if err := s.confirmPhone(ctx, tx, u); err != nil {
			return nil, err
		}
	case "phone_change":
		if err := s.applyPhone(ctx, tx, u, u.PhoneChange); err != nil {
			return nil, err
		}
	}
	fresh, err := userByID(ctx, tx, u.ID)
	if err != nil {
		return nil, err
	}
	if err := syncProviders(ctx, tx, fresh); err != nil {
		return nil, err
	}
	v.user = fresh
	return v, nil
}
