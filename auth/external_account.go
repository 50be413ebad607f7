package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// linkDecision is what a provider sign-in does to accounts (the
// reference's automatic linking decisions).
type linkDecision int

const (
	accountExists    linkDecision = iota // the identity is known: sign in
	createAccount                        // a new user with this identity
	linkAccount                          // a new identity for an existing user
	multipleAccounts                     // several users claim the address
)

// linking is the outcome of decideLinking.
type linking struct {
	decision  linkDecision
	user      *user
	identity  *identity     // the known identity (accountExists)
	candidate providerEmail // the address the account gets
	sso       bool          // the provider is an SSO (SAML) connection
}

// decideLinking decides, as the reference does, whether a provider
// identity signs in to its user, joins the user that owns one of its
// verified addresses, or makes a new user. Only addresses the provider
// says it verified ever link: the reference also links unverified ones
// when MAILER_AUTOCONFIRM is on, which would let anyone who can make a
// provider account with someone's address into that person's account.
func decideLinking(ctx context.Context, tx pgx.Tx, pu *providerUser, provider string) (*linking, error) {
	out := &linking{sso: strings.HasPrefix(provider, "sso:")}
	var verified []string
	for _, e := range pu.Emails {
		if e.Verified {
			verified = append(verified, strings.ToLower(e.Email))
		}
		if e.Primary {
			out.candidate = e
			out.candidate.Email = strings.ToLower(e.Email)
		}
	}
	var userID string
	err := tx.QueryRow(ctx, `SELECT user_id FROM auth.identities WHERE provider_id = $1 AND provider = $2`,
		pu.Claims.Subject, provider).Scan(&userID)
	switch {
	case err == nil:
		u, err := userByID(ctx, tx, userID)
		if err != nil {
			return nil, err
		}
		out.decision, out.user = accountExists, u
		for i := range u.Identities {
			if u.Identities[i].Provider == provider && u.Identities[i].ID == pu.Claims.Subject {
				out.identity = &u.Identities[i]
			}
		}
		// The account keeps its own address (it may have none).
		out.candidate.Email = u.Email
		return out, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return nil, fmt.Errorf("find identity: %w", err)
	}
	if len(verified) == 0 {
		// Unverified: always a new account, and without the address when
		// another user already has it.
		out.decision = createAccount
		if out.candidate.Email != "" && !out.sso {
			taken, err := emailTaken(ctx, tx, out.candidate.Email)
			if err != nil {
				return nil, err
			}
			if taken {
				out.candidate.Email = ""
			}
		}
		return out, nil
	}
	// Identities that have one of the addresses verified, outside SSO
	// (each SSO provider is its own linking domain), else users with it.
	// Identities holding the address unverified do not count (the
	// reference counts them, so anyone could make the owner's later
	// provider sign-in fail as "multiple accounts").
	// An SSO provider is a linking domain of its own: its identities link
	// only to each other, and its users are apart from everyone else's
	// (users.is_sso_user), as in the reference.
	var owners []string
	domain, args := `provider NOT LIKE 'sso:%'`, []any{verified}
	if out.sso {
		domain, args = `provider = $2`, append(args, provider)
	}
	rows, err := tx.Query(ctx, `SELECT DISTINCT user_id FROM auth.identities WHERE email = any($1)
		AND `+domain+` AND identity_data->>'email_verified' = 'true'`, args...)
	if err != nil {
		return nil, fmt.Errorf("find identities by email: %w", err)
	}
	if owners, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return nil, fmt.Errorf("find identities by email: %w", err)
	}
	if len(owners) == 0 && !out.sso {
		rows, err := tx.Query(ctx, `SELECT id FROM auth.users WHERE email = any($1) AND is_sso_user = false`, verified)
		if err != nil {
			return nil, fmt.Errorf("find users by email: %w", err)
		}
		if owners, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return nil, fmt.Errorf("find users by email: %w", err)
		}
	}
	switch len(owners) {
	case 0:
		out.decision = createAccount
		return out, nil
	case 1:
		u, err := userByID(ctx, tx, owners[0])
		if err != nil {
			return nil, err
		}
		out.decision, out.user = linkAccount, u
		return out, nil
	}
	out.decision = multipleAccounts
	return out, nil
}

