package auth

import (
	"fmt"
	"net/http"
)

// logout handles POST /logout?scope=global|local|others (contract E14).
func (s *Service) logout(w http.ResponseWriter, r *http.Request, a *authed) error {
	scope := r.URL.Query().Get("scope")
	if scope == "" {
		scope = "global"
	}
	if scope != "global" && scope != "local" && scope != "others" {
		return badRequest("validation_failed", "Unsupported logout scope %q", scope)
	}
	// A token without session_id (an old or hand-made one) can only mean
	// "everything".
	if a.session == nil {
		scope = "global"
	}
	ctx := r.Context()
	var err error
	// Deleting sessions cascades to their refresh tokens; access tokens of
	// the deleted sessions then fail with session_not_found.
	switch scope {
	case "global":
		_, err = s.db.Exec(ctx, `DELETE FROM auth.sessions WHERE user_id = $1`, a.user.ID)
	case "local":
		_, err = s.db.Exec(ctx, `DELETE FROM auth.sessions WHERE id = $1`, a.session.ID)
	case "others":
		_, err = s.db.Exec(ctx, `DELETE FROM auth.sessions WHERE user_id = $1 AND id <> $2`, a.user.ID, a.session.ID)
	}
	if err != nil {
		return fmt.Errorf("logout %s of %s: %w", scope, a.user.ID, err)
	}
	if err := s.audit(ctx, s.db, r, a.user, "logout", map[string]any{"scope": scope}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
