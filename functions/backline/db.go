package backline

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
)

// errNoUser is returned by asCaller when the request carries no user.
var errNoUser = errors.New("no signed-in user")

// user returns the caller's claims when the token belongs to a signed-in
// user (role authenticated with a subject), else nil.
func user(r *http.Request) *jwt.Claims {
	c := jwt.FromContext(r.Context())
	if c.Claims == nil || c.Err != nil || c.Claims.Role != "authenticated" || c.Claims.Subject == "" {
		return nil
	}
	return c.Claims
}

// asCaller runs fn in a transaction as the request's signed-in user, so RLS
// and auth.uid() see them exactly as through /rest/v1. request.headers'
// x-real-ip is the address the gateway trusted, which the SQL reads as the
// caller's IP (never a body field).
func (b *Backline) asCaller(r *http.Request, fn func(pgx.Tx) error) error {
	claims := user(r)
	if claims == nil {
		return errNoUser
	}
	return pg.AsCaller(r.Context(), b.db, pg.CallerFromRequest(r, claims), fn)
}

// asService runs fn as service_role: the platform acting on a verified
// provider answer, as a Supabase function does with the service key.
func (b *Backline) asService(ctx context.Context, r *http.Request, fn func(pgx.Tx) error) error {
	c := pg.CallerFromRequest(r, nil)
	c.Role = "service_role"
	return pg.AsCaller(ctx, b.db, c, fn)
}

// callJSON runs a SQL function returning jsonb and returns the document.
func callJSON(ctx context.Context, tx pgx.Tx, sql string, args ...any) (json.RawMessage, error) {
	var out []byte
	if err := tx.QueryRow(ctx, sql, args...).Scan(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// sqlMessage returns the message of a business refusal raised in SQL
// (RAISE EXCEPTION, SQLSTATE P0001), to report as {success:false}.
func sqlMessage(err error) (string, bool) {
	pgErr, ok := pg.AsPgError(err)
	if !ok || pgErr.Code != "P0001" {
		return "", false
	}
	return pgErr.Message, true
}

// badInput reports whether err is Postgres refusing a value (invalid text
// representation, numeric out of range, check violation): the caller's
// fault, not ours.
func badInput(err error) bool {
	return pg.Is(err, "22P02", "22003", "22023", "23514")
}
