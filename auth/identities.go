package auth

import (
	"net/http"
	"slices"

	"github.com/jackc/pgx/v5"
)

// linkIdentity handles GET /user/identities/authorize (contract E25): the
// signed-in user starts a provider flow whose callback adds the identity
// to their account. auth-js asks for the URL as JSON (skip_http_redirect).
func (s *Service) linkIdentity(w http.ResponseWriter, r *http.Request, a *authed) error {
	if !s.cfg.ManualLinking {
		return notFound("manual_linking_disabled", "Manual linking is disabled")
	}
	to, err := s.startExternalFlow(r, a.user)
	if err != nil {
		return err
	}
	if r.URL.Query().Get("skip_http_redirect") == "true" {
		writeJSON(w, http.StatusOK, map[string]string{"url": to})
		return nil
	}
	http.Redirect(w, r, to, http.StatusFound)
	return nil
}

// unlinkIdentity handles DELETE /user/identities/{id} (contract E26). A
// user keeps at least one identity; losing the identity the address came
// from moves the address to another identity's, and losing the phone
// identity clears the phone.
func (s *Service) unlinkIdentity(w http.ResponseWriter, r *http.Request, a *authed) error {
	if !s.cfg.ManualLinking {
		return notFound("manual_linking_disabled", "Manual linking is disabled")
	}
	id := r.PathValue("id")
	if !isUUID(id) {
		return notFound("validation_failed", "identity_id must be an UUID")
	}
	if !s.firstAudienceIs(r, a) {
		return forbidden("unexpected_audience", "Token audience doesn't match request audience")
	}
	u := a.user
	if len(u.Identities) <= 1 {
		return unprocessable("single_identity_not_deletable", "User must have at least 1 identity after unlinking")
	}
	i := slices.IndexFunc(u.Identities, func(i identity) bool { return i.IdentityID == id })
	if i < 0 {
		return unprocessable("identity_not_found", "Identity doesn't exist")
	}
	gone := u.Identities[i]
	ctx := r.Context()
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := s.audit(ctx, tx, r, u, "identity_unlinked", map[string]any{"identity_id": gone.IdentityID,
			"provider": gone.Provider, "provider_id": gone.ID}); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM auth.identities WHERE id = $1 AND user_id = $2`, gone.IdentityID, u.ID); err != nil {
			return err
		}
		if gone.Provider == "phone" {
			if _, err := tx.Exec(ctx, `UPDATE auth.users SET phone = NULL, phone_confirmed_at = NULL, updated_at = $2
				WHERE id = $1`, u.ID, s.now()); err != nil {
				return err
			}
		} else {
			conflict := unprocessable("email_conflict_identity_not_deletable", "Unable to unlink identity due to email conflict")
			if err := s.emailFromIdentities(ctx, tx, u, conflict); err != nil {
				return err
			}
		}
		fresh, err := userByID(ctx, tx, u.ID)
		if err != nil {
			return err
		}
		// app_metadata.provider names a remaining provider, as the
		// reference recomputes it.
		if p, _ := fresh.AppMetadata["provider"].(string); !slices.Contains(fresh.providers(), p) {
			delete(fresh.AppMetadata, "provider")
		}
		return syncProviders(ctx, tx, fresh)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{})
	return nil
}

// firstAudienceIs checks the token's (first) aud against the request
// audience, as the reference's unlink does.
func (s *Service) firstAudienceIs(r *http.Request, a *authed) bool {
	want := r.Header.Get("X-JWT-AUD")
	if want == "" {
		want = s.cfg.JWTAud
	}
	switch aud := a.claims.Map["aud"].(type) {
	case string:
		return aud == want
	case []any:
		return len(aud) > 0 && aud[0] == want
	}
	return false
}
