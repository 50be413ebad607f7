package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/pg"
)

// session is a row of auth.sessions.
type session struct {
	ID          string
	UserID      string
	AAL         string
	FactorID    *string
	NotAfter    *time.Time
	CreatedAt   time.Time
	RefreshedAt *time.Time
}

// loadSession reads a session by id; it returns pg.ErrNotFound for an
// unknown id. (User requests read their session together with the user in
// authenticate, and the refresh grant locks it in its own batch.)
func loadSession(ctx context.Context, db pg.DB, id string) (*session, error) {
	q := `SELECT id, user_id, coalesce(aal::text,'aal1'), factor_id, not_after, coalesce(created_at, now()), refreshed_at
		FROM auth.sessions WHERE id = $1`
	var se session
	err := db.QueryRow(ctx, q, id).Scan(&se.ID, &se.UserID, &se.AAL, &se.FactorID, &se.NotAfter, &se.CreatedAt, &se.RefreshedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, pg.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	return &se, nil
}

// tokenResponse is the session object every grant returns (contract §1.2).
type tokenResponse struct {
	AccessToken          string        `json:"access_token"`
	TokenType            string        `json:"token_type"`
	ExpiresIn            int           `json:"expires_in"`
	ExpiresAt            int64         `json:"expires_at"`
	RefreshToken         string        `json:"refresh_token"`
	User                 *user         `json:"user"`
	ProviderToken        string        `json:"provider_token,omitempty"`
	ProviderRefreshToken string        `json:"provider_refresh_token,omitempty"`
	WeakPassword         *weakPassword `json:"weak_password,omitempty"`
}

// amrEntry is one authentication method of the amr claim: an object with
// the method and the time it was used, as the reference issues it (not
// RFC 8176's bare strings); getAuthenticatorAssuranceLevel in auth-js
// reads it.
type amrEntry struct {
	Method    string `json:"method"`
	Timestamp int64  `json:"timestamp"`
	// Provider is the SSO provider id of an sso/saml entry.
	Provider string `json:"provider,omitempty"`
}

// newRefreshToken returns 12 random lowercase letters and digits, the
// reference's opaque refresh token format.
func newRefreshToken() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 12)
	// 252 is the largest multiple of 36 below 256: reject above it so every
	// character is equally likely.
	buf := make([]byte, 32)
	for i := 0; i < len(b); {
		_, _ = rand.Read(buf)
		for _, c := range buf {
			if c < 252 && i < len(b) {
				b[i] = alphabet[c%36]
				i++
			}
		}
	}
	return string(b)
}

// clientInet returns the caller IP as a value for an inet column (nil when
// it does not parse).
func clientInet(r *http.Request) any {
	if r == nil {
		return nil
	}
	ip := net.ParseIP(httpx.ClientIP(r))
	if ip == nil {
		return nil
	}
	return ip.String()
}

// oauthGrant ties a session to the OAuth client it was issued to and the
// scopes the user granted (sessions.oauth_client_id and scopes); its
// access tokens carry them as client_id and scope. The zero value is a
// session of the project's own app.
type oauthGrant struct {
	ClientID, Scope string
}

// issueSession starts a new session for u signed in with method: a session
// row, its amr claim, a refresh token and an access token. It also stamps
// last_sign_in_at. Run it inside the transaction that authenticated u.
func (s *Service) issueSession(ctx context.Context, tx pgx.Tx, r *http.Request, u *user, method string) (*tokenResponse, error) {
	return s.startSession(ctx, tx, r, u, method, oauthGrant{})
}

