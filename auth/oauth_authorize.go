package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// The authorization step of the OAuth 2.1 server: GET /oauth/authorize
// records the client's request and sends the browser to the app's consent
// page, which reads it (GET /oauth/authorizations/{id}) and answers it
// (POST …/consent) with the signed-in user's token, as auth-js's
// auth.oauth.* methods do.

// oauthScopes are the scopes the server grants, in the reference's order.
var oauthScopes = []string{"openid", "profile", "email", "phone", "offline_access"}

func supportedScope(sc string) bool { return slices.Contains(oauthScopes, sc) }

// hasScope reports whether the space-separated scope list has sc.
func hasScope(scope, sc string) bool { return slices.Contains(strings.Fields(scope), sc) }

// coversScopes reports whether granted has every scope of requested.
func coversScopes(granted, requested string) bool {
	for _, sc := range strings.Fields(requested) {
		if !hasScope(granted, sc) {
			return false
		}
	}
	return true
}

// hashCode is how an authorization code is stored (hex SHA-256): the
// code has 256 random bits, so a fast hash keeps it unguessable.
func hashCode(code string) string {
	sum := sha256.Sum256([]byte(code))
	return hex.EncodeToString(sum[:])
}

// authorizeParams are the query parameters of GET /oauth/authorize.
type authorizeParams struct {
	ClientID, RedirectURI, ResponseType, Scope, State, Resource string
	CodeChallenge, CodeChallengeMethod, Nonce                   string
}

