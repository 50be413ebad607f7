package gateway

import (
	"net/http"
	"strings"

	"github.com/basaltdev/basalt/internal/jwt"
)

// Messages of the reference gateway's key-auth plugin, byte for byte.
const (
	msgNoAPIKey      = "No API key found in request"
	msgInvalidAPIKey = "Invalid API key"
	// Secret keys bypass RLS; the reference platform refuses them from
	// browsers so a key pasted into frontend code fails at once.
	msgSecretInBrowser = "Forbidden use of secret API key in browser"
)

// fromBrowser reports whether the request comes from a web browser: every
// browser's User-Agent starts with "Mozilla/"; server runtimes (Node, Deno,
// curl, Go) do not send that.
func fromBrowser(r *http.Request) bool {
	return strings.HasPrefix(r.UserAgent(), "Mozilla/")
}

// isPublic reports whether a request may pass without an API key. These are
// the routes a browser reaches by navigation or an outside server calls, so
// they can carry no apikey header: the email-link verify endpoint, the OAuth
// authorize and callback redirects, the SAML assertion consumer (an identity
// provider's form post) and service provider metadata, the JWKS document, the OAuth 2.1
// server's endpoints for other apps, public and signed
// storage URLs (downloads, and uploads to a signed upload URL), and edge
// functions (which verify JWTs per function, as the reference self-hosted
// gateway leaves to them).
func isPublic(service, path, method string) bool {
	switch service {
	case "auth":
		switch path {
		case "/verify", "/callback", "/authorize", "/sso/saml/acs", "/sso/saml/metadata", "/.well-known/jwks.json":
			return true
		// The OAuth 2.1 server's endpoints for other apps, which hold no
		// project key: discovery, the browser's authorize redirect, client
		// registration, and the token, userinfo and revocation calls
		// (each authenticates its own caller).
		case "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server", "/oauth/authorize",
			"/oauth/clients/register", "/oauth/token", "/oauth/userinfo", "/oauth/revoke":
			return true
		}
	case "storage":
		// A signed upload URL carries its own token, so whoever was handed
		// it may upload without the project key.
		if (method == http.MethodPut || method == http.MethodPost) && strings.HasPrefix(path, "/object/upload/sign/") {
			return true
		}
		if method != http.MethodGet && method != http.MethodHead {
			return false
		}
		for _, p := range []string{"/object/public/", "/object/sign/", "/render/image/public/", "/render/image/sign/"} {
			if strings.HasPrefix(path, p) {
				return true
			}
		}
	case "functions":
		return true
	}
	return false
}

// apiKey returns the key the request presents: the apikey header, else the
// apikey query parameter (browsers cannot set headers on websockets).
func apiKey(r *http.Request) string {
	if k := r.Header.Get("apikey"); k != "" {
		return k
	}
	return r.URL.Query().Get("apikey")
}

// keyRole maps a presented project key to its role and to the JWT that stands
// for it: the legacy keys are JWTs themselves, the new-format sb_ keys are
// swapped for the legacy JWT of the same role, as the reference gateway does.
// Any other anon or service_role JWT the project's keys sign (the secret or
// any key of the key set) is a project key too: the reference's own test
// fixtures sign theirs with their key set.
func (g *Gateway) keyRole(key string) (role, token string, ok bool) {
	k := g.keys
	switch {
	case key == "":
		return "", "", false
	case key == k.AnonKey:
		return "anon", k.AnonKey, true
	case key == k.ServiceRoleKey:
		return "service_role", k.ServiceRoleKey, true
	case k.PublishableKey != "" && key == k.PublishableKey:
		return "anon", k.AnonKey, true
	case k.SecretKey != "" && key == k.SecretKey:
		return "service_role", k.ServiceRoleKey, true
	case strings.HasPrefix(key, "sb_") || strings.Count(key, ".") != 2:
		return "", "", false
	}
	if c, err := g.claims(key); err == nil && (c.Role == "anon" || c.Role == "service_role") {
		return c.Role, key, true
	}
	return "", "", false
}

// claims verifies token once: the project keys' claims are known, and
// verified tokens are cached until they expire.
func (g *Gateway) claims(token string) (*jwt.Claims, error) {
	now := g.cfg.Now()
	// Claims may be shared between requests: services treat them as
	// read-only.
	if c, ok := g.projectClaims[token]; ok && (c.Expires.IsZero() || now.Before(c.Expires)) {
		return c, nil
	}
	if c, ok := g.tokens.get(token, now); ok {
		return c, nil
	}
	c, err := g.keys.Verify(token, now)
	if err == nil {
		g.tokens.put(token, c)
	}
	return c, err
}

// authorize checks the API key (unless public) and computes the caller. On
// failure it writes the 401 and returns false.
//
// The effective bearer token follows the reference gateway: the
// Authorization header, unless it carries an sb_ key (then the JWT behind
// that key); without Authorization, the JWT behind the apikey. The request's
// Authorization header is rewritten to the effective token, and its claims
// are verified here once for every service. Caller.Source records which it
// was: the reference gateway hands GoTrue a legacy key without the Bearer
// scheme, and the auth service answers as GoTrue then does.
func (g *Gateway) authorize(w http.ResponseWriter, r *http.Request, public bool) (*jwt.Caller, bool) {
	key := apiKey(r)
	role, keyToken, valid := g.keyRole(key)
	if !public {
		if key == "" {
			writeError(w, http.StatusUnauthorized, msgNoAPIKey)
			return nil, false
		}
		if !valid {
			writeError(w, http.StatusUnauthorized, msgInvalidAPIKey)
			return nil, false
		}
	}
	if valid && strings.HasPrefix(key, "sb_secret_") && fromBrowser(r) {
		writeError(w, http.StatusUnauthorized, msgSecretInBrowser)
		return nil, false
	}
	if valid && strings.HasPrefix(key, "sb_") && r.Header.Get("apikey") != "" {
		// Services downstream only ever see JWT project keys.
		r.Header.Set("apikey", keyToken)
	}

	caller := &jwt.Caller{APIKeyRole: role}
	authz := r.Header.Get("Authorization")
	scheme, bearer, hasBearer := strings.Cut(authz, " ")
	hasBearer = hasBearer && strings.EqualFold(scheme, "Bearer")
	bearer = strings.TrimSpace(bearer)
	switch {
	case hasBearer && strings.HasPrefix(bearer, "sb_"):
		_, tok, ok := g.keyRole(bearer)
		if !ok {
			writeError(w, http.StatusUnauthorized, msgInvalidAPIKey)
			return nil, false
		}
		if strings.HasPrefix(bearer, "sb_secret_") && fromBrowser(r) {
			writeError(w, http.StatusUnauthorized, msgSecretInBrowser)
			return nil, false
		}
		caller.Token, caller.Source = tok, jwt.SourceAuthorization
	case hasBearer && bearer != "":
		caller.Token, caller.Source = bearer, jwt.SourceAuthorization
	case authz == "" && valid:
		caller.Token, caller.Source = keyToken, jwt.SourceLegacyKey
		if strings.HasPrefix(key, "sb_") {
			caller.Source = jwt.SourceNewKey
		}
	}
	if caller.Token != "" {
		r.Header.Set("Authorization", "Bearer "+caller.Token)
		caller.Claims, caller.Err = g.claims(caller.Token)
		if caller.Err != nil {
			caller.Claims = nil
		}
	}
	return caller, true
}