// startSession is issueSession for a session of grant g.
func (s *Service) startSession(ctx context.Context, tx pgx.Tx, r *http.Request, u *user, method string, g oauthGrant) (*tokenResponse, error) {
	now := s.now()
	sessionID := newUUID()
	ua := ""
	if r != nil {
		ua = r.UserAgent()
	}
	rt := newRefreshToken()
	// All writes of a sign-in go in one round trip.
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO auth.sessions (id, user_id, created_at, updated_at, aal, user_agent, ip, oauth_client_id, scopes)
		VALUES ($1, $2, $3, $3, 'aal1', $4, $5, nullif($6, '')::uuid, nullif($7, ''))`, sessionID, u.ID, now, ua, clientInet(r), g.ClientID, g.Scope)
	b.Queue(addAMRQuery, newUUID(), sessionID, now, method)
	b.Queue(`INSERT INTO auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id)
		VALUES ($1, $2, $3, false, $4, $4, $5)`, instanceID, rt, u.ID, now, sessionID)
	b.Queue(`UPDATE auth.users SET last_sign_in_at = $2 WHERE id = $1`, u.ID, now)
	// The answer shows what the database stored: UTC at microsecond
	// precision, so a later GET /user returns the same timestamp.
	t := now.UTC().Truncate(time.Microsecond)
	u.LastSignInAt = &t
	s.queueAudit(b, r, u, "login", map[string]any{"provider": loginProvider(u, method)})
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, fmt.Errorf("start session for %s: %w", u.ID, err)
	}
	// A new session has exactly one authentication method: this one.
	return s.buildTokenResponse(ctx, tx, u, sessionID, "aal1", rt, []amrEntry{{Method: method, Timestamp: now.Unix()}}, method, g)
}

// loginProvider names the provider of a sign-in for the audit log.
func loginProvider(u *user, method string) string {
	switch {
	case method == "anonymous":
		return "anonymous"
	case u.Email == "" && u.Phone != "":
		return "phone"
	}
	return "email"
}

const addAMRQuery = `INSERT INTO auth.mfa_amr_claims (id, session_id, created_at, updated_at, authentication_method)
	VALUES ($1, $2, $3, $3, $4)
	ON CONFLICT (session_id, authentication_method) DO UPDATE SET updated_at = excluded.updated_at`

// addAMR records that the session authenticated with method now.
func addAMR(ctx context.Context, db pg.DB, sessionID, method string, now time.Time) error {
	_, err := db.Exec(ctx, addAMRQuery, newUUID(), sessionID, now, method)
	if err != nil {
		return fmt.Errorf("record amr %s for session %s: %w", method, sessionID, err)
	}
	return nil
}

// amrQuery reads a session's authentication methods, newest first; a
// second factor verified in the same instant as the sign-in still sorts
// before it.
const amrQuery = `SELECT authentication_method, updated_at FROM auth.mfa_amr_claims WHERE session_id = $1
	ORDER BY updated_at DESC, authentication_method IN ('totp', 'mfa/phone', 'mfa/webauthn') DESC`

// collectAMR reads the rows of amrQuery into amr entries with Unix times.
func collectAMR(rows pgx.Rows) ([]amrEntry, error) {
	amr, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (amrEntry, error) {
		var e amrEntry
		var at time.Time
		err := r.Scan(&e.Method, &at)
		e.Timestamp = at.Unix()
		return e, err
	})
	if err != nil {
		return nil, fmt.Errorf("load amr: %w", err)
	}
	return amr, nil
}

// tokenResponse signs an access token for the session and assembles the
// response around refresh token rt.
func (s *Service) tokenResponse(ctx context.Context, db pg.DB, u *user, sessionID, aal, rt, method string) (*tokenResponse, error) {
	rows, err := db.Query(ctx, amrQuery, sessionID)
	if err != nil {
		return nil, fmt.Errorf("load amr of session %s: %w", sessionID, err)
	}
	amr, err := collectAMR(rows)
	if err != nil {
		return nil, err
	}
	return s.buildTokenResponse(ctx, db, u, sessionID, aal, rt, amr, method, oauthGrant{})
}

// buildTokenResponse signs the access token (through the custom access
// token hook when one is configured; method is what the hook is told the
// user authenticated with) and assembles the response.
func (s *Service) buildTokenResponse(ctx context.Context, db pg.DB, u *user, sessionID, aal, rt string, amr []amrEntry, method string, g oauthGrant) (*tokenResponse, error) {
	token, exp, err := s.signAccessToken(ctx, db, u, sessionID, aal, amr, method, g)
	if err != nil {
		return nil, err
	}
	return &tokenResponse{AccessToken: token, TokenType: "bearer", ExpiresIn: int(s.cfg.JWTExp / time.Second),
		ExpiresAt: exp, RefreshToken: rt, User: u}, nil
}

// signAccessToken builds and signs the access JWT (contract §5.1).
func (s *Service) signAccessToken(ctx context.Context, db pg.DB, u *user, sessionID, aal string, amr []amrEntry, method string, g oauthGrant) (string, int64, error) {
	now := s.now()
	exp := now.Add(s.cfg.JWTExp).Unix()
	if amr == nil {
		amr = []amrEntry{}
	}
	// An SSO sign-in names its provider, as the reference's does (SSO
	// users have that one identity).
	if len(u.Identities) == 1 && strings.HasPrefix(u.Identities[0].Provider, "sso:") {
		for i := range amr {
			if amr[i].Method == "sso/saml" {
				amr[i].Provider = strings.TrimPrefix(u.Identities[0].Provider, "sso:")
			}
		}
	}
	// Every claim of the reference's access token, always present (email
	// and phone as "" when missing), because clients and RLS policies read
	// them without checking.
	claims := gojwt.MapClaims{
		"aud":           s.cfg.JWTAud,
		"exp":           exp,
		"iat":           now.Unix(),
		"sub":           u.ID,
		"email":         u.Email,
		"phone":         u.Phone,
		"app_metadata":  u.AppMetadata,
		"user_metadata": u.UserMetadata,
		"role":          u.Role,
		"aal":           aal,
		"amr":           amr,
		"session_id":    sessionID,
		"is_anonymous":  u.IsAnonymous,
	}
	if s.cfg.JWTIssuer != "" {
		claims["iss"] = s.cfg.JWTIssuer
	}
	// A token issued to an OAuth client says which, and what the user
	// granted it, as the reference's do.
	if g.ClientID != "" {
		claims["client_id"] = g.ClientID
		if g.Scope != "" {
			claims["scope"] = g.Scope
		}
	}
	if s.cfg.CustomAccessTokenHook != "" {
		var err error
		if claims, err = s.runAccessTokenHook(ctx, db, u.ID, claims, method); err != nil {
			return "", 0, err
		}
	}
	tok, err := s.keys.Sign(claims)
	if err != nil {
		return "", 0, fmt.Errorf("sign access token: %w", err)
	}
	return tok, exp, nil
}

// inTx runs fn in a transaction on the admin pool: committed when fn
// returns nil, rolled back otherwise (including for API errors, so a
// refused request leaves nothing behind).
func (s *Service) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.db, fn)
}

// newUUID returns a random (v4) UUID string. Ids are made here rather than
// by the database so that batched writes can refer to rows they create.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