// emailTaken reports whether a user (through its address or one of its
// identities) already has email.
func emailTaken(ctx context.Context, db pg.DB, email string) (bool, error) {
	var taken bool
	err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth.identities WHERE email = $1 AND provider NOT LIKE 'sso:%')
		OR EXISTS (SELECT 1 FROM auth.users WHERE email = $1 AND is_sso_user = false)`, email).Scan(&taken)
	if err != nil {
		return false, fmt.Errorf("check email %s: %w", email, err)
	}
	return taken, nil
}

// externalSignIn finds or creates the user of a provider identity
// (createAccountFromExternalIdentity in the reference) and returns it
// ready for a session, or the reason it may not sign in.
func (s *Service) externalSignIn(ctx context.Context, tx pgx.Tx, r *http.Request, pu *providerUser, provider string,
	emailOptional bool, redirect string) (*user, error) {
	l, err := decideLinking(ctx, tx, pu, provider)
	if err != nil {
		return nil, err
	}
	data := pu.Claims.identityData()
	var u *user
	var idn *identity
	switch l.decision {
	case accountExists:
		u, idn = l.user, l.identity
		if idn == nil {
			return nil, internalErr(errors.New("identity vanished while signing in"))
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.identities SET identity_data = $2, last_sign_in_at = $3, updated_at = $3
			WHERE id = $1`, idn.IdentityID, data, s.now()); err != nil {
			return nil, fmt.Errorf("update identity: %w", err)
		}
		if err := s.mergeUserMetadata(ctx, tx, u, data); err != nil {
			return nil, err
		}
	case linkAccount:
		u = l.user
		if idn, err = s.insertIdentity(ctx, tx, u, provider, data); err != nil {
			return nil, err
		}
		if err := s.mergeUserMetadata(ctx, tx, u, data); err != nil {
			return nil, err
		}
		if err := s.audit(ctx, tx, r, u, "identity_linked", map[string]any{"identity_id": idn.IdentityID,
			"provider": provider, "provider_id": idn.ID}); err != nil {
			return nil, err
		}
	case createAccount:
		if s.cfg.DisableSignup {
			return nil, unprocessable("signup_disabled", "Signups not allowed for this instance")
		}
		if u, err = s.createUser(ctx, tx, newUserParams{Email: l.candidate.Email, UserMetadata: data, Provider: provider, SSO: l.sso}); err != nil {
			return nil, err
		}
		if idn, err = s.insertIdentity(ctx, tx, u, provider, data); err != nil {
			return nil, err
		}
	default:
		return nil, internalErr(errors.New("multiple accounts with the same email address in the same linking domain detected: default"))
	}
	if u, err = userByID(ctx, tx, u.ID); err != nil {
		return nil, err
	}
	if err := syncProviders(ctx, tx, u); err != nil {
		return nil, err
	}
	if u.isBanned(s.now()) {
		return nil, forbidden("user_banned", "User is banned")
	}
	// The session that follows records the login in the audit log.
	if emailOptional && l.candidate.Email == "" || u.EmailConfirmedAt != nil {
		return u, nil
	}
	return s.confirmExternal(ctx, tx, r, u, idn, l.candidate, provider, redirect)
}

// confirmExternal handles a provider sign-in into an unconfirmed account.
// Whatever else the account had (a password, a phone, other identities)
// was never proven to belong to this person, so it is dropped before the
// provider's identity may confirm it: otherwise someone who signed up
// first with another person's address would keep a way in. A verified
// address (or, with autoconfirm, a new one) confirms the account; else a
// confirmation mail goes out and the sign-in is refused until it is
// followed.
func (s *Service) confirmExternal(ctx context.Context, tx pgx.Tx, r *http.Request, u *user, keep *identity,
	candidate providerEmail, provider, redirect string) (*user, error) {
	if err := s.removeUnconfirmedIdentities(ctx, tx, u, keep); err != nil {
		return nil, err
	}
	if candidate.Verified || (s.cfg.MailerAutoconfirm && candidate.Email != "") {
		if err := s.audit(ctx, tx, r, u, "user_signedup", map[string]any{"provider": provider}); err != nil {
			return nil, err
		}
		if err := s.confirmEmail(ctx, tx, u); err != nil {
			return nil, err
		}
		return userByID(ctx, tx, u.ID)
	}
	if candidate.Email != "" {
		if err := s.sendConfirmation(ctx, tx, u, signupParams{}, redirect, false); err != nil {
			return nil, err
		}
		if !s.cfg.AllowUnverifiedEmailSignIns {
			return nil, &commitErr{unprocessable("provider_email_needs_verification",
				"Unverified email with %s. A confirmation email has been sent to your %s email", provider, provider)}
		}
		return userByID(ctx, tx, u.ID)
	}
	if !s.cfg.AllowUnverifiedEmailSignIns {
		return nil, &commitErr{unprocessable("provider_email_needs_verification",
			"Unverified email with %s. Verify the email with %s in order to sign in", provider, provider)}
	}
	return u, nil
}

