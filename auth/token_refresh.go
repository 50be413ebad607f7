package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/pg"
)

// refreshParams is the body of grant_type=refresh_token.
type refreshParams struct {
	RefreshToken string `json:"refresh_token"`
}

// refreshToken is a row of auth.refresh_tokens.
type refreshToken struct {
	ID        int64
	Token     string
	UserID    string
	Revoked   bool
	Parent    string
	SessionID *string
	UpdatedAt time.Time
}

// errReuse carries a reuse-detection answer out of the transaction that
// revoked the family: the revocation must commit, the client gets a 400.
var errReuse = badRequest("refresh_token_already_used", "Invalid Refresh Token: Already Used")

// tokenRefresh handles grant_type=refresh_token (contract E3, §6): rotate
// the token, return the active child when a just-rotated parent comes back
// (multi-tab), accept reuse within the reuse interval, and otherwise revoke
// the session's whole family.
func (s *Service) tokenRefresh(w http.ResponseWriter, r *http.Request) error {
	var p refreshParams
	if err := decode(r, &p); err != nil {
		return err
	}
	// Every token we issue has 12 characters (newRefreshToken); shorter
	// input cannot be one and is refused before touching the database.
	if len(p.RefreshToken) < 12 {
		return badRequest("validation_failed", "Refresh token is not valid")
	}
	resp, err := s.rotate(r, p.RefreshToken, "")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// rotate runs refresh on a connection of its own and ends the transaction
// refresh left open. clientID is the OAuth client that authenticated at
// /oauth/token ("" at /token): a session belongs to one client, or to
// none, and is refreshed only by it.
func (s *Service) rotate(r *http.Request, token, clientID string) (*tokenResponse, error) {
	ctx := r.Context()
	conn, err := s.db.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("acquire connection: %w", err)
	}
	defer conn.Release()
	resp, err := s.refresh(ctx, conn, r, token, clientID)
	// refresh opens its transaction inside its first batch and, on the
	// common path, commits inside its last, saving the two round trips of
	// a separate BEGIN and COMMIT. Whatever it left open ends here: a
	// reuse answer still commits the family's revocation, any other error
	// rolls everything back. (A connection released mid-transaction, say
	// after a timeout, is closed by the pool, never reused.)
	if conn.Conn().PgConn().TxStatus() != 'I' {
		end := "ROLLBACK"
		if err == nil || errors.Is(err, errReuse) {
			end = "COMMIT"
		}
		if _, cerr := conn.Exec(ctx, end); cerr != nil && (err == nil || errors.Is(err, errReuse)) {
			return nil, fmt.Errorf("refresh %s: %w", strings.ToLower(end), cerr)
		}
	}
	return resp, err
}

