package studio

import (
	"context"
	"crypto/subtle"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// sessionCookie carries an operator's session token.
const sessionCookie = "basalt_studio_session"

// csrfHeader carries the session's CSRF token on every endpoint call.
const csrfHeader = "X-CSRF-Token"

// access is who may call a route.
type access int

const (
	// accessOperator: a signed-in operator (session cookie and CSRF token),
	// or a non-browser client with the service-role key.
	accessOperator access = iota
	// accessSession: the sign-in endpoints themselves (their own checks).
	accessSession
	// accessPublic: the app's static files.
	accessPublic
)

// actor is who an endpoint call acts for.
type actor struct {
	// Operator is the signed-in operator; zero for the service-role key.
	Operator Operator
	// CSRF is the session's CSRF token ("" for the key).
	CSRF string
}

// name is how the audit log names the actor.
func (a actor) name() string {
	if a.Operator.ID == "" {
		return "service_role key"
	}
	return a.Operator.Email
}

type actorKey struct{}

// actorOf returns the caller an endpoint runs for.
func actorOf(ctx context.Context) actor {
	a, _ := ctx.Value(actorKey{}).(actor)
	return a
}

// authError is a refused call: status and message.
type authError struct {
	status int
	msg    string
}

func (e *authError) Error() string { return e.msg }

var (
	errNoCredentials = &authError{http.StatusUnauthorized, "sign in to Studio first"}
	errUserToken     = &authError{http.StatusForbidden, "a user's token gives no access to Studio: sign in as an operator"}
	errBadToken      = &authError{http.StatusUnauthorized, "the API key or token is not valid"}
	errKeyInBrowser  = &authError{http.StatusForbidden, "the service_role key is not accepted from a browser: sign in to Studio instead"}
	errCrossOrigin   = &authError{http.StatusForbidden, "cross-origin request refused"}
	errCSRF          = &authError{http.StatusForbidden, "missing or wrong " + csrfHeader + " header"}
)

// authenticate decides who a call to an operator endpoint acts for: a live
// session (whose CSRF token must come back in the header, from this
// origin), else the service-role key from a client that is no browser.
func (s *Service) authenticate(r *http.Request) (actor, error) {
	if c, err := r.Cookie(sessionCookie); err == nil && c.Value != "" {
		sess, err := lookupSession(r.Context(), s.d.Admin, c.Value)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			// An expired session falls through to the key, if any.
		case err != nil:
			return actor{}, err
		default:
			if !s.sameOrigin(r) {
				return actor{}, errCrossOrigin
			}
			if got := r.Header.Get(csrfHeader); got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(sess.CSRF)) != 1 {
				return actor{}, errCSRF
			}
			return actor{Operator: sess.Operator, CSRF: sess.CSRF}, nil
		}
	}
	token := r.Header.Get("apikey")
	if auth := r.Header.Get("Authorization"); token == "" && len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
		token = strings.TrimSpace(auth[7:])
	}
	if token == "" {
		return actor{}, errNoCredentials
	}
	role := ""
	switch {
	case s.d.Keys.SecretKey != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.d.Keys.SecretKey)) == 1:
		role = "service_role"
	case s.d.Keys.PublishableKey != "" && token == s.d.Keys.PublishableKey:
		role = "anon"
	default:
		claims, err := s.d.Keys.Verify(token, time.Now())
		if err != nil {
			return actor{}, errBadToken
		}
		role = claims.Role
	}
	if role != "service_role" {
		return actor{}, errUserToken
	}
	if fromBrowser(r) {
		return actor{}, errKeyInBrowser
	}
	return actor{}, nil
}

// fromBrowser reports whether a request carries what browsers add and
// scripts do not: an Origin, the Sec-Fetch headers, or a browser's agent.
// The service-role key pasted into a page would arrive with these.
func fromBrowser(r *http.Request) bool {
	h := r.Header
	return h.Get("Origin") != "" || h.Get("Sec-Fetch-Site") != "" || h.Get("Sec-Fetch-Mode") != "" ||
		strings.HasPrefix(h.Get("User-Agent"), "Mozilla/")
}

// sameOrigin refuses requests a browser says came from another origin:
// Origin, when sent, must be Studio's own, and Sec-Fetch-Site must not be
// cross-site.
func (s *Service) sameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if s.cfg.PublicURL != "" {
		return strings.EqualFold(strings.TrimRight(origin, "/"), s.cfg.PublicURL)
	}
	return strings.EqualFold(u.Host, r.Host)
}

// setSessionCookie hands the browser its session: HttpOnly (no script
// reads it), SameSite=Strict (no other site's page sends it).
func (s *Service) setSessionCookie(w http.ResponseWriter, token string, maxAge time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: token, Path: "/", MaxAge: int(maxAge.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.cfg.SecureCookie,
	})
}

// sessionActor returns the operator of the request's session cookie, if
// it is live (no CSRF check: for the session endpoints themselves).
func (s *Service) sessionActor(r *http.Request) (session, string, error) {
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return session{}, "", pgx.ErrNoRows
	}
	sess, err := lookupSession(r.Context(), s.d.Admin, c.Value)
	return sess, c.Value, err
}

// unavailable says whether err means the database is away (503).
func unavailable(err error) bool { return pg.Unavailable(err) }
