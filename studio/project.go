package studio

import (
	"encoding/json"
	"net/http"
	"strings"
)

// project answers the API screen: the project URL and the keys a browser
// may hold. The service_role and secret keys are not among them: Studio's
// server uses them on the operator's behalf, and `basalt keys` prints them
// on the host.
func (s *Service) project(w http.ResponseWriter, r *http.Request) error {
	return okJSON(w, map[string]any{
		"url":             s.d.ProjectURL,
		"anon_key":        s.d.Keys.AnonKey,
		"publishable_key": s.d.Keys.PublishableKey,
		"jwks_url":        s.d.ProjectURL + "/auth/v1/.well-known/jwks.json",
		"service_role_key_note": "The service_role and secret keys stay on the server: Studio acts with them for you. " +
			"Print them on the host with `basalt keys`. Secret API keys (sb_secret_…) are created and rotated there with " +
			"`basalt keys api create|rotate secret`, with no restart; the JWT-based keys rotate with `basalt keys rotate` " +
			"while basalt dev is stopped, or under basalt serve by changing JWT_SECRET (or BASALT_KEYS_FILE) and restarting every node.",
	})
}

// auditLog lists the audit log, newest first: ?limit= (100, at most
// 1000), ?before= (an id, for the next page), ?action= (a prefix).
func (s *Service) auditLog(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, before, err := keysetPage(q)
	if err != nil {
		return err
	}
	action := strings.ReplaceAll(strings.ReplaceAll(q.Get("action"), `\`, `\\`), "%", `\%`)
	var out json.RawMessage
	err = s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(a ORDER BY a.id DESC), '[]') FROM (
		SELECT id, at, actor, action, target, detail, ip, request_id, status FROM basalt.studio_audit
		WHERE ($1::int8 IS NULL OR id < $1) AND action LIKE $2 || '%'
		ORDER BY id DESC LIMIT $3) a`, before, action, limit).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}