// refresh runs the rotation in two round trips on db, a connection it
// leaves inside a transaction unless it committed (see tokenRefresh): one
// batch begins, locks the token's session (so refreshes of one family take
// turns; a waiter gives up after 5 s) and then reads the token and its user
// as committed by whoever held the lock; a second batch writes the
// rotation, touches the session, audits, reads the amr claims and, when no
// access token hook has to run inside the transaction, commits.
func (s *Service) refresh(ctx context.Context, tx *pgxpool.Conn, r *http.Request, token, clientID string) (*tokenResponse, error) {
	b := &pgx.Batch{}
	b.Queue(`BEGIN`)
	b.Queue(`SET LOCAL lock_timeout = '5s'`)
	b.Queue(`SELECT id, user_id, coalesce(aal::text,'aal1'), factor_id, not_after, coalesce(created_at, now()), refreshed_at,
		coalesce(oauth_client_id::text, ''), coalesce(scopes, '')
		FROM auth.sessions WHERE id = (SELECT session_id FROM auth.refresh_tokens WHERE token = $1) FOR UPDATE`, token)
	b.Queue(`SELECT id, token, coalesce(user_id,''), coalesce(revoked,false), coalesce(parent,''),
		session_id, coalesce(updated_at, now()) FROM auth.refresh_tokens WHERE token = $1`, token)
	queueUser(b, `(SELECT nullif(user_id, '')::uuid FROM auth.refresh_tokens WHERE token = $1)`, token)
	br := tx.SendBatch(ctx, b)
	var se session
	var t refreshToken
	var grant oauthGrant
	_, err := br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if err == nil {
		err = br.QueryRow().Scan(&se.ID, &se.UserID, &se.AAL, &se.FactorID, &se.NotAfter, &se.CreatedAt, &se.RefreshedAt,
			&grant.ClientID, &grant.Scope)
	}
	sessionMissing := errors.Is(err, pgx.ErrNoRows)
	if err != nil && !sessionMissing {
		_ = br.Close()
		if pg.Is(err, "55P03") {
			return nil, newErr(http.StatusConflict, "conflict", "Too many concurrent token refresh requests on the same session or refresh token")
		}
		return nil, fmt.Errorf("lock session: %w", err)
	}
	err = br.QueryRow().Scan(&t.ID, &t.Token, &t.UserID, &t.Revoked, &t.Parent, &t.SessionID, &t.UpdatedAt)
	tokenMissing := errors.Is(err, pgx.ErrNoRows)
	if err != nil && !tokenMissing {
		_ = br.Close()
		return nil, fmt.Errorf("load refresh token: %w", err)
	}
	u, err := readUser(br)
	userMissing := errors.Is(err, pg.ErrNotFound)
	if err != nil && !userMissing {
		_ = br.Close()
		return nil, fmt.Errorf("load user: %w", err)
	}
	if err := br.Close(); err != nil {
		return nil, fmt.Errorf("refresh batch: %w", err)
	}
	// The checks run in the reference's order; each answer is a 400 with
	// the reference's code, which auth-js turns into a signed-out state.
	switch {
	case tokenMissing || userMissing:
		return nil, badRequest("refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found")
	case u.isBanned(s.now()):
		return nil, badRequest("user_banned", "Invalid Refresh Token: User Banned")
	case t.SessionID == nil:
		// Tokens from before sessions existed cannot be tied to one; the
		// reference deletes them when they come back.
		if _, err := tx.Exec(ctx, `DELETE FROM auth.refresh_tokens WHERE id = $1`, t.ID); err != nil {
			return nil, fmt.Errorf("delete orphan refresh token: %w", err)
		}
		return nil, badRequest("session_not_found", "Invalid Refresh Token: No Valid Session Found")
	case sessionMissing:
		return nil, badRequest("session_not_found", "Invalid Refresh Token: No Valid Session Found")
	}
	// The reference's checks of the client against the session's.
	switch {
	case grant.ClientID != "" && clientID == "":
		return nil, &oauthError{Err: "invalid_client", Description: "Client authentication required for OAuth session"}
	case grant.ClientID != clientID && clientID != "":
		if grant.ClientID == "" {
			return nil, &oauthError{Err: "invalid_client", Description: "Client authentication not allowed for non-OAuth session"}
		}
		return nil, &oauthError{Err: "invalid_client", Description: "Client does not match the session's OAuth client"}
	}
	now := s.now()
	if err := s.sessionStillValid(ctx, tx, &se, u.ID, now); err != nil {
		return nil, err
	}
	// Decide what to hand out; writes are queued and sent together.
	w := &pgx.Batch{}
	issued := ""
	if !t.Revoked {
		issued = s.queueRotation(w, &t, u.ID, now)
		s.queueAudit(w, r, u, "token_revoked", nil)
	} else {
		var active, activeParent string
		err := tx.QueryRow(ctx, `SELECT token, coalesce(parent,'') FROM auth.refresh_tokens
			WHERE session_id = $1 AND NOT coalesce(revoked,false) ORDER BY id DESC LIMIT 1`, se.ID).Scan(&active, &activeParent)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, fmt.Errorf("load active refresh token: %w", err)
		}
		switch {
		case active != "" && activeParent == t.Token:
			// The client lost (or another tab took) the answer: hand back
			// the child already issued.
			issued = active
		case active != "" && !now.After(t.UpdatedAt.Add(s.cfg.RefreshTokenReuseInterval)):
			// Inside the reuse interval of a live family: rotate again. A
			// family with no live token was revoked by reuse detection and
			// stays dead.
			issued = s.queueRotation(w, &t, u.ID, now)
		default:
			// Reuse outside the interval means the token leaked (or a client is
			// broken): the whole family dies, and its owner must sign in again.
			if s.cfg.RefreshTokenRotation {
				// updated_at stays: it dates the rotation, and moving it would
				// reopen the reuse interval of the revoked tokens.
				if _, err := tx.Exec(ctx, `UPDATE auth.refresh_tokens SET revoked = true
					WHERE session_id = $1 AND NOT coalesce(revoked,false)`, se.ID); err != nil {
					return nil, fmt.Errorf("revoke token family: %w", err)
				}
			}
			return nil, errReuse
		}
	}
	// refreshed_at is a timestamp without time zone in the reference's
	// schema, hence UTC; it drives the inactivity timeout.
	w.Queue(`UPDATE auth.sessions SET refreshed_at = $2, updated_at = $3, user_agent = $4, ip = $5 WHERE id = $1`,
		se.ID, now.UTC(), now, r.UserAgent(), clientInet(r))
	s.queueAudit(w, r, u, "token_refreshed", nil)
	writes := w.Len()
	w.Queue(amrQuery, se.ID)
	// A hook function runs in the transaction after these writes, as it
	// would in the reference; without one, signing needs no database and
	// the batch can commit.
	commit := s.cfg.CustomAccessTokenHook == ""
	if commit {
		w.Queue(`COMMIT`)
	}
	wr := tx.SendBatch(ctx, w)
	for range writes {
		if _, err := wr.Exec(); err != nil {
			_ = wr.Close()
			return nil, fmt.Errorf("write rotation: %w", err)
		}
	}
	rows, err := wr.Query()
	if err != nil {
		_ = wr.Close()
		return nil, fmt.Errorf("load amr: %w", err)
	}
	amr, err := collectAMR(rows)
	if err != nil {
		_ = wr.Close()
		return nil, err
	}
	if commit {
		if _, err := wr.Exec(); err != nil {
			_ = wr.Close()
			return nil, fmt.Errorf("commit rotation: %w", err)
		}
	}
	if err := wr.Close(); err != nil {
		return nil, fmt.Errorf("refresh writes: %w", err)
	}
	return s.buildTokenResponse(ctx, tx, u, se.ID, se.AAL, issued, amr, "token_refresh", grant)
}

