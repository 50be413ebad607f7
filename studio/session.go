package studio

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
)

// sessionBody is what the app learns about its session: who, the CSRF
// token to send back, and whether Studio is open (dev) or signed into.
type sessionBody struct {
	Operator  Operator `json:"operator"`
	CSRFToken string   `json:"csrf_token"`
	Open      bool     `json:"open"`
}

// getSession answers the app's first call: its session, or under `basalt
// dev` a new session of the dev operator, or 401 (the sign-in form).
func (s *Service) getSession(w http.ResponseWriter, r *http.Request) error {
	if !s.sameOrigin(r) {
		return errCrossOrigin
	}
	sess, _, err := s.sessionActor(r)
	switch {
	case err == nil:
		httpx.WriteJSON(w, http.StatusOK, sessionBody{Operator: sess.Operator, CSRFToken: sess.CSRF, Open: s.cfg.Open})
		return nil
	case !errors.Is(err, pgx.ErrNoRows):
		return err
	case !s.cfg.Open:
		return errNoCredentials
	}
	op, err := ensureDevOperator(r.Context(), s.d.Admin)
	if err != nil {
		return err
	}
	token, sess, err := openSession(r.Context(), s.d.Admin, op, s.cfg.SessionTTL, httpx.ClientIP(r), r.UserAgent())
	if err != nil {
		return err
	}
	s.setSessionCookie(w, token, s.cfg.SessionTTL)
	httpx.WriteJSON(w, http.StatusOK, sessionBody{Operator: sess.Operator, CSRFToken: sess.CSRF, Open: true})
	return nil
}

// signIn checks an operator's email and password, within the sign-in
// budgets of the client's address and of the email, and opens a session.
func (s *Service) signIn(w http.ResponseWriter, r *http.Request) error {
	if !s.sameOrigin(r) {
		return errCrossOrigin
	}
	var body struct {
		Email    string `json:"email"`
		Password string `json:"password"`
	}
	if err := httpx.DecodeJSON(r, defaultMaxBody, &body); err != nil {
		if errors.Is(err, httpx.ErrBodyTooLarge) {
			return err
		}
		return badRequest("the body must be JSON: {\"email\": \"...\", \"password\": \"...\"}")
	}
	if body.Email == "" || body.Password == "" {
		return badRequest("email and password are required")
	}
	ctx := r.Context()
	ip := httpx.ClientIP(r)
	perEmail := max(3, s.cfg.SignInMax/4)
	for _, b := range []struct {
		key string
		max int
	}{{"studio:sign-in:ip:" + ip, s.cfg.SignInMax}, {"studio:sign-in:email:" + normEmailOrRaw(body.Email), perEmail}} {
		ok, until, err := s.limiter.Take(ctx, b.key, b.max, s.cfg.SignInWindow)
		if err != nil {
			return err
		}
		if !ok {
			wait := int(time.Until(until).Seconds()) + 1
			w.Header().Set("Retry-After", strconv.Itoa(wait))
			return &httpError{http.StatusTooManyRequests, errorBody{Error: fmt.Sprintf("too many sign-in attempts: try again in %d seconds", wait)}}
		}
	}
	op, err := checkCredentials(ctx, s.d.Admin, body.Email, body.Password)
	if errors.Is(err, errBadCredentials) {
		_ = s.audit(ctx, s.d.Admin, Operator{Email: normEmailOrRaw(body.Email)}, "studio.sign_in_failed", "", http.StatusBadRequest, r)
		return badRequest("%s", err.Error())
	}
	if err != nil {
		return err
	}
	token, sess, err := openSession(ctx, s.d.Admin, op, s.cfg.SessionTTL, ip, r.UserAgent())
	if err != nil {
		return err
	}
	if err := s.audit(ctx, s.d.Admin, op, "studio.sign_in", op.Email, http.StatusOK, r); err != nil {
		return err
	}
	s.setSessionCookie(w, token, s.cfg.SessionTTL)
	httpx.WriteJSON(w, http.StatusOK, sessionBody{Operator: op, CSRFToken: sess.CSRF, Open: s.cfg.Open})
	return nil
}

// signOut ends the session and clears the cookie.
func (s *Service) signOut(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(sessionCookie); err == nil {
		if err := closeSession(r.Context(), s.d.Admin, c.Value); err != nil {
			return err
		}
	}
	s.setSessionCookie(w, "", -time.Second)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// normEmailOrRaw is the email as budgets count it.
func normEmailOrRaw(email string) string {
	if e, err := normEmail(email); err == nil {
		return e
	}
	if len(email) > 320 {
		return email[:320]
	}
	return email
}
