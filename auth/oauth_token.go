package auth

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// The token side of the OAuth 2.1 server: client authentication,
// POST /oauth/token (authorization_code with PKCE, refresh_token with
// rotation), OpenID Connect ID tokens, and revocation (RFC 7009).

// oauthForm is the parameters of a token or revocation request, from a
// form body or a JSON one. Query parameters are not read: secrets do not
// belong in URLs.
type oauthForm map[string]string

// readOAuthForm reads the body once.
func readOAuthForm(r *http.Request) (oauthForm, error) {
	f := oauthForm{}
	if strings.Contains(r.Header.Get("Content-Type"), "application/json") {
		body, err := io.ReadAll(r.Body)
		var m map[string]any
		if err != nil || json.Unmarshal(body, &m) != nil {
			return nil, badRequest("invalid_credentials", "Invalid client credentials: failed to parse JSON body")
		}
		for k, v := range m {
			if s, ok := v.(string); ok {
				f[k] = s
			}
		}
		return f, nil
	}
	if err := r.ParseForm(); err != nil {
		return nil, badRequest("invalid_credentials", "Invalid client credentials: failed to parse form")
	}
	for k, vs := range r.PostForm {
		f[k] = vs[0]
	}
	return f, nil
}

// clientCredentials reads how a token or revocation request presents its
// client: HTTP Basic (client_secret_basic, both halves form-encoded as RFC
// 6749 §2.3.1 says), or client_id and client_secret in the body
// (client_secret_post), or client_id alone (none: public clients). Errors
// are the reference's 400 invalid_credentials.
func clientCredentials(authorization string, f oauthForm) (id, secret, method string, err error) {
	if h, ok := strings.CutPrefix(authorization, "Basic "); ok {
		raw, err := base64.StdEncoding.DecodeString(h)
		if err != nil {
			return "", "", "", badRequest("invalid_credentials", "Invalid client credentials: invalid basic auth encoding")
		}
		var found bool
		if id, secret, found = strings.Cut(string(raw), ":"); !found {
			return "", "", "", badRequest("invalid_credentials", "Invalid client credentials: invalid basic auth format")
		}
		if v, err := url.QueryUnescape(id); err == nil {
			id = v
		}
		if v, err := url.QueryUnescape(secret); err == nil {
			secret = v
		}
		return id, secret, authMethodBasic, nil
	}
	id, secret = f["client_id"], f["client_secret"]
	switch {
	case id == "":
		return "", "", "", badRequest("invalid_credentials", "Invalid client credentials: client_id is required")
	case secret != "":
		return id, secret, authMethodPost, nil
	}
	return id, "", authMethodNone, nil
}

// clientRequest reads a token or revocation request's parameters and
// authenticates its client: it must use the method it registered, and a
// confidential client its current secret.
func (s *Service) clientRequest(r *http.Request) (oauthForm, *oauthClient, error) {
	f, err := readOAuthForm(r)
	if err != nil {
		return nil, nil, err
	}
	id, secret, method, err := clientCredentials(r.Header.Get("Authorization"), f)
	if err != nil {
		return nil, nil, err
	}
	fail := func(format string, args ...any) error {
		return badRequest("invalid_credentials", format, args...)
	}
	if !isUUID(id) {
		return nil, nil, fail("Invalid client_id format")
	}
	c, err := loadOAuthClient(r.Context(), s.db, id)
	if errors.Is(err, pg.ErrNotFound) {
		return nil, nil, fail("Invalid client credentials")
	}
	if err != nil {
		return nil, nil, err
	}
	switch {
	case method != c.AuthMethod:
		return nil, nil, fail("invalid authentication method: client is registered for '%s' but '%s' was used", c.AuthMethod, method)
	case c.ClientType == clientPublic && secret != "":
		return nil, nil, fail("public clients must not provide client_secret")
	case c.ClientType == clientConfidential && secret == "":
		return nil, nil, fail("confidential clients must provide client_secret")
	case c.ClientType == clientConfidential && !clientSecretMatches(c, secret):
		return nil, nil, fail("invalid client credentials")
	}
	return f, c, nil
}

// oauthErr is an OAuth-shaped error (RFC 6749 §5.2).
func oauthErr(code, desc string) error { return &oauthError{Err: code, Description: desc} }

// oauthToken handles POST /oauth/token.
func (s *Service) oauthToken(w http.ResponseWriter, r *http.Request) error {
	f, c, err := s.clientRequest(r)
	if err != nil {
		return err
	}
	grant := f["grant_type"]
	switch {
	case grant == "":
		return oauthErr("invalid_request", "grant_type is required")
	case !c.allowsGrant(grant):
		return oauthErr("unsupported_grant_type", "Client is not allowed to use grant type: "+grant)
	}
	var resp map[string]any
	switch grant {
	case grantAuthorizationCode:
		resp, err = s.exchangeCode(r, c, f)
	case grantRefreshToken:
		if f["refresh_token"] == "" {
			return oauthErr("invalid_request", "refresh_token is required for refresh_token grant")
		}
		var t *tokenResponse
		if t, err = s.rotate(r, f["refresh_token"], c.ID); err == nil {
			resp = oauthTokenJSON(t)
		}
	default:
		return oauthErr("unsupported_grant_type", "Unsupported grant type: "+grant)
	}
	if err != nil {
		return err
	}
	// RFC 6749 §5.1: tokens are never cached.
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, resp)
	return nil
}

