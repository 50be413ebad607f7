package auth

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// newUserParams describes a user to insert.
type newUserParams struct {
	ID             string // random when empty
	Email, Phone   string // already validated (lowercase / digits only)
	PasswordHash   string
	UserMetadata   map[string]any
	AppMetadata    map[string]any // merged over {provider, providers}
	EmailConfirmed bool
	PhoneConfirmed bool
	Anonymous      bool
	Role, Aud      string
	InvitedAt      *time.Time
	BannedUntil    *time.Time
	// Provider, when set, is the external provider the user signs up
	// with: app_metadata names it, and the caller adds its identity
	// instead of an email identity.
	Provider string
	// SSO marks a user of an SSO connection (users.is_sso_user): its
	// address may also belong to another user.
	SSO bool
}

// createUser inserts a user and its email/phone identities. The user row is
// written by one INSERT with its metadata, so AFTER INSERT triggers written
// for Supabase (profiles from raw_user_meta_data) see it filled.
func (s *Service) createUser(ctx context.Context, tx pgx.Tx, p newUserParams) (*user, error) {
	now := s.now()
	if p.ID == "" {
		p.ID = newUUID()
	}
	if p.Role == "" {
		p.Role = s.cfg.JWTDefaultRole
	}
	if p.Aud == "" {
		p.Aud = s.cfg.JWTAud
	}
	if p.UserMetadata == nil {
		p.UserMetadata = map[string]any{}
	}
	app := map[string]any{}
	var providers []any
	switch {
	case p.Provider != "":
		providers = append(providers, p.Provider)
	default:
		if p.Email != "" {
			providers = append(providers, "email")
		}
		if p.Phone != "" {
			providers = append(providers, "phone")
		}
	}
	if len(providers) > 0 {
		app["provider"] = providers[0]
		app["providers"] = providers
	}
	// Admin-given app_metadata merges over the provider keys.
	app = mergeMetadata(app, p.AppMetadata)
	var emailConfirmed, phoneConfirmed *time.Time
	if p.EmailConfirmed {
		emailConfirmed = &now
	}
	if p.PhoneConfirmed {
		phoneConfirmed = &now
	}
	// Token columns are written as '' rather than left NULL: the
	// reference's Go models scan them into plain strings, so SQL and
	// tooling written for Supabase expect '' for "no token".
	_, err := tx.Exec(ctx, `INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password,
		email_confirmed_at, phone, phone_confirmed_at, raw_app_meta_data, raw_user_meta_data, is_super_admin,
		created_at, updated_at, is_anonymous, invited_at, banned_until,
		confirmation_token, recovery_token, email_change_token_new, email_change, email_change_token_current,
		phone_change, phone_change_token, reauthentication_token, is_sso_user)
		VALUES ($1, $2, $3, $4, nullif($5, ''), $6, $7, nullif($8, ''), $9, $10, $11, false, $12, $12, $13, $14, $15,
		'', '', '', '', '', '', '', '', $16)`,
		instanceID, p.ID, p.Aud, p.Role, p.Email, p.PasswordHash, emailConfirmed, p.Phone, phoneConfirmed,
		app, p.UserMetadata, now, p.Anonymous, p.InvitedAt, p.BannedUntil, p.SSO)
	// A unique violation means another request created the same address
	// between our lookup and this insert; it gets the answer the lookup
	// would have given.
	if pg.Is(err, "23505") {
		if p.Phone != "" && p.Email == "" {
			return nil, unprocessable("phone_exists", "A user with this phone number has already been registered")
		}
		return nil, unprocessable("email_exists", "A user with this email address has already been registered")
	}
	if err != nil {
		return nil, fmt.Errorf("insert user: %w", err)
	}
	// Email and phone identities use the user id as provider_id, as the
	// reference does, so there is at most one of each per user.
	if p.Provider != "" {
		return userByID(ctx, tx, p.ID)
	}
	if p.Email != "" {
		if err := s.addIdentity(ctx, tx, p.ID, "email", p.ID, identityData(p.ID, p.UserMetadata, "email", p.Email, p.EmailConfirmed)); err != nil {
			return nil, err
		}
	}
	if p.Phone != "" {
		if err := s.addIdentity(ctx, tx, p.ID, "phone", p.ID, identityData(p.ID, p.UserMetadata, "phone", p.Phone, p.PhoneConfirmed)); err != nil {
			return nil, err
		}
	}
	return userByID(ctx, tx, p.ID)
}

