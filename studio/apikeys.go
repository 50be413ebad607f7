package studio

import (
	"errors"
	"net/http"

	"github.com/basaltdev/basalt/internal/apikeys"
	"github.com/basaltdev/basalt/internal/httpx"
)

// The project's API keys (internal/apikeys), as the API screen manages
// them. A list never holds a key itself, only its shown prefix; a new key is
// in the answer that creates it, once. Secret keys stand for service_role,
// which never reaches the browser: Studio lists and revokes them, and
// `basalt keys api` creates and rotates them on the host.

// errSecretInBrowser refuses to show a secret key to the browser.
var errSecretInBrowser error = &httpError{http.StatusBadRequest, errorBody{Error: "secret keys stay on the server: create and rotate them on the host with `basalt keys api`"}}

// newAPIKey is a key shown the once it is made.
type newAPIKey struct {
	apikeys.Key
	APIKey string `json:"api_key"`
}

func (s *Service) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := apikeys.List(r.Context(), s.d.Admin)
	if err != nil {
		return err
	}
	if keys == nil {
		keys = []apikeys.Key{}
	}
	return okJSON(w, keys)
}

func (s *Service) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Type apikeys.Kind `json:"type"`
		Name string       `json:"name"`
	}
	if err := decodeBody(r, &b); err != nil {
		return err
	}
	switch b.Type {
	case apikeys.Publishable:
	case apikeys.Secret:
		return errSecretInBrowser
	default:
		return badRequest("type must be publishable")
	}
	key, k, err := apikeys.Create(r.Context(), s.d.Admin, b.Type, b.Name)
	if err := keyError(err); err != nil {
		return err
	}
	noteAudit(r.Context(), string(k.Kind)+" key "+k.Name, map[string]any{"id": k.ID, "prefix": k.Prefix})
	httpx.WriteJSON(w, http.StatusCreated, newAPIKey{k, key})
	return nil
}

// validAPIKey finds the valid key with the path's id.
func (s *Service) validAPIKey(r *http.Request) (apikeys.Key, error) {
	id := r.PathValue("id")
	keys, err := apikeys.List(r.Context(), s.d.Admin)
	if err != nil {
		return apikeys.Key{}, err
	}
	for _, k := range keys {
		if k.ID == id && k.RevokedAt == nil {
			noteAudit(r.Context(), string(k.Kind)+" key "+k.Name, map[string]any{"id": k.ID, "prefix": k.Prefix})
			return k, nil
		}
	}
	return apikeys.Key{}, notFound("no valid API key %s", id)
}

func (s *Service) rotateAPIKey(w http.ResponseWriter, r *http.Request) error {
	old, err := s.validAPIKey(r)
	if err != nil {
		return err
	}
	if old.Kind == apikeys.Secret {
		return errSecretInBrowser
	}
	key, k, err := apikeys.Rotate(r.Context(), s.d.Admin, old.Kind, old.ID)
	if err := keyError(err); err != nil {
		return err
	}
	noteAudit(r.Context(), "", map[string]any{"new_id": k.ID, "new_prefix": k.Prefix})
	return okJSON(w, newAPIKey{k, key})
}

func (s *Service) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	old, err := s.validAPIKey(r)
	if err != nil {
		return err
	}
	k, err := apikeys.Revoke(r.Context(), s.d.Admin, old.Kind, old.ID)
	if err := keyError(err); err != nil {
		return err
	}
	return okJSON(w, k)
}

// keyError answers the apikeys errors a caller can fix.
func keyError(err error) error {
	switch {
	case errors.Is(err, apikeys.ErrBadName):
		return badRequest("%s", apikeys.ErrBadName.Error())
	case errors.Is(err, apikeys.ErrExists):
		return &httpError{http.StatusConflict, errorBody{Error: err.Error()}}
	case errors.Is(err, apikeys.ErrNotFound):
		return notFound("%s", err.Error())
	}
	return err
}