// oauthTokenJSON is a session as a client sees it: the tokens, not the
// user.
func oauthTokenJSON(t *tokenResponse) map[string]any {
	return map[string]any{"access_token": t.AccessToken, "token_type": t.TokenType,
		"expires_in": t.ExpiresIn, "refresh_token": t.RefreshToken}
}

// exchangeCode runs the authorization_code grant. The code's row is
// locked for the exchange, so of two concurrent exchanges one finds it
// already used. A code that comes back after its exchange is refused and
// ends the session the exchange started (RFC 6749 §4.1.2): someone else
// holds the code.
func (s *Service) exchangeCode(r *http.Request, c *oauthClient, f oauthForm) (map[string]any, error) {
	code := f["code"]
	if code == "" {
		return nil, oauthErr("invalid_request", "code is required for authorization_code grant")
	}
	ctx := r.Context()
	var resp map[string]any
	var replayed bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		a, err := scanOAuthAuthorization(tx.QueryRow(ctx, `SELECT `+oauthAuthorizationColumns+`
			FROM auth.oauth_authorizations WHERE authorization_code = $1 AND status = 'approved' FOR UPDATE`, hashCode(code)))
		switch {
		case err != nil:
			return err
		case a == nil:
			return oauthErr("invalid_grant", "Invalid authorization code")
		case a.ExchangedAt != nil:
			replayed = true
			if a.SessionID != nil {
				if _, err := tx.Exec(ctx, `DELETE FROM auth.sessions WHERE id = $1`, *a.SessionID); err != nil {
					return fmt.Errorf("end session of a replayed code: %w", err)
				}
			}
			return nil // commit the revocation; the client gets invalid_grant below
		case s.now().After(a.ExpiresAt):
			return oauthErr("invalid_grant", "Authorization code has expired")
		case a.ClientID != c.ID:
			return oauthErr("invalid_grant", "Authorization code was not issued for this client")
		case f["resource"] != "" && f["resource"] != deref(a.Resource):
			return oauthErr("invalid_grant", "Authorization code resource does not match the resource parameter")
		case f["redirect_uri"] != "" && f["redirect_uri"] != a.RedirectURI:
			return oauthErr("invalid_grant", "Invalid redirect_uri")
		case f["code_verifier"] == "":
			return oauthErr("invalid_grant", "PKCE verification failed: code_verifier is required when PKCE challenge is present")
		case !verifierMatches("s256", a.CodeChallenge, f["code_verifier"]):
			return oauthErr("invalid_grant", "PKCE verification failed: code challenge does not match previously saved code verifier")
		case a.UserID == nil:
			return oauthErr("invalid_grant", "Authorization code has no associated user")
		}
		u, err := userByID(ctx, tx, *a.UserID)
		if errors.Is(err, pg.ErrNotFound) {
			return oauthErr("invalid_grant", "User not found for authorization code")
		}
		if err != nil {
			return err
		}
		if u.isBanned(s.now()) {
			return oauthErr("access_denied", "User is banned")
		}
		t, err := s.startSession(ctx, tx, r, u, "oauth_provider/authorization_code", oauthGrant{ClientID: c.ID, Scope: a.Scope})
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE auth.oauth_authorizations SET exchanged_at = $2,
			session_id = (SELECT session_id FROM auth.refresh_tokens WHERE token = $3) WHERE id = $1`,
			a.ID, s.now(), t.RefreshToken); err != nil {
			return fmt.Errorf("mark code exchanged: %w", err)
		}
		resp = oauthTokenJSON(t)
		if hasScope(a.Scope, "openid") {
			idToken, err := s.idToken(u, c.ID, deref(a.Nonce), a.Scope)
			if err != nil {
				return err
			}
			resp["id_token"] = idToken
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if replayed {
		return nil, oauthErr("invalid_grant", "Invalid authorization code")
	}
	return resp, nil
}

// issuer is the iss of ID tokens and the base of the discovery document:
// JWT_ISSUER, else <API_EXTERNAL_URL>/auth/v1, as Supabase issues them.
func (s *Service) issuer() string {
	if s.cfg.JWTIssuer != "" {
		return s.cfg.JWTIssuer
	}
	return s.cfg.APIURL + "/auth/v1"
}

// idToken signs an OpenID Connect ID token for u with the project's
// asymmetric key, with the claims the granted scopes allow, as the
// reference fills them in.
func (s *Service) idToken(u *user, clientID, nonce, scope string) (string, error) {
	now := s.now()
	authTime := now
	if u.LastSignInAt != nil {
		authTime = *u.LastSignInAt
	}
	claims := gojwt.MapClaims{
		"iss": s.issuer(), "sub": u.ID, "aud": []string{clientID}, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"auth_time": authTime.Unix(), "client_id": clientID,
		// Required by the reference's shape whatever the scopes.
		"email_verified": false, "phone_number_verified": false,
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	if hasScope(scope, "email") {
		if u.Email != "" {
			claims["email"] = u.Email
		}
		claims["email_verified"] = u.EmailConfirmedAt != nil
	}
	if hasScope(scope, "phone") {
		if u.Phone != "" {
			claims["phone_number"] = u.Phone
		}
		claims["phone_number_verified"] = u.PhoneConfirmedAt != nil
	}
	if hasScope(scope, "profile") {
		for k, v := range profileClaims(u) {
			claims[k] = v
		}
	}
	tok, err := s.keys.SignAsymmetric(claims)
	if err != nil {
		return "", fmt.Errorf("sign id token: %w", err)
	}
	return tok, nil
}

// profileClaims are the profile scope's claims, from user_metadata: name
// (else the email), picture (or avatar_url), preferred_username (or
// username), updated_at.
func profileClaims(u *user) map[string]any {
	out := map[string]any{}
	meta := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := u.UserMetadata[k].(string); ok && v != "" {
				return v
			}
		}
		return ""
	}
	if v := meta("name"); v != "" {
		out["name"] = v
	} else if u.Email != "" {
		out["name"] = u.Email
	}
	if v := meta("picture", "avatar_url"); v != "" {
		out["picture"] = v
	}
	if v := meta("preferred_username", "username"); v != "" {
		out["preferred_username"] = v
	}
	if u.UpdatedAt.Unix() > 0 {
		out["updated_at"] = u.UpdatedAt.Unix()
	}
	return out
}

// oauthUserInfo handles GET /oauth/userinfo (OpenID Connect Core §5.3):
// the claims the session's scopes allow; sub alone for a token that is
// not a client's.
func (s *Service) oauthUserInfo(w http.ResponseWriter, r *http.Request, a *authed) error {
	info := map[string]any{"sub": a.user.ID}
	if a.session != nil {
		var scope string
		if err := s.db.QueryRow(r.Context(), `SELECT coalesce(scopes, '') FROM auth.sessions WHERE id = $1`, a.session.ID).Scan(&scope); err != nil {
			return fmt.Errorf("read session scopes: %w", err)
		}
		u := a.user
		if hasScope(scope, "email") {
			if u.Email != "" {
				info["email"] = u.Email
			}
			if u.EmailConfirmedAt != nil {
				info["email_verified"] = true
			}
		}
		if hasScope(scope, "profile") {
			for k, v := range profileClaims(u) {
				info[k] = v
			}
			if u.UserMetadata != nil {
				info["user_metadata"] = u.UserMetadata
			}
		}
		if hasScope(scope, "phone") {
			if u.Phone != "" {
				info["phone"] = u.Phone
			}
			if u.PhoneConfirmedAt != nil {
				info["phone_verified"] = true
			}
		}
	}
	writeJSON(w, http.StatusOK, info)
	return nil
}

// oauthRevoke handles POST /oauth/revoke (RFC 7009, Basalt's addition:
// the reference has no revocation endpoint). A refresh token or access
// token of one of the client's sessions ends that session: its refresh
// tokens stop working, and its access tokens are refused by auth at once.
// Anything else is answered the same (RFC 7009 §2.2), so the endpoint
// tells a caller nothing about tokens it does not hold.
func (s *Service) oauthRevoke(w http.ResponseWriter, r *http.Request) error {
	f, c, err := s.clientRequest(r)
	if err != nil {
		return err
	}
	token := f["token"]
	if token == "" {
		return oauthErr("invalid_request", "token is required")
	}
	ctx := r.Context()
	if strings.Count(token, ".") == 2 {
		if claims, err := s.keys.Verify(token, s.now()); err == nil && isUUID(claims.SessionID) {
			if _, err := s.db.Exec(ctx, `DELETE FROM auth.sessions WHERE id = $1 AND oauth_client_id = $2`, claims.SessionID, c.ID); err != nil {
				return fmt.Errorf("revoke access token: %w", err)
			}
		}
	} else if _, err := s.db.Exec(ctx, `DELETE FROM auth.sessions WHERE oauth_client_id = $2
		AND id = (SELECT session_id FROM auth.refresh_tokens WHERE token = $1)`, token, c.ID); err != nil {
		return fmt.Errorf("revoke refresh token: %w", err)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	return nil
}