// removeUnconfirmedIdentities leaves an unconfirmed user with only keep:
// other identities go, a password goes unless keep is the email or phone
// identity it belongs with, and user_metadata becomes keep's data.
func (s *Service) removeUnconfirmedIdentities(ctx context.Context, tx pgx.Tx, u *user, keep *identity) error {
	clearPassword := keep.Provider != "email" && keep.Provider != "phone"
	data := keep.IdentityData
	if data == nil {
		data = map[string]any{}
	}
	_, err := tx.Exec(ctx, `UPDATE auth.users SET raw_user_meta_data = $2,
		encrypted_password = CASE WHEN $3 THEN '' ELSE encrypted_password END, updated_at = $4 WHERE id = $1`,
		u.ID, data, clearPassword, s.now())
	if err != nil {
		return fmt.Errorf("reset unconfirmed user %s: %w", u.ID, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM auth.identities WHERE user_id = $1 AND id <> $2`, u.ID, keep.IdentityID); err != nil {
		return fmt.Errorf("remove unconfirmed identities of %s: %w", u.ID, err)
	}
	fresh, err := userByID(ctx, tx, u.ID)
	if err != nil {
		return err
	}
	// Only the kept provider is known to be this person's now.
	fresh.AppMetadata["provider"] = keep.Provider
	*u = *fresh
	return syncProviders(ctx, tx, u)
}

// insertIdentity adds an identity of provider to u; its provider_id is the
// subject, and a subject another user already has is refused.
func (s *Service) insertIdentity(ctx context.Context, tx pgx.Tx, u *user, provider string, data map[string]any) (*identity, error) {
	sub, _ := data["sub"].(string)
	if sub == "" {
		return nil, internalErr(errors.New("error missing provider id"))
	}
	if e, ok := data["email"].(string); ok {
		data["email"] = strings.ToLower(e)
	}
	now := s.now()
	id := newUUID()
	_, err := tx.Exec(ctx, `INSERT INTO auth.identities (id, provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6, $6)`, id, sub, u.ID, data, provider, now)
	if pg.Is(err, "23505") {
		return nil, unprocessable("identity_already_exists", "Identity is already linked to another user")
	}
	if err != nil {
		return nil, fmt.Errorf("insert %s identity for %s: %w", provider, u.ID, err)
	}
	return &identity{IdentityID: id, ID: sub, UserID: u.ID, IdentityData: data, Provider: provider,
		LastSignInAt: &now, CreatedAt: now, UpdatedAt: now}, nil
}

// mergeUserMetadata merges a provider's claims into user_metadata, as the
// reference refreshes it on every provider sign-in.
func (s *Service) mergeUserMetadata(ctx context.Context, tx pgx.Tx, u *user, data map[string]any) error {
	u.UserMetadata = mergeMetadata(u.UserMetadata, data)
	if _, err := tx.Exec(ctx, `UPDATE auth.users SET raw_user_meta_data = $2, updated_at = $3 WHERE id = $1`,
		u.ID, u.UserMetadata, s.now()); err != nil {
		return fmt.Errorf("update metadata of %s: %w", u.ID, err)
	}
	return nil
}

// linkExternalToTarget links a provider identity to the signed-in user
// who started linkIdentity (or sent link_identity with an ID token).
func (s *Service) linkExternalToTarget(ctx context.Context, tx pgx.Tx, r *http.Request, targetID string, pu *providerUser,
	provider, redirect string) (*user, error) {
	u, err := userByID(ctx, tx, targetID)
	if errors.Is(err, pg.ErrNotFound) {
		return nil, unprocessable("user_not_found", "Linking target user not found")
	}
	if err != nil {
		return nil, err
	}
	return s.linkIdentityToUser(ctx, tx, r, u, pu, provider, redirect)
}

// linkIdentityToUser adds the provider identity to u (manual linking).
// A user without an address takes the identity's; an unverified one must
// be confirmed by mail first.
func (s *Service) linkIdentityToUser(ctx context.Context, tx pgx.Tx, r *http.Request, u *user, pu *providerUser,
	provider, redirect string) (*user, error) {
	var owner string
	err := tx.QueryRow(ctx, `SELECT user_id FROM auth.identities WHERE provider_id = $1 AND provider = $2`,
		pu.Claims.Subject, provider).Scan(&owner)
	switch {
	case err == nil && owner == u.ID:
		return nil, unprocessable("identity_already_exists", "Identity is already linked")
	case err == nil:
		return nil, unprocessable("identity_already_exists", "Identity is already linked to another user")
	case !errors.Is(err, pgx.ErrNoRows):
		return nil, fmt.Errorf("find identity: %w", err)
	}
	idn, err := s.insertIdentity(ctx, tx, u, provider, pu.Claims.identityData())
	if err != nil {
		return nil, err
	}
	if err := s.audit(ctx, tx, r, u, "identity_linked", map[string]any{"identity_id": idn.IdentityID,
		"provider": provider, "provider_id": idn.ID}); err != nil {
		return nil, err
	}
	promoted := false
	if u.Email == "" {
		taken := badRequest("email_exists", "A user with this email address has already been registered")
		if err := s.emailFromIdentities(ctx, tx, u, taken); err != nil {
			return nil, err
		}
		promoted = u.Email != ""
	}
	if promoted {
		if !pu.Claims.EmailVerified {
			if err := s.sendConfirmation(ctx, tx, u, signupParams{}, redirect, false); err != nil {
				return nil, err
			}
			return nil, &commitErr{unprocessable("email_not_confirmed",
				"Unverified email with %s. A confirmation email has been sent to your %s email", provider, provider)}
		}
		if err := s.confirmEmail(ctx, tx, u); err != nil {
			return nil, err
		}
		if u.IsAnonymous {
			// An anonymous user with a verified address is a real one now.
			if _, err := tx.Exec(ctx, `UPDATE auth.users SET is_anonymous = false WHERE id = $1`, u.ID); err != nil {
				return nil, fmt.Errorf("upgrade anonymous user %s: %w", u.ID, err)
			}
		}
	}
	if u, err = userByID(ctx, tx, u.ID); err != nil {
		return nil, err
	}
	return u, syncProviders(ctx, tx, u)
}

// emailFromIdentities makes u's address one of its identities' when its
// own is none of theirs (after linking to a user without one, or
// unlinking the identity the address came from): provider-verified
// addresses first, then unverified ones, then none; an address another
// user has is skipped (conflict is the answer when every one is). A
// promoted address that nobody verified is not confirmed.
func (s *Service) emailFromIdentities(ctx context.Context, tx pgx.Tx, u *user, conflict *apiError) error {
	fresh, err := userByID(ctx, tx, u.ID)
	if err != nil {
		return err
	}
	for _, i := range fresh.Identities {
		if i.Email == u.Email {
			return nil
		}
	}
	rank := func(i identity) int {
		switch {
		case i.Email == "":
			return 2
		case i.IdentityData["email_verified"] != true:
			return 1
		}
		return 0
	}
	ids := slices.Clone(fresh.Identities)
	slices.SortStableFunc(ids, func(a, b identity) int { return rank(a) - rank(b) })
	var pick *identity
	for i := range ids {
		if ids[i].Email == "" {
			pick = &ids[i]
			break
		}
		var other bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth.users WHERE email = $1 AND id <> $2 AND is_sso_user = false)`,
			ids[i].Email, u.ID).Scan(&other); err != nil {
			return fmt.Errorf("check email: %w", err)
		}
		if !other {
			pick = &ids[i]
			break
		}
	}
	if pick == nil {
		return conflict
	}
	confirmed := pick.Email != "" && (rank(*pick) == 0 || s.cfg.MailerAutoconfirm)
	_, err = tx.Exec(ctx, `UPDATE auth.users SET email = nullif($2, ''),
		email_confirmed_at = CASE WHEN $3 THEN email_confirmed_at ELSE NULL END,
		raw_user_meta_data = CASE WHEN $3 THEN raw_user_meta_data ELSE raw_user_meta_data || '{"email_verified": false}' END,
		confirmation_token = '', recovery_token = '', email_change_token_new = '', email_change = '',
		email_change_token_current = '', phone_change = '', phone_change_token = '', reauthentication_token = '',
		updated_at = $4 WHERE id = $1`, u.ID, pick.Email, confirmed, s.now())
	if pg.Is(err, "23505") {
		return conflict
	}
	if err != nil {
		return fmt.Errorf("set email of %s: %w", u.ID, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM auth.one_time_tokens WHERE user_id = $1`, u.ID); err != nil {
		return fmt.Errorf("clear tokens of %s: %w", u.ID, err)
	}
	u.Email = pick.Email
	return nil
}