// oauthAuthorize handles GET /oauth/authorize. Until the client and its
// redirect URI are known to match, errors are answered here (never sent to
// an unverified address, so the endpoint cannot be an open redirect);
// after that, as RFC 6749 §4.1.2.1 says, they go back to the client.
func (s *Service) oauthAuthorize(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	p := authorizeParams{ClientID: q.Get("client_id"), RedirectURI: q.Get("redirect_uri"),
		ResponseType: q.Get("response_type"), Scope: q.Get("scope"), State: q.Get("state"), Resource: q.Get("resource"),
		CodeChallenge: q.Get("code_challenge"), CodeChallengeMethod: q.Get("code_challenge_method"), Nonce: q.Get("nonce")}
	if p.ClientID == "" {
		return badRequest("validation_failed", "client_id is required")
	}
	if p.RedirectURI == "" {
		return badRequest("validation_failed", "redirect_uri is required")
	}
	if !isUUID(p.ClientID) {
		return badRequest("oauth_client_not_found", "invalid client_id format")
	}
	ctx := r.Context()
	c, err := loadOAuthClient(ctx, s.db, p.ClientID)
	if err != nil {
		if errors.Is(err, pg.ErrNotFound) {
			return badRequest("oauth_client_not_found", "invalid client_id")
		}
		return err
	}
	// Exact string comparison (RFC 9700 §4.1.3): no prefix, no pattern.
	if !slices.Contains(c.RedirectURIs, p.RedirectURI) {
		return badRequest("validation_failed", "invalid redirect_uri")
	}
	back := func(code, desc string) error {
		http.Redirect(w, r, errorRedirect(p.RedirectURI, code, desc, p.State), http.StatusFound)
		return nil
	}
	if err := s.checkAuthorizeParams(&p); err != nil {
		return back("invalid_request", err.Error())
	}
	if !c.allowsGrant(grantAuthorizationCode) {
		return back("unauthorized_client", "client is not allowed to use the authorization_code grant")
	}
	id := randomAlphanumeric(32)
	now := s.now()
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO auth.oauth_authorizations (id, authorization_id, client_id, redirect_uri, scope, state, resource,
		code_challenge, code_challenge_method, nonce, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, nullif($6, ''), nullif($7, ''), $8, 's256', nullif($9, ''), $10, $11)`,
		newUUID(), id, c.ID, p.RedirectURI, p.Scope, p.State, p.Resource, p.CodeChallenge, p.Nonce, now, now.Add(s.cfg.OAuthServer.AuthorizationTTL))
	// Requests nobody answered, and codes long past their exchange, go
	// away a few at a time, so the table stays the size of its traffic.
	b.Queue(`DELETE FROM auth.oauth_authorizations WHERE id IN (SELECT id FROM auth.oauth_authorizations
		WHERE expires_at < $1 LIMIT 100)`, now.Add(-24*time.Hour))
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		s.log.ErrorContext(ctx, "store oauth authorization", "err", err)
		return back("server_error", "error creating authorization")
	}
	if s.cfg.OAuthServer.AuthorizationPath == "" {
		return back("server_error", "oauth authorization path not configured")
	}
	path := s.cfg.OAuthServer.AuthorizationPath
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	http.Redirect(w, r, strings.TrimRight(s.cfg.SiteURL, "/")+path+"?authorization_id="+id, http.StatusFound)
	return nil
}

// checkAuthorizeParams applies defaults and the checks whose errors go
// back to the client, in the reference's order. Only S256 challenges are
// accepted (Basalt's rule; the reference also takes plain).
func (s *Service) checkAuthorizeParams(p *authorizeParams) error {
	if p.ResponseType == "" {
		p.ResponseType = "code"
	}
	if p.Scope == "" {
		p.Scope = s.cfg.OAuthServer.DefaultScope
	}
	if p.ResponseType != "code" {
		return errors.New("only response_type=code is supported")
	}
	scopes := strings.Fields(p.Scope)
	if len(scopes) == 0 {
		return errors.New("scope parameter is required")
	}
	for _, sc := range scopes {
		if !supportedScope(sc) {
			return fmt.Errorf("unsupported scope: %s", sc)
		}
	}
	p.Scope = strings.Join(slices.Compact(scopes), " ")
	if p.Resource != "" {
		u, err := url.Parse(p.Resource)
		switch {
		case err != nil:
			return errors.New("resource must be a valid URI")
		case !u.IsAbs():
			return errors.New("resource must be an absolute URI")
		case u.Fragment != "":
			return errors.New("resource must not include a fragment component")
		case u.RawQuery != "":
			return errors.New("resource must not include a query component")
		}
	}
	if p.CodeChallenge == "" || p.CodeChallengeMethod == "" {
		return errors.New("PKCE flow requires both code_challenge and code_challenge_method")
	}
	if !strings.EqualFold(p.CodeChallengeMethod, "s256") {
		return errors.New("code_challenge_method must be 'S256'")
	}
	if !codeChallengeRE.MatchString(p.CodeChallenge) {
		return errors.New("code_challenge must be between 43 and 128 characters")
	}
	if len(p.State) > 4096 {
		return errors.New("state must be at most 4096 characters")
	}
	if len(p.Nonce) > 255 {
		return errors.New("nonce must be at most 255 characters")
	}
	return nil
}

// errorRedirect adds an OAuth error to a registered redirect URI.
func errorRedirect(redirectURI, code, desc, state string) string {
	u, _ := url.Parse(redirectURI)
	q := u.Query()
	q.Set("error", code)
	q.Set("error_description", desc)
	if state != "" {
		q.Set("state", state)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// successRedirect adds the code (and state) to a registered redirect URI.
func successRedirect(redirectURI, code, state string) string {
	u, _ := url.Parse(redirectURI)
	q := u.Query()
	q.Set("code", code)
	if state != "" {
		q.Set("state", state)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// randomAlphanumeric returns n random letters and digits.
func randomAlphanumeric(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	out := make([]byte, 0, n)
	buf := make([]byte, 2*n)
	for len(out) < n {
		_, _ = rand.Read(buf)
		for _, c := range buf {
			// 248 = 4 × 62: bytes above it would make some letters likelier.
			if c < 248 && len(out) < n {
				out = append(out, alphabet[c%62])
			}
		}
	}
	return string(out)
}
