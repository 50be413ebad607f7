package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// oauthAuthorization is a row of auth.oauth_authorizations.
type oauthAuthorization struct {
	ID, AuthorizationID, ClientID string
	UserID                        *string
	RedirectURI, Scope            string
	State, Resource, Nonce        *string
	CodeChallenge                 string
	Status                        string
	ExpiresAt                     time.Time
	ExchangedAt                   *time.Time
	SessionID                     *string
}

const oauthAuthorizationColumns = `id::text, authorization_id, client_id::text, user_id::text, redirect_uri, scope, state,
	resource, nonce, coalesce(code_challenge, ''), status::text, expires_at, exchanged_at, session_id::text`

func scanOAuthAuthorization(row pgx.Row) (*oauthAuthorization, error) {
	var a oauthAuthorization
	err := row.Scan(&a.ID, &a.AuthorizationID, &a.ClientID, &a.UserID, &a.RedirectURI, &a.Scope, &a.State,
		&a.Resource, &a.Nonce, &a.CodeChallenge, &a.Status, &a.ExpiresAt, &a.ExchangedAt, &a.SessionID)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read oauth authorization: %w", err)
	}
	return &a, nil
}

// errAuthorizationNotFound answers every lookup of an authorization the
// caller may not see: unknown, expired, or another user's.
var errAuthorizationNotFound = notFound("oauth_authorization_not_found", "authorization not found")

// checkOrigin refuses a browser request from a page the redirect rules
// do not allow (the consent page is the app's own); requests without an
// Origin come from servers and apps and pass, as in the reference.
func (s *Service) checkOrigin(r *http.Request) error {
	if o := r.Header.Get("Origin"); o != "" && !s.redirectAllowed(o) {
		return badRequest("validation_failed", "unauthorized request origin")
	}
	return nil
}

// lockAuthorization reads the pending authorization id names, locked for
// the transaction; one locked by a concurrent decision counts as not
// found, so two answers cannot both win. An expired one is marked so and
// answers not found, and the mark is kept: expired reports that.
func (s *Service) lockAuthorization(ctx context.Context, tx pgx.Tx, id string) (a *oauthAuthorization, expired bool, err error) {
	a, err = scanOAuthAuthorization(tx.QueryRow(ctx, `SELECT `+oauthAuthorizationColumns+`
		FROM auth.oauth_authorizations WHERE authorization_id = $1 FOR UPDATE SKIP LOCKED`, id))
	if err != nil || a == nil {
		return nil, false, err
	}
	if s.now().After(a.ExpiresAt) {
		if a.Status == "pending" {
			if _, err := tx.Exec(ctx, `UPDATE auth.oauth_authorizations SET status = 'expired' WHERE id = $1`, a.ID); err != nil {
				return nil, false, fmt.Errorf("expire oauth authorization: %w", err)
			}
		}
		return nil, true, nil
	}
	return a, false, nil
}

// clientDetails is a client as the consent page and the grants list show
// it.
type clientDetails struct {
	ID      string `json:"id"`
	Name    string `json:"name,omitempty"`
	URI     string `json:"uri,omitempty"`
	LogoURI string `json:"logo_uri,omitempty"`
}

func (c *oauthClient) details() clientDetails {
	return clientDetails{ID: c.ID, Name: deref(c.Name), URI: deref(c.URI), LogoURI: deref(c.Logo)}
}

// approve issues the authorization's code: its hash is stored, the code
// itself only goes into the redirect URL the caller gets. The code lives
// CodeTTL from now. It also records (or widens) the user's consent.
func (s *Service) approve(ctx context.Context, tx pgx.Tx, a *oauthAuthorization, userID string) (string, error) {
	code := randomString(32)
	now := s.now()
	b := &pgx.Batch{}
	b.Queue(`UPDATE auth.oauth_authorizations SET status = 'approved', approved_at = $2, authorization_code = $3,
		expires_at = $4 WHERE id = $1`, a.ID, now, hashCode(code), now.Add(s.cfg.OAuthServer.CodeTTL))
	b.Queue(`INSERT INTO auth.oauth_consents (id, user_id, client_id, scopes, granted_at) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at, revoked_at = NULL`,
		newUUID(), userID, a.ClientID, a.Scope, now)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return "", fmt.Errorf("approve oauth authorization: %w", err)
	}
	return successRedirect(a.RedirectURI, code, deref(a.State)), nil
}

