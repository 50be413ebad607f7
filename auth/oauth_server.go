package auth

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The OAuth 2.1 / OpenID Connect server's routes, discovery and the
// user's grants. Off unless OAUTH_SERVER_ENABLED: then every path of it
// answers 404 feature_disabled, after the admin or user check where the
// reference makes one first.

// oauthRoutes registers the server's endpoints (called by routes).
func (s *Service) oauthRoutes() {
	m := s.mux
	on := s.requireOAuthServer
	admin := func(h handlerFunc) http.Handler { return s.handle(s.requireAdmin(on(h))) }
	asUser := func(h func(http.ResponseWriter, *http.Request, *authed) error) http.Handler {
		return s.handle(on(s.requireUser(h)))
	}
	// Discovery is served whether the server is on or not, as the
	// reference does; the RFC 8414 document only while it is on.
	m.Handle("GET /.well-known/openid-configuration", s.handle(s.openIDConfiguration))
	m.Handle("GET /.well-known/oauth-authorization-server", s.handle(on(s.openIDConfiguration)))

	m.Handle("POST /admin/oauth/clients", admin(s.adminOAuthClientRegister))
	m.Handle("GET /admin/oauth/clients", admin(s.adminOAuthClientList))
	m.Handle("GET /admin/oauth/clients/{client_id}", admin(s.adminOAuthClientGet))
	m.Handle("PUT /admin/oauth/clients/{client_id}", admin(s.adminOAuthClientUpdate))
	m.Handle("DELETE /admin/oauth/clients/{client_id}", admin(s.adminOAuthClientDelete))
	m.Handle("POST /admin/oauth/clients/{client_id}/regenerate_secret", admin(s.adminOAuthClientRegenerateSecret))
	for _, p := range []string{"/admin/oauth", "/admin/oauth/"} {
		m.Handle(p, admin(s.notFound))
	}

	register := s.limitIP("oauth_client_register", func() int { return s.cfg.RateLimits.OAuthClientRegister }, 5*time.Minute,
		s.oauthClientDynamicRegister)
	tokenLimit := func(h handlerFunc) handlerFunc {
		return s.limitIP("oauth_token", func() int { return s.cfg.RateLimits.Token }, 5*time.Minute, h)
	}
	m.Handle("POST /oauth/clients/register", s.handle(on(register)))
	m.Handle("POST /oauth/token", s.handle(on(tokenLimit(s.oauthToken))))
	m.Handle("POST /oauth/revoke", s.handle(on(tokenLimit(s.oauthRevoke))))
	m.Handle("GET /oauth/userinfo", asUser(s.oauthUserInfo))
	m.Handle("GET /oauth/authorize", s.handle(on(s.oauthAuthorize)))
	m.Handle("GET /oauth/authorizations/{authorization_id}", asUser(s.oauthGetAuthorization))
	m.Handle("POST /oauth/authorizations/{authorization_id}/consent", asUser(s.oauthConsent))
	for _, p := range []string{"/oauth", "/oauth/"} {
		m.Handle(p, s.handle(on(s.notFound)))
	}

	userOn := func(h func(http.ResponseWriter, *http.Request, *authed) error) http.Handler {
		return s.handle(s.requireUser(func(w http.ResponseWriter, r *http.Request, a *authed) error {
			if !s.cfg.OAuthServer.Enabled {
				return errOAuthServerOff
			}
			return h(w, r, a)
		}))
	}
	m.Handle("GET /user/oauth/grants", userOn(s.userOAuthGrants))
	m.Handle("DELETE /user/oauth/grants", userOn(s.userRevokeOAuthGrant))
	for _, p := range []string{"/user/oauth/grants", "/user/oauth/grants/"} {
		m.Handle(p, userOn(func(w http.ResponseWriter, r *http.Request, _ *authed) error { return s.notFound(w, r) }))
	}
}

var errOAuthServerOff = notFound("feature_disabled", "OAuth server is disabled")

// requireOAuthServer answers feature_disabled while the server is off.
func (s *Service) requireOAuthServer(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if !s.cfg.OAuthServer.Enabled {
			return errOAuthServerOff
		}
		return h(w, r)
	}
}

