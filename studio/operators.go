package studio

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/crypto/bcrypt"

	"github.com/basaltdev/basalt/internal/lazy"
	"github.com/basaltdev/basalt/internal/pg"
)

// bcryptCost is the work factor of operator passwords: a sign-in costs a
// quarter of a second or so, which the rate limit multiplies. (Tests lower
// it: the cost is not what they check.)
var bcryptCost = 12

// devOperator is the operator every request acts as under `basalt dev`,
// where Studio is open on loopback. It has no password.
const devOperator = "dev@localhost"

// Operator is a Studio account.
type Operator struct {
	ID    string `json:"id"`
	Email string `json:"email"`
}

// ErrOperatorExists is returned by AddOperator for an email in use.
var ErrOperatorExists = errors.New("an operator with this email exists")

// checkPassword is the rule for operator passwords: long enough to resist
// guessing at the sign-in rate limit, short enough for bcrypt (72 bytes).
func checkPassword(p string) error {
	switch {
	case len(p) < 12:
		return errors.New("the password must be at least 12 characters")
	case len(p) > 72:
		return errors.New("the password must be at most 72 bytes")
	}
	return nil
}

// normEmail is the form emails are stored and compared in.
func normEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	if e == "" || !strings.Contains(e, "@") || len(e) > 320 {
		return "", fmt.Errorf("%q is not an email address", email)
	}
	return e, nil
}

// AddOperator creates an operator account with a bcrypt hash of password
// (`basalt studio user add`).
func AddOperator(ctx context.Context, db pg.DB, email, password string) (Operator, error) {
	e, err := normEmail(email)
	if err != nil {
		return Operator{}, err
	}
	if err := checkPassword(password); err != nil {
		return Operator{}, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcryptCost)
	if err != nil {
		return Operator{}, fmt.Errorf("hash password: %w", err)
	}
	op := Operator{Email: e}
	err = db.QueryRow(ctx, `INSERT INTO basalt.studio_operators (email, password_hash) VALUES ($1, $2)
		ON CONFLICT (email) DO NOTHING RETURNING id::text`, e, string(hash)).Scan(&op.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		return Operator{}, fmt.Errorf("%s: %w", e, ErrOperatorExists)
	}
	if err != nil {
		return Operator{}, fmt.Errorf("add operator: %w", err)
	}
	return op, nil
}

