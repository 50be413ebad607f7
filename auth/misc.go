package auth

import (
	"net/http"
	"strings"
)

// Version is reported by /health. It names the reference release whose
// behaviour this service follows, with a suffix that says it is not that
// server.
const Version = "2.196.0-basalt"

// health handles GET /health with the reference's body, which some
// tooling checks for the name GoTrue.
func (s *Service) health(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"version": Version, "name": "GoTrue",
		"description": "GoTrue is a user registration and authentication API"})
	return nil
}

// settings handles GET /settings: which sign-in methods are on. auth-js
// and the Supabase UI libraries read it to decide which buttons to show, so
// every external provider is listed, true when it is enabled.
func (s *Service) settings(w http.ResponseWriter, r *http.Request) error {
	ext := map[string]bool{"anonymous_users": s.cfg.AnonymousEnabled, "email": s.cfg.EmailEnabled, "phone": s.cfg.PhoneEnabled}
	for _, p := range settingsProviders() {
		ext[p] = s.cfg.External[p].Enabled
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"external": ext, "disable_signup": s.cfg.DisableSignup, "mailer_autoconfirm": s.cfg.MailerAutoconfirm,
		"phone_autoconfirm": s.cfg.SMSAutoconfirm, "sms_provider": "", "saml_enabled": s.cfg.SAML.Enabled,
		"saml_private_key_next_configured": false, "passkeys_enabled": s.cfg.WebAuthn.PasskeyEnabled,
	})
	return nil
}

// jwks handles GET /.well-known/jwks.json: the public keys other services
// (and getClaims in auth-js) verify access tokens with, cacheable for ten
// minutes like the reference's.
func (s *Service) jwks(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=600")
	// Only public asymmetric keys: the HS256 secret is never listed.
	writeJSON(w, http.StatusOK, s.keys.JWKS())
	return nil
}

// devMailbox lists the dev mailbox, newest first; ?email= filters by
// recipient (an email address or a phone number).
func (s *Service) devMailbox(w http.ResponseWriter, r *http.Request) error {
	to := strings.TrimPrefix(strings.ToLower(r.URL.Query().Get("email")), "+")
	writeJSON(w, http.StatusOK, map[string]any{"messages": s.mailbox.List(to)})
	return nil
}

// ssoCatchAll is the pattern of paths under /sso/ that no route serves.
const ssoCatchAll = "/sso/"

// catchAllPatterns are the routes that take every method of their paths
// only to answer them as unknown (or as a feature that is off): notFound
// does not count them as allowing a method.
var catchAllPatterns = map[string]bool{"/": true, ssoCatchAll: true, "/oauth": true, "/oauth/": true,
	"/admin/oauth": true, "/admin/oauth/": true, "/user/oauth/grants": true, "/user/oauth/grants/": true}

// notFound answers paths no route serves; a known path with another method
// gets 405 with an Allow header and no body, as the reference's router does.
func (s *Service) notFound(w http.ResponseWriter, r *http.Request) error {
	var allow []string
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && !catchAllPatterns[pattern] {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		w.WriteHeader(http.StatusMethodNotAllowed)
		return nil
	}
	return notFound("not_found", "404 page not found")
}
