package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// instanceID is the legacy instance column every auth row carries.
const instanceID = "00000000-0000-0000-0000-000000000000"

// user is a row of auth.users with its identities and factors.
type user struct {
	ID                       string
	Aud, Role                string
	Email                    string
	EncryptedPassword        string
	EmailConfirmedAt         *time.Time
	InvitedAt                *time.Time
	ConfirmationToken        string
	ConfirmationSentAt       *time.Time
	RecoveryToken            string
	RecoverySentAt           *time.Time
	EmailChangeTokenNew      string
	EmailChange              string
	EmailChangeSentAt        *time.Time
	EmailChangeTokenCurrent  string
	EmailChangeConfirmStatus int16
	LastSignInAt             *time.Time
	AppMetadata              map[string]any
	UserMetadata             map[string]any
	CreatedAt, UpdatedAt     time.Time
	Phone                    string
	PhoneConfirmedAt         *time.Time
	PhoneChange              string
	PhoneChangeToken         string
	PhoneChangeSentAt        *time.Time
	ConfirmedAt              *time.Time
	BannedUntil              *time.Time
	ReauthToken              string
	ReauthSentAt             *time.Time
	DeletedAt                *time.Time
	IsAnonymous              bool
	IsSSOUser                bool

	Identities []identity
	Factors    []factor
}

// userColumns is the select list scanUserInto reads; NULL text columns come
// back as empty strings.
const userColumns = `u.id, coalesce(u.aud,''), coalesce(u.role,''), coalesce(u.email,''), coalesce(u.encrypted_password,''),
 u.email_confirmed_at, u.invited_at, coalesce(u.confirmation_token,''), u.confirmation_sent_at,
 coalesce(u.recovery_token,''), u.recovery_sent_at, coalesce(u.email_change_token_new,''), coalesce(u.email_change,''),
 u.email_change_sent_at, coalesce(u.email_change_token_current,''), coalesce(u.email_change_confirm_status,0),
 u.last_sign_in_at, coalesce(u.raw_app_meta_data,'{}'), coalesce(u.raw_user_meta_data,'{}'),
 coalesce(u.created_at, now()), coalesce(u.updated_at, now()), coalesce(u.phone,''), u.phone_confirmed_at,
 coalesce(u.phone_change,''), coalesce(u.phone_change_token,''), u.phone_change_sent_at, u.confirmed_at, u.banned_until,
 coalesce(u.reauthentication_token,''), u.reauthentication_sent_at, u.deleted_at, u.is_anonymous, u.is_sso_user`