// openIDConfiguration is the discovery document (OpenID Connect Discovery
// 1.0 and RFC 8414 share it), with the endpoints under the issuer.
func (s *Service) openIDConfiguration(w http.ResponseWriter, r *http.Request) error {
	iss := strings.TrimRight(s.issuer(), "/")
	doc := map[string]any{
		"issuer":                   s.issuer(),
		"authorization_endpoint":   iss + "/oauth/authorize",
		"token_endpoint":           iss + "/oauth/token",
		"jwks_uri":                 iss + "/.well-known/jwks.json",
		"userinfo_endpoint":        iss + "/oauth/userinfo",
		"scopes_supported":         oauthScopes,
		"response_types_supported": []string{"code"},
		"response_modes_supported": []string{"query"},
		"grant_types_supported":    []string{grantAuthorizationCode, grantRefreshToken},
		"subject_types_supported":  []string{"public"},
		// The reference's list; ID tokens are signed with the project's
		// asymmetric key, never HS256.
		"id_token_signing_alg_values_supported": []string{"RS256", "HS256", "ES256"},
		"token_endpoint_auth_methods_supported": []string{authMethodBasic, authMethodPost, authMethodNone},
		// Basalt accepts S256 only.
		"code_challenge_methods_supported": []string{"S256"},
		"claims_supported": []string{"sub", "aud", "iss", "exp", "iat", "auth_time", "nonce", "email", "email_verified",
			"phone_number", "phone_number_verified", "name", "picture", "preferred_username", "updated_at"},
		// Basalt's addition (RFC 7009).
		"revocation_endpoint":                        iss + "/oauth/revoke",
		"revocation_endpoint_auth_methods_supported": []string{authMethodBasic, authMethodPost, authMethodNone},
	}
	if s.cfg.OAuthServer.Enabled && s.cfg.OAuthServer.AllowDynamicRegistration {
		doc["registration_endpoint"] = iss + "/oauth/clients/register"
	}
	w.Header().Set("Cache-Control", "public, max-age=600")
	writeJSON(w, http.StatusOK, doc)
	return nil
}

// userGrant is one app the user allowed, as GET /user/oauth/grants lists
// it.
type userGrant struct {
	Client    clientDetails `json:"client"`
	Scopes    []string      `json:"scopes"`
	GrantedAt time.Time     `json:"granted_at"`
}

// userOAuthGrants handles GET /user/oauth/grants: the caller's active
// consents, newest first, for clients that still exist.
func (s *Service) userOAuthGrants(w http.ResponseWriter, r *http.Request, a *authed) error {
	rows, err := s.db.Query(r.Context(), `SELECT c.id::text, coalesce(c.client_name, ''), coalesce(c.client_uri, ''),
		coalesce(c.logo_uri, ''), g.scopes, g.granted_at
		FROM auth.oauth_consents g JOIN auth.oauth_clients c ON c.id = g.client_id AND c.deleted_at IS NULL
		WHERE g.user_id = $1 AND g.revoked_at IS NULL ORDER BY g.granted_at DESC`, a.user.ID)
	if err != nil {
		return fmt.Errorf("list oauth grants: %w", err)
	}
	grants, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (userGrant, error) {
		var g userGrant
		var scopes string
		err := row.Scan(&g.Client.ID, &g.Client.Name, &g.Client.URI, &g.Client.LogoURI, &scopes, &g.GrantedAt)
		g.Scopes = strings.Fields(scopes)
		g.GrantedAt = g.GrantedAt.UTC()
		return g, err
	})
	if err != nil {
		return fmt.Errorf("list oauth grants: %w", err)
	}
	if grants == nil {
		grants = []userGrant{}
	}
	writeJSON(w, http.StatusOK, grants)
	return nil
}

// userRevokeOAuthGrant handles DELETE /user/oauth/grants?client_id=: the
// consent is revoked and the client's sessions of this user end, so its
// tokens stop refreshing and auth refuses its access tokens at once.
func (s *Service) userRevokeOAuthGrant(w http.ResponseWriter, r *http.Request, a *authed) error {
	id := r.URL.Query().Get("client_id")
	if id == "" {
		return badRequest("validation_failed", "client_id query parameter is required")
	}
	if !isUUID(id) {
		return badRequest("validation_failed", "invalid client_id format")
	}
	ctx := r.Context()
	found := false
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE auth.oauth_consents SET revoked_at = greatest($3, granted_at)
			WHERE user_id = $1 AND client_id = $2 AND revoked_at IS NULL`, a.user.ID, id, s.now())
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		found = true
		b := &pgx.Batch{}
		b.Queue(`DELETE FROM auth.sessions WHERE user_id = $1 AND oauth_client_id = $2`, a.user.ID, id)
		s.queueAudit(b, r, a.user, "token_revoked", map[string]any{"oauth_client_id": id, "action": "revoke_oauth_grant"})
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return fmt.Errorf("revoke oauth grant: %w", err)
	}
	if !found {
		return notFound("oauth_consent_not_found", "No active grant found for this client")
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
