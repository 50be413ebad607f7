package auth

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
)

// bearerToken returns the token of an Authorization header of the form
// GoTrue accepts, `^(?i)bearer (\S+)$`: the scheme in any case, one space,
// then a token without whitespace. It is written out rather than matched
// with that regular expression because it runs on every authenticated
// request over a token of about a kilobyte, where the regexp engine cost
// more than the database read.
func bearerToken(h string) (string, bool) {
	const scheme = "bearer "
	if len(h) <= len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return "", false
	}
	token := h[len(scheme):]
	// \S in RE2 is anything but ASCII space, \t, \n, \f and \r.
	if strings.ContainsAny(token, " \t\n\f\r") {
		return "", false
	}
	return token, true
}

// nilUUID as a session_id claim means "no session" (tokens minted by
// tools rather than by a sign-in carry it).
const nilUUID = "00000000-0000-0000-0000-000000000000"

// isUUID reports whether s is a UUID in the 8-4-4-4-12 hex form, in
// either case (the pattern the reference validates ids with).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// bearer verifies the request's bearer token. The gateway may already have
// verified the same token (jwt.Caller); then its result is reused.
func (s *Service) bearer(r *http.Request) (*jwt.Claims, string, error) {
	token, ok := bearerToken(r.Header.Get("Authorization"))
	// A client that sent only a legacy API key sent no bearer token: the
	// reference gateway passes that key on without the Bearer scheme.
	if !ok || jwt.FromContext(r.Context()).Source == jwt.SourceLegacyKey {
		return nil, "", newErr(http.StatusUnauthorized, "no_authorization", "This endpoint requires a valid Bearer token")
	}
	var claims *jwt.Claims
	var err error
	if c := jwt.FromContext(r.Context()); c.Token == token && (c.Claims != nil || c.Err != nil) {
		claims, err = c.Claims, c.Err
	} else {
		claims, err = s.keys.Verify(token, s.now())
	}
	// The reference's message embeds the JWT library's own text; the bad_jwt
	// code is what clients branch on.
	if err != nil {
		detail := err.Error()
		// jwt.Verify prefixes its own category; GoTrue shows the parser's text.
		for _, e := range []error{jwt.ErrExpired, jwt.ErrNotYetValid, jwt.ErrIssuedInFuture, jwt.ErrMalformed, jwt.ErrSignature} {
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

// authenticate checks the bearer token and loads its user and session,
// with the reference's error for each failure: a token that verifies is
// still refused once its user is gone or banned, or its session was
// signed out, so revocation takes effect before the token expires.
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
	if !isUUID(claims.Subject) {
		return nil, badRequest("bad_jwt", "invalid claim: sub claim must be a UUID")
	}
	// The nil UUID means "no session", as in the reference.
	var sessionID *string
	if claims.SessionID != "" && claims.SessionID != nilUUID {
		if !isUUID(claims.SessionID) {
			return nil, forbidden("session_not_found", "Session from session_id claim in JWT does not exist")
		}
		sessionID = &claims.SessionID
	}
	// One round trip: the user, its identities and factors, and the JWT's
	// session when it is the user's.
	ctx := r.Context()
	b := &pgx.Batch{}
	queueUser(b, "$1::uuid", claims.Subject)
	if sessionID != nil {
		b.Queue(`SELECT coalesce(aal::text, 'aal1'), factor_id, not_after, coalesce(created_at, now()), refreshed_at
			FROM auth.sessions WHERE id = $1 AND user_id = $2`, *sessionID, claims.Subject)
	}
	br := s.db.SendBatch(ctx, b)
	defer br.Close()
	u, err := readUser(br)
	if errors.Is(err, pg.ErrNotFound) {
		return nil, forbidden("user_not_found", "User from sub claim in JWT does not exist")
	}
	if err != nil {
		return nil, internalErr(err)
	}
	a := &authed{user: u, claims: claims}
	if sessionID != nil {
		se := session{ID: *sessionID, UserID: u.ID}
		err := br.QueryRow().Scan(&se.AAL, &se.FactorID, &se.NotAfter, &se.CreatedAt, &se.RefreshedAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, forbidden("session_not_found", "Session from session_id claim in JWT does not exist")
		}
		if err != nil {
			return nil, internalErr(fmt.Errorf("load session %s: %w", *sessionID, err))
		}
		if se.NotAfter != nil && s.now().After(*se.NotAfter) {
			return nil, forbidden("session_expired", "Session is no longer valid")
		}
		a.session = &se
	}
	if err := br.Close(); err != nil {
		return nil, internalErr(fmt.Errorf("authenticate %s: %w", u.ID, err))
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
			if !isUUID(claims.SessionID) {
				return forbidden("session_not_found", "Session from session_id claim in JWT does not exist")
			}
			if _, err := loadSession(r.Context(), s.db, claims.SessionID); err != nil {
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

// checkBody checks a decoded body against its fields' `validate` rules, in
// field order (the reference's order of checks); the first one broken
// answers 400 validation_failed with that field's `msg`, the reference's
// words for it.
func checkBody(v any) error {
	if bad := httpx.Validate(v); bad != nil {
		return badRequest("validation_failed", "%s", bad.Message)
	}
	return nil
}