// oauthGetAuthorization handles GET /oauth/authorizations/{authorization_id}
// (auth.oauth.getAuthorizationDetails): the first user to open it claims
// it; when that user's consent already covers the scopes, it is approved
// at once and the answer is only where to go.
func (s *Service) oauthGetAuthorization(w http.ResponseWriter, r *http.Request, au *authed) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	ctx := r.Context()
	var a *oauthAuthorization
	var redirect string
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var expired bool
		var err error
		if a, expired, err = s.lockAuthorization(ctx, tx, r.PathValue("authorization_id")); err != nil || expired || a == nil {
			return err
		}
		if a.Status != "pending" {
			return badRequest("validation_failed", "authorization request cannot be processed")
		}
		if a.UserID != nil {
			if *a.UserID != au.user.ID {
				a = nil
			}
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.oauth_authorizations SET user_id = $2 WHERE id = $1`, a.ID, au.user.ID); err != nil {
			return fmt.Errorf("claim oauth authorization: %w", err)
		}
		var granted string
		err = tx.QueryRow(ctx, `SELECT scopes FROM auth.oauth_consents WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL`,
			au.user.ID, a.ClientID).Scan(&granted)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && !coversScopes(granted, a.Scope)) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read consent: %w", err)
		}
		redirect, err = s.approve(ctx, tx, a, au.user.ID)
		return err
	})
	switch {
	case err != nil:
		return err
	case a == nil:
		return errAuthorizationNotFound
	case redirect != "":
		writeJSON(w, http.StatusOK, map[string]string{"redirect_url": redirect})
		return nil
	}
	c, err := loadOAuthClient(ctx, s.db, a.ClientID)
	if err != nil {
		if errors.Is(err, pg.ErrNotFound) {
			return errAuthorizationNotFound
		}
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"authorization_id": a.AuthorizationID,
		"redirect_uri":     a.RedirectURI,
		"client":           c.details(),
		"user":             map[string]string{"id": au.user.ID, "email": au.user.Email},
		"scope":            a.Scope,
	})
	return nil
}

// oauthConsent handles POST /oauth/authorizations/{authorization_id}/consent
// (approveAuthorization, denyAuthorization): the answer says where the
// browser goes next, the client's redirect URI with a code or with
// access_denied.
func (s *Service) oauthConsent(w http.ResponseWriter, r *http.Request, au *authed) error {
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	var body struct {
		Action string `json:"action"`
	}
	if err := oauthDecode(r, &body); err != nil {
		var ae *apiError
		if errors.As(err, &ae) && ae.Code == "bad_json" {
			return badRequest("bad_json", "invalid JSON body")
		}
		return err
	}
	if body.Action != "approve" && body.Action != "deny" {
		return badRequest("validation_failed", "action must be 'approve' or 'deny'")
	}
	ctx := r.Context()
	var redirect string
	var expired bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var a *oauthAuthorization
		var err error
		a, expired, err = s.lockAuthorization(ctx, tx, r.PathValue("authorization_id"))
		switch {
		case err != nil || expired:
			return err // the expiry mark commits
		case a == nil:
			return errAuthorizationNotFound
		case a.Status != "pending":
			return badRequest("validation_failed", "authorization request is no longer pending")
		case a.UserID == nil || *a.UserID != au.user.ID:
			return errAuthorizationNotFound
		}
		if body.Action == "approve" {
			redirect, err = s.approve(ctx, tx, a, au.user.ID)
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.oauth_authorizations SET status = 'denied' WHERE id = $1`, a.ID); err != nil {
			return fmt.Errorf("deny oauth authorization: %w", err)
		}
		redirect = errorRedirect(a.RedirectURI, "access_denied", "User denied the request", deref(a.State))
		return nil
	})
	if err != nil {
		return err
	}
	if expired {
		return errAuthorizationNotFound
	}
	writeJSON(w, http.StatusOK, map[string]string{"redirect_url": redirect})
	return nil
}
