package auth

import (
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
)

// bearerRE is GoTrue's Authorization header pattern.
var bearerRE = regexp.MustCompile(`^(?i)bearer (\S+)$`)

const nilUUID = "00000000-0000-0000-0000-000000000000"

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// bearer verifies the request's bearer token. The gateway may already have
// verified the same token (jwt.Caller); then its result is reused.
func (s *Service) bearer(r *http.Request) (*jwt.Claims, string, error) {
	m := bearerRE.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil {
		return nil, "", newErr(http.StatusUnauthorized, "no_authorization", "This endpoint requires a valid Bearer token")
	}
	token := m[1]
	var claims *jwt.Claims
	var err error
	if c := jwt.FromContext(r.Context()); c.Token == token && (c.Claims != nil || c.Err != nil) {
		claims, err = c.Claims, c.Err
	} else {
		claims, err = s.keys.Verify(token, s.now())
	}
	if err != nil {
		detail := err.Error()
		// jwt.Verify prefixes its own category; GoTrue shows the parser's text.
		for _, e := range []error{jwt.ErrExpired, jwt.ErrMalformed, jwt.ErrSignature} {
			if errors.Is(err, e) {
				detail = strings.TrimPrefix(detail, e.Error()+": ")
			}
		}
		return nil, token, forbidden("bad_jwt", "invalid JWT: unable to parse or verify signature, %s", detail)
	}
	return claims, token, nil
}

// authed is what requireUser learned about the caller.
type authed struct {
	user    *user
	session *session // nil when the JWT has no session_id
	claims  *jwt.Claims
}

// requireUser authenticates a user JWT the way GoTrue's
// requireAuthentication does and loads the user and session.
func (s *Service) requireUser(h func(http.ResponseWriter, *http.Request, *authed) error) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		a, err := s.authenticate(r)
		if err != nil {
			return err
		}
		return h(w, r, a)
	}
}

func (s *Service) authenticate(r *http.Request) (*authed, error) {
	claims, _, err := s.bearer(r)
	if err != nil {
		return nil, err
	}
	// The anon and service_role keys have no sub: they name a role, not a
	// user, so user endpoints refuse them.
	if claims.Subject == "" {
		return nil, forbidden("bad_jwt", "invalid claim: missing sub claim")
	}
	if !uuidRE.MatchString(claims.Subject) {
		return nil, badRequest("bad_jwt", "invalid claim: sub claim must be a UUID")
	}
	// The nil UUID means "no session", as in the reference.
	var sessionID *string
	if claims.SessionID != "" && claims.SessionID != nilUUID {
		if !uuidRE.MatchString(claims.SessionID) {
			return nil, forbidden("session_not_found", "Session from session_id claim in JWT does not exist")
		}
		sessionID = &claims.SessionID
	}
	// One round trip: the user with identities and factors, and the JWT's
	// session when it is the user's.
	var se session
	var sid *string
	u, err := scanUserWithRelations(s.db.QueryRow(r.Context(), `SELECT `+userColumns+relationColumns+`,
		se.id, coalesce(se.aal::text, 'aal1'), se.factor_id, se.not_after, coalesce(se.created_at, now()), se.refreshed_at
		FROM auth.users u LEFT JOIN auth.sessions se ON se.id = $2 AND se.user_id = u.id WHERE u.id = $1`, claims.Subject, sessionID),
		&sid, &se.AAL, &se.FactorID, &se.NotAfter, &se.CreatedAt, &se.RefreshedAt)
	if errors.Is(err, pg.ErrNotFound) {
		return nil, forbidden("user_not_found", "User from sub claim in JWT does not exist")
	}
	if err != nil {
		return nil, internalErr(err)
	}
	a := &authed{user: u, claims: claims}
	if sessionID != nil {
		if sid == nil {
			return nil, forbidden("session_not_found", "Session from session_id claim in JWT does not exist")
		}
		se.ID, se.UserID = *sid, u.ID
		if se.NotAfter != nil && s.now().After(*se.NotAfter) {
			return nil, forbidden("session_expired", "Session is no longer valid")
		}
		a.session = &se
	}
	// A ban takes effect on the next request, not at token expiry.
	if u.isBanned(s.now()) {
		return nil, forbidden("user_banned", "User is banned")
	}
	return a, nil
}

// requireAdmin lets through requests whose bearer JWT has an admin role
// (service_role by default). Admin JWTs need no sub and may lack exp.
func (s *Service) requireAdmin(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		claims, _, err := s.bearer(r)
		if err != nil {
			return err
		}
		// Admin is purely the role claim; admin keys may have no sub and no exp.
		if !slices.Contains(s.cfg.JWTAdminRoles, claims.Role) {
			return forbidden("not_admin", "User not allowed")
		}
		if claims.SessionID != "" && claims.SessionID != nilUUID {
			if !uuidRE.MatchString(claims.SessionID) {
				return forbidden("session_not_found", "Session from session_id claim in JWT does not exist")
			}
			if _, err := loadSession(r.Context(), s.db, claims.SessionID, false); err != nil {
				if errors.Is(err, pg.ErrNotFound) {
					return forbidden("session_not_found", "Session from session_id claim in JWT does not exist")
				}
				return internalErr(err)
			}
		}
		return h(w, r)
	}
}

// decode reads the JSON body into v with GoTrue's errors.
func decode(r *http.Request, v any) error {
	err := httpx.DecodeJSON(r, maxBody, v)
	if err == nil {
		return nil
	}
	var mbe *http.MaxBytesError
	if errors.Is(err, httpx.ErrBodyTooLarge) || errors.As(err, &mbe) {
		return newErr(http.StatusRequestEntityTooLarge, "request_entity_too_large", "Request body too large")
	}
	return badRequest("bad_json", "Could not parse request body as JSON: %s", strings.TrimPrefix(err.Error(), "parse JSON body: "))
}