// identityData is what GoTrue stores for an email or phone identity: the
// sign-up data plus sub, the address and verification flags.
func identityData(sub string, data map[string]any, key, value string, verified bool) map[string]any {
	d := map[string]any{}
	for k, v := range data {
		d[k] = v
	}
	d["sub"] = sub
	d[key] = value
	d["email_verified"] = key == "email" && verified
	d["phone_verified"] = key == "phone" && verified
	return d
}

// addIdentity links an identity to a user. provider_id is unique per
// provider, so an identity already owned by another user is refused with
// the reference's identity_already_exists.
func (s *Service) addIdentity(ctx context.Context, tx pgx.Tx, userID, provider, providerID string, data map[string]any) error {
	now := s.now()
	_, err := tx.Exec(ctx, `INSERT INTO auth.identities (id, provider_id, user_id, identity_data, provider, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)`, newUUID(), providerID, userID, data, provider, now)
	if pg.Is(err, "23505") {
		return unprocessable("identity_already_exists", "Identity is already linked to another user")
	}
	if err != nil {
		return fmt.Errorf("insert %s identity for %s: %w", provider, userID, err)
	}
	return nil
}

// confirmEmail marks the user's email verified: timestamp, email_verified in
// user_metadata and identity_data, pending confirmation cleared.
func (s *Service) confirmEmail(ctx context.Context, tx pgx.Tx, u *user) error {
	now := s.now()
	u.UserMetadata = mergeMetadata(u.UserMetadata, map[string]any{"email_verified": true})
	_, err := tx.Exec(ctx, `UPDATE auth.users SET email_confirmed_at = coalesce(email_confirmed_at, $2),
		confirmation_token = '', raw_user_meta_data = $3, updated_at = $2 WHERE id = $1`, u.ID, now, u.UserMetadata)
	if err != nil {
		return fmt.Errorf("confirm email of %s: %w", u.ID, err)
	}
	if _, err := tx.Exec(ctx, `UPDATE auth.identities SET identity_data = identity_data || '{"email_verified": true}',
		updated_at = $2 WHERE user_id = $1 AND provider = 'email'`, u.ID, now); err != nil {
		return fmt.Errorf("confirm email identity of %s: %w", u.ID, err)
	}
	return deleteOneTimeToken(ctx, tx, u.ID, "confirmation_token")
}

// confirmPhone marks the user's phone verified.
func (s *Service) confirmPhone(ctx context.Context, tx pgx.Tx, u *user) error {
	now := s.now()
	u.UserMetadata = mergeMetadata(u.UserMetadata, map[string]any{"phone_verified": true})
	_, err := tx.Exec(ctx, `UPDATE auth.users SET phone_confirmed_at = coalesce(phone_confirmed_at, $2),
		confirmation_token = '', raw_user_meta_data = $3, updated_at = $2 WHERE id = $1`, u.ID, now, u.UserMetadata)
	if err != nil {
		return fmt.Errorf("confirm phone of %s: %w", u.ID, err)
	}
	if _, err := tx.Exec(ctx, `UPDATE auth.identities SET identity_data = identity_data || '{"phone_verified": true}',
		updated_at = $2 WHERE user_id = $1 AND provider = 'phone'`, u.ID, now); err != nil {
		return fmt.Errorf("confirm phone identity of %s: %w", u.ID, err)
	}
	return deleteOneTimeToken(ctx, tx, u.ID, "confirmation_token")
}

// deleteOneTimeToken forgets a consumed or replaced token of tokenType.
// auth.one_time_tokens mirrors the token columns of auth.users, as the
// reference keeps both.
func deleteOneTimeToken(ctx context.Context, db pg.DB, userID, tokenType string) error {
	if _, err := db.Exec(ctx, `DELETE FROM auth.one_time_tokens WHERE user_id = $1 AND token_type = $2`, userID, tokenType); err != nil {
		return fmt.Errorf("delete %s of %s: %w", tokenType, userID, err)
	}
	return nil
}

// upsertOneTimeToken records the token of tokenType a message just carried,
// replacing the previous one of that type: only the latest code works.
func upsertOneTimeToken(ctx context.Context, db pg.DB, userID, tokenType, hash, relatesTo string, now time.Time) error {
	_, err := db.Exec(ctx, `INSERT INTO auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $6)
		ON CONFLICT (user_id, token_type) DO UPDATE SET token_hash = excluded.token_hash,
		relates_to = excluded.relates_to, updated_at = excluded.updated_at`,
		newUUID(), userID, tokenType, hash, relatesTo, now.UTC())
	if err != nil {
		return fmt.Errorf("store %s of %s: %w", tokenType, userID, err)
	}
	return nil
}
