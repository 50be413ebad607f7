package studio

import (
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
)

// GoTrue's admin API has no call for a user's sessions; Supabase's
// dashboard reads them from auth.sessions too. Revoking one deletes it,
// which revokes its refresh tokens (they cascade), as sign-out does: its
// access tokens live until they expire.

// userSessions lists a user's sessions, newest first.
func (s *Service) userSessions(w http.ResponseWriter, r *http.Request) error {
	uid, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return badRequest("the user id must be a UUID")
	}
	var out json.RawMessage
	err = s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(x ORDER BY x.created_at DESC), '[]') FROM (
		SELECT s.id, s.user_id, s.created_at, s.updated_at, s.refreshed_at, s.not_after, s.aal, s.factor_id,
		       s.user_agent, host(s.ip) AS ip,
		       (SELECT count(*) FROM auth.refresh_tokens t WHERE t.session_id = s.id AND NOT coalesce(t.revoked, false)) AS live_refresh_tokens
		FROM auth.sessions s WHERE s.user_id = $1) x`, uid).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// revokeSession deletes one of a user's sessions, or all of them when the
// session id is "all".
func (s *Service) revokeSession(w http.ResponseWriter, r *http.Request) error {
	uid, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		return badRequest("the user id must be a UUID")
	}
	sid := r.PathValue("sid")
	var n int64
	if sid == "all" {
		tag, err := s.d.Admin.Exec(r.Context(), `DELETE FROM auth.sessions WHERE user_id = $1`, uid)
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
	} else {
		id, err := uuid.Parse(sid)
		if err != nil {
			return badRequest("the session id must be a UUID or all")
		}
		tag, err := s.d.Admin.Exec(r.Context(), `DELETE FROM auth.sessions WHERE user_id = $1 AND id = $2`, uid, id)
		if err != nil {
			return err
		}
		if n = tag.RowsAffected(); n == 0 {
			return notFound("no such session of this user")
		}
	}
	noteAudit(r.Context(), "auth.users/"+uid.String()+"/sessions/"+sid, map[string]any{"revoked": n})
	return okJSON(w, map[string]any{"revoked": n})
}