// scanUserInto scans the userColumns and then any extra columns into extra.
func scanUserInto(row pgx.Row, extra ...any) (*user, error) {
	u := &user{}
	dst := []any{&u.ID, &u.Aud, &u.Role, &u.Email, &u.EncryptedPassword,
		&u.EmailConfirmedAt, &u.InvitedAt, &u.ConfirmationToken, &u.ConfirmationSentAt,
		&u.RecoveryToken, &u.RecoverySentAt, &u.EmailChangeTokenNew, &u.EmailChange,
		&u.EmailChangeSentAt, &u.EmailChangeTokenCurrent, &u.EmailChangeConfirmStatus,
		&u.LastSignInAt, &u.AppMetadata, &u.UserMetadata,
		&u.CreatedAt, &u.UpdatedAt, &u.Phone, &u.PhoneConfirmedAt,
		&u.PhoneChange, &u.PhoneChangeToken, &u.PhoneChangeSentAt, &u.ConfirmedAt, &u.BannedUntil,
		&u.ReauthToken, &u.ReauthSentAt, &u.DeletedAt, &u.IsAnonymous, &u.IsSSOUser}
	err := row.Scan(append(dst, extra...)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, pg.ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	if u.AppMetadata == nil {
		u.AppMetadata = map[string]any{}
	}
	if u.UserMetadata == nil {
		u.UserMetadata = map[string]any{}
	}
	return u, nil
}

// relationColumns selects a user's identities and factors as JSON arrays
// next to the user row, so loading a user is one round trip.
const relationColumns = `,
 (SELECT coalesce(json_agg(json_build_object('identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id,
   'identity_data', i.identity_data, 'provider', i.provider, 'last_sign_in_at', i.last_sign_in_at,
   'created_at', coalesce(i.created_at, now()), 'updated_at', coalesce(i.updated_at, now()), 'email', coalesce(i.email, ''))
   ORDER BY i.created_at, i.id), '[]') FROM auth.identities i WHERE i.user_id = u.id),
 (SELECT coalesce(json_agg(json_build_object('id', f.id, 'user_id', f.user_id, 'friendly_name', coalesce(f.friendly_name, ''),
   'factor_type', f.factor_type, 'status', f.status, 'created_at', f.created_at, 'updated_at', f.updated_at,
   'secret', coalesce(f.secret, ''), 'phone', coalesce(f.phone, ''), 'last_challenged_at', f.last_challenged_at)
   ORDER BY f.created_at, f.id), '[]') FROM auth.mfa_factors f WHERE f.user_id = u.id)`

// factorRow is the JSON shape relationColumns gives a factor.
type factorRow struct {
	ID               string     `json:"id"`
	UserID           string     `json:"user_id"`
	FriendlyName     string     `json:"friendly_name"`
	FactorType       string     `json:"factor_type"`
	Status           string     `json:"status"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
	Secret           string     `json:"secret"`
	Phone            string     `json:"phone"`
	LastChallengedAt *time.Time `json:"last_challenged_at"`
}

// scanUserWithRelations scans a row selected with userColumns+relationColumns
// (and then any extra columns into extra).
func scanUserWithRelations(row pgx.Row, extra ...any) (*user, error) {
	var ids, fs []byte
	u, err := scanUserInto(row, append([]any{&ids, &fs}, extra...)...)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(ids, &u.Identities); err != nil {
		return nil, fmt.Errorf("decode identities of %s: %w", u.ID, err)
	}
	var rows []factorRow
	if err := json.Unmarshal(fs, &rows); err != nil {
		return nil, fmt.Errorf("decode factors of %s: %w", u.ID, err)
	}
	u.Factors = make([]factor, len(rows))
	for i, f := range rows {
		u.Factors[i] = factor(f)
	}
	return u, nil
}

// loadUser reads one user by a condition on alias u, with identities and
// factors. It returns pg.ErrNotFound when no row matches.
func loadUser(ctx context.Context, db pg.DB, where string, args ...any) (*user, error) {
	return scanUserWithRelations(db.QueryRow(ctx, `SELECT `+userColumns+relationColumns+` FROM auth.users u WHERE `+where+` LIMIT 1`, args...))
}

func userByID(ctx context.Context, db pg.DB, id string) (*user, error) {
	return loadUser(ctx, db, `u.id = $1`, id)
}

// userByEmail finds the (non-SSO) user with this email.
func userByEmail(ctx context.Context, db pg.DB, email string) (*user, error) {
	return loadUser(ctx, db, `u.instance_id = $1 AND lower(u.email) = $2 AND u.is_sso_user = false`, instanceID, email)
}

func userByPhone(ctx context.Context, db pg.DB, phone string) (*user, error) {
	return loadUser(ctx, db, `u.instance_id = $1 AND u.phone = $2`, instanceID, phone)
}

// identity is a row of auth.identities. GoTrue names the table key
// identity_id and the provider's subject id.
type identity struct {
	IdentityID   string         `json:"identity_id"`
	ID           string         `json:"id"`
	UserID       string         `json:"user_id"`
	IdentityData map[string]any `json:"identity_data"`
	Provider     string         `json:"provider"`
	LastSignInAt *time.Time     `json:"last_sign_in_at,omitempty"`
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`
	Email        string         `json:"email,omitempty"`
}

// userJSON is the wire shape of a user (contract §1.1).
type userJSON struct {
	ID                     string         `json:"id"`
	Aud                    string         `json:"aud"`
	Role                   string         `json:"role"`
	Email                  string         `json:"email"`
	EmailConfirmedAt       *time.Time     `json:"email_confirmed_at,omitempty"`
	Phone                  string         `json:"phone"`
	PhoneConfirmedAt       *time.Time     `json:"phone_confirmed_at,omitempty"`
	ConfirmationSentAt     *time.Time     `json:"confirmation_sent_at,omitempty"`
	ConfirmedAt            *time.Time     `json:"confirmed_at,omitempty"`
	RecoverySentAt         *time.Time     `json:"recovery_sent_at,omitempty"`
	NewEmail               string         `json:"new_email,omitempty"`
	EmailChangeSentAt      *time.Time     `json:"email_change_sent_at,omitempty"`
	NewPhone               string         `json:"new_phone,omitempty"`
	PhoneChangeSentAt      *time.Time     `json:"phone_change_sent_at,omitempty"`
	ReauthenticationSentAt *time.Time     `json:"reauthentication_sent_at,omitempty"`
	InvitedAt              *time.Time     `json:"invited_at,omitempty"`
	LastSignInAt           *time.Time     `json:"last_sign_in_at,omitempty"`
	AppMetadata            map[string]any `json:"app_metadata"`
	UserMetadata           map[string]any `json:"user_metadata"`
	Identities             []identity     `json:"identities"`
	Factors                []factorJSON   `json:"factors,omitempty"`
	CreatedAt              time.Time      `json:"created_at"`
	UpdatedAt              time.Time      `json:"updated_at"`
	BannedUntil            *time.Time     `json:"banned_until,omitempty"`
	DeletedAt              *time.Time     `json:"deleted_at,omitempty"`
	IsAnonymous            bool           `json:"is_anonymous"`
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := t.UTC()
	return &v
}

// MarshalJSON renders the user in the reference's shape: UTC timestamps,
// identities always an array, factors omitted when there are none.
func (u *user) MarshalJSON() ([]byte, error) {
	j := userJSON{
		ID: u.ID, Aud: u.Aud, Role: u.Role, Email: u.Email, Phone: u.Phone,
		EmailConfirmedAt: utc(u.EmailConfirmedAt), PhoneConfirmedAt: utc(u.PhoneConfirmedAt),
		ConfirmationSentAt: utc(u.ConfirmationSentAt), ConfirmedAt: utc(u.ConfirmedAt),
		RecoverySentAt: utc(u.RecoverySentAt), NewEmail: u.EmailChange, EmailChangeSentAt: utc(u.EmailChangeSentAt),
		NewPhone: u.PhoneChange, PhoneChangeSentAt: utc(u.PhoneChangeSentAt),
		ReauthenticationSentAt: utc(u.ReauthSentAt), InvitedAt: utc(u.InvitedAt), LastSignInAt: utc(u.LastSignInAt),
		AppMetadata: u.AppMetadata, UserMetadata: u.UserMetadata, Identities: u.Identities,
		CreatedAt: u.CreatedAt.UTC(), UpdatedAt: u.UpdatedAt.UTC(), BannedUntil: utc(u.BannedUntil),
		DeletedAt: utc(u.DeletedAt), IsAnonymous: u.IsAnonymous,
	}
	if j.Identities == nil {
		j.Identities = []identity{}
	}
	for i := range j.Identities {
		j.Identities[i].CreatedAt = j.Identities[i].CreatedAt.UTC()
		j.Identities[i].UpdatedAt = j.Identities[i].UpdatedAt.UTC()
		j.Identities[i].LastSignInAt = utc(j.Identities[i].LastSignInAt)
	}
	for _, f := range u.Factors {
		j.Factors = append(j.Factors, f.toJSON())
	}
	return json.Marshal(j)
}

// isBanned reports whether the user is banned at now.
func (u *user) isBanned(now time.Time) bool {
	return u.BannedUntil != nil && u.BannedUntil.After(now)
}

// providers lists the user's identity providers in GoTrue's order (email
// first, then phone, then the rest as linked).
func (u *user) providers() []string {
	seen := map[string]bool{}
	out := []string{}
	for _, want := range []string{"email", "phone"} {
		for _, i := range u.Identities {
			if i.Provider == want && !seen[want] {
				seen[want] = true
				out = append(out, want)
			}
		}
	}
	for _, i := range u.Identities {
		if !seen[i.Provider] {
			seen[i.Provider] = true
			out = append(out, i.Provider)
		}
	}
	return out
}

// syncProviders recomputes app_metadata.provider(s) from the identities and
// stores it, as the reference does after linking or verifying.
func syncProviders(ctx context.Context, db pg.DB, u *user) error {
	ps := u.providers()
	if len(ps) == 0 {
		return nil
	}
	if u.AppMetadata == nil {
		u.AppMetadata = map[string]any{}
	}
	if _, ok := u.AppMetadata["provider"]; !ok {
		u.AppMetadata["provider"] = ps[0]
	}
	list := make([]any, len(ps))
	for i, p := range ps {
		list[i] = p
	}
	u.AppMetadata["providers"] = list
	_, err := db.Exec(ctx, `UPDATE auth.users SET raw_app_meta_data = $2 WHERE id = $1`, u.ID, u.AppMetadata)
	if err != nil {
		return fmt.Errorf("update providers of %s: %w", u.ID, err)
	}
	return nil
}

// mergeMetadata applies patch to dst: a null value deletes the key.
func mergeMetadata(dst, patch map[string]any) map[string]any {
	if dst == nil {
		dst = map[string]any{}
	}
	for k, v := range patch {
		if v == nil {
			delete(dst, k)
		} else {
			dst[k] = v
		}
	}
	return dst
}
