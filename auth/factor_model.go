package auth

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// factor is a row of auth.mfa_factors.
type factor struct {
	ID               string
	UserID           string
	FriendlyName     string
	FactorType       string
	Status           string
	CreatedAt        time.Time
	UpdatedAt        time.Time
	Secret           string
	Phone            string
	LastChallengedAt *time.Time
}

// factorJSON is the wire shape of a factor (contract §1.1).
type factorJSON struct {
	ID               string     `json:"id"`
	FriendlyName     string     `json:"friendly_name,omitempty"`
	FactorType       string     `json:"factor_type"`
	Status           string     `json:"status"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
	Phone            string     `json:"phone"`
	LastChallengedAt *time.Time `json:"last_challenged_at"`
}

// toJSON is the factor as clients see it: the secret never leaves the
// server after enrolment, and timestamps are UTC like the reference's.
func (f factor) toJSON() factorJSON {
	return factorJSON{ID: f.ID, FriendlyName: f.FriendlyName, FactorType: f.FactorType, Status: f.Status,
		CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC(), Phone: f.Phone, LastChallengedAt: utc(f.LastChallengedAt)}
}

// factorColumns is the select list scanFactor reads. The enum columns are
// cast to text (pgx has no codec for the auth schema's enums) and NULL text
// becomes "".
const factorColumns = `id, user_id, coalesce(friendly_name,''), factor_type::text, status::text, created_at, updated_at,
 coalesce(secret,''), coalesce(phone,''), last_challenged_at`

// scanFactor reads one row selected with factorColumns.
func scanFactor(r pgx.Row) (factor, error) {
	var f factor
	err := r.Scan(&f.ID, &f.UserID, &f.FriendlyName, &f.FactorType, &f.Status, &f.CreatedAt, &f.UpdatedAt,
		&f.Secret, &f.Phone, &f.LastChallengedAt)
	return f, err
}

// loadFactors lists a user's factors, oldest first (the order auth-js's
// listFactors shows).
func loadFactors(ctx context.Context, db pg.DB, userID string) ([]factor, error) {
	rows, err := db.Query(ctx, `SELECT `+factorColumns+` FROM auth.mfa_factors WHERE user_id = $1 ORDER BY created_at, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("load factors of %s: %w", userID, err)
	}
	fs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (factor, error) { return scanFactor(r) })
	if err != nil {
		return nil, fmt.Errorf("load factors of %s: %w", userID, err)
	}
	return fs, nil
}

// hasVerifiedFactor reports whether the user has finished enrolling MFA:
// only then do the aal2 rules apply (an unverified factor was never proven
// and protects nothing).
func (u *user) hasVerifiedFactor() bool {
	for _, f := range u.Factors {
		if f.Status == "verified" {
			return true
		}
	}
	return false
}