// SetOperatorPassword replaces an operator's password and ends their
// sessions (`basalt studio user passwd`).
func SetOperatorPassword(ctx context.Context, db pg.DB, email, password string) error {
	e, err := normEmail(email)
	if err != nil {
		return err
	}
	if err := checkPassword(password); err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcryptCost)
	if err != nil {
		return fmt.Errorf("hash password: %w", err)
	}
	return pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		var id string
		err := tx.QueryRow(ctx, `UPDATE basalt.studio_operators SET password_hash = $2 WHERE email = $1 RETURNING id::text`,
			e, string(hash)).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("no operator %s", e)
		} else if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM basalt.studio_sessions WHERE operator_id = $1`, id)
		return err
	})
}

// RemoveOperator deletes an operator and their sessions and snippets; the
// audit log keeps their email.
func RemoveOperator(ctx context.Context, db pg.DB, email string) error {
	e, err := normEmail(email)
	if err != nil {
		return err
	}
	tag, err := db.Exec(ctx, `DELETE FROM basalt.studio_operators WHERE email = $1`, e)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("no operator %s", e)
	}
	return nil
}

// ListOperators returns every operator's email, in order.
func ListOperators(ctx context.Context, db pg.DB) ([]Operator, error) {
	rows, err := db.Query(ctx, `SELECT id::text, email FROM basalt.studio_operators
		WHERE password_hash IS NOT NULL ORDER BY email`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowToStructByPos[Operator])
}

// bootstrap creates the operator named by the environment when missing.
func bootstrap(ctx context.Context, db pg.DB, cfg Config) error {
	if cfg.BootstrapEmail == "" {
		return nil
	}
	_, err := AddOperator(ctx, db, cfg.BootstrapEmail, cfg.BootstrapPassword)
	if errors.Is(err, ErrOperatorExists) {
		return nil
	}
	return err
}

// dummyHash is compared against when the email is unknown, so a sign-in
// takes as long whether or not the account exists. It is made on first
// use, not at package init: a hash at this cost is a quarter of a second of
// CPU that every start of the binary, whatever the command, would pay.
var dummyHash = &lazy.Value[[]byte]{New: func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("not a real password at all"), bcryptCost)
	return h
}}

// errBadCredentials is the one answer to a wrong email or password.
var errBadCredentials = errors.New("invalid email or password")

// checkCredentials returns the operator whose email and password match.
func checkCredentials(ctx context.Context, db pg.DB, email, password string) (Operator, error) {
	e, err := normEmail(email)
	if err != nil {
		return Operator{}, errBadCredentials
	}
	// Made before the lookup, so the first sign-in pays for it whether or
	// not the account exists.
	dummy := dummyHash.Get()
	var op Operator
	var hash *string
	err = db.QueryRow(ctx, `SELECT id::text, email, password_hash FROM basalt.studio_operators WHERE email = $1`, e).
		Scan(&op.ID, &op.Email, &hash)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && hash == nil) {
		_ = bcrypt.CompareHashAndPassword(dummy, []byte(password))
		return Operator{}, errBadCredentials
	}
	if err != nil {
		return Operator{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(*hash), []byte(password)) != nil {
		return Operator{}, errBadCredentials
	}
	return op, nil
}

// session is a signed-in operator as a request carries it.
type session struct {
	Operator
	CSRF string
}

// newToken returns 32 random bytes, URL-safe.
func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// tokenHash is what the sessions table keys on.
func tokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// openSession stores a new session for op and returns the cookie's token.
func openSession(ctx context.Context, db pg.DB, op Operator, ttl time.Duration, ip, userAgent string) (token string, s session, err error) {
	token, csrf := newToken(), newToken()
	if len(userAgent) > 512 {
		userAgent = userAgent[:512]
	}
	_, err = db.Exec(ctx, `INSERT INTO basalt.studio_sessions (token_hash, operator_id, csrf_token, expires_at, ip, user_agent)
		VALUES ($1, $2, $3, now() + $4::interval, $5, $6)`,
		tokenHash(token), op.ID, csrf, fmt.Sprintf("%d seconds", int64(ttl.Seconds())), ip, userAgent)
	if err != nil {
		return "", session{}, fmt.Errorf("open session: %w", err)
	}
	_, _ = db.Exec(ctx, `UPDATE basalt.studio_operators SET last_sign_in_at = now() WHERE id = $1`, op.ID)
	// Sessions past their end go as new ones come.
	_, _ = db.Exec(ctx, `DELETE FROM basalt.studio_sessions WHERE expires_at < now() - interval '1 day'`)
	return token, session{Operator: op, CSRF: csrf}, nil
}

// lookupSession returns the live session of token, or pgx.ErrNoRows. The
// last-seen time moves at most once a minute, so reads stay reads.
func lookupSession(ctx context.Context, db pg.DB, token string) (session, error) {
	var s session
	err := db.QueryRow(ctx, `WITH s AS (
		UPDATE basalt.studio_sessions SET last_seen_at = now()
		WHERE token_hash = $1 AND expires_at > now() AND last_seen_at < now() - interval '1 minute'
		RETURNING operator_id)
	SELECT o.id::text, o.email, ss.csrf_token
	FROM basalt.studio_sessions ss JOIN basalt.studio_operators o ON o.id = ss.operator_id
	WHERE ss.token_hash = $1 AND ss.expires_at > now()`, tokenHash(token)).Scan(&s.ID, &s.Email, &s.CSRF)
	return s, err
}

// closeSession deletes the session of token (sign-out), and expired ones.
func closeSession(ctx context.Context, db pg.DB, token string) error {
	_, err := db.Exec(ctx, `DELETE FROM basalt.studio_sessions WHERE token_hash = $1 OR expires_at < now() - interval '1 day'`,
		tokenHash(token))
	return err
}

// ensureDevOperator returns the dev operator, creating it on first use.
func ensureDevOperator(ctx context.Context, db pg.DB) (Operator, error) {
	op := Operator{Email: devOperator}
	err := db.QueryRow(ctx, `INSERT INTO basalt.studio_operators (email) VALUES ($1)
		ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email RETURNING id::text`, devOperator).Scan(&op.ID)
	return op, err
}