// queueRotation queues revoking t (when not yet revoked) and inserting its
// child, and returns the child token. The child records t as its parent:
// that link is how a returning parent finds the child already issued, and
// how reuse detection tells a retry from a replay.
func (s *Service) queueRotation(b *pgx.Batch, t *refreshToken, userID string, now time.Time) string {
	if !t.Revoked {
		b.Queue(`UPDATE auth.refresh_tokens SET revoked = true, updated_at = $2 WHERE id = $1`, t.ID, now)
	}
	child := newRefreshToken()
	b.Queue(`INSERT INTO auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)
		VALUES ($1, $2, $3, false, $4, $4, $5, $6)`, instanceID, child, userID, now, t.Token, *t.SessionID)
	return child
}

// sessionStillValid applies not_after and the optional session limits
// (timebox, inactivity, single session per user).
func (s *Service) sessionStillValid(ctx context.Context, tx pg.DB, se *session, userID string, now time.Time) error {
	expired := func(why string) error {
		return badRequest("session_expired", "Invalid Refresh Token: Session Expired%s", why)
	}
	if se.NotAfter != nil && now.After(*se.NotAfter) {
		return expired("")
	}
	if s.cfg.SessionTimebox > 0 && now.After(se.CreatedAt.Add(s.cfg.SessionTimebox)) {
		return expired("")
	}
	if s.cfg.SessionInactivity > 0 {
		last := se.CreatedAt
		if se.RefreshedAt != nil && se.RefreshedAt.After(last) {
			last = *se.RefreshedAt
		}
		if now.After(last.Add(s.cfg.SessionInactivity)) {
			return expired(" (Inactivity)")
		}
	}
	if s.cfg.SingleSessionPerUser {
		var newer bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM auth.sessions WHERE user_id = $1 AND id <> $2 AND created_at > $3)`,
			userID, se.ID, se.CreatedAt).Scan(&newer); err != nil {
			return fmt.Errorf("look for newer sessions: %w", err)
		}
		if newer {
			return expired(" (Revoked by Newer Login)")
		}
	}
	return nil
}
