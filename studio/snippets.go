package studio

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Saved snippets belong to the operator who saved them.

// snippetOwner returns the operator a snippet call is for.
func snippetOwner(r *http.Request) (string, error) {
	a := actorOf(r.Context())
	if a.Operator.ID == "" {
		return "", badRequest("snippets belong to an operator: sign in to Studio")
	}
	return a.Operator.ID, nil
}

const snippetCols = `id, name, sql, created_at, updated_at`

func (s *Service) listSnippets(w http.ResponseWriter, r *http.Request) error {
	op, err := snippetOwner(r)
	if err != nil {
		return err
	}
	var out json.RawMessage
	err = s.d.Admin.QueryRow(r.Context(), `SELECT coalesce(json_agg(x ORDER BY x.updated_at DESC), '[]') FROM (
		SELECT `+snippetCols+` FROM basalt.studio_snippets WHERE operator_id = $1) x`, op).Scan(&out)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

// snippetBody is a snippet as the editor saves it.
type snippetBody struct {
	Name *string `json:"name"`
	SQL  *string `json:"sql"`
}

func (b snippetBody) check(s *Service, creating bool) error {
	if creating && (b.Name == nil || b.SQL == nil) {
		return badRequest("name and sql are required")
	}
	if b.Name != nil && (strings.TrimSpace(*b.Name) == "" || len(*b.Name) > 200) {
		return badRequest("a snippet's name has 1 to 200 characters")
	}
	if b.SQL != nil && int64(len(*b.SQL)) > s.cfg.MaxQueryBytes {
		return s.checkQuery(*b.SQL)
	}
	return nil
}

func (s *Service) createSnippet(w http.ResponseWriter, r *http.Request) error {
	op, err := snippetOwner(r)
	if err != nil {
		return err
	}
	var b snippetBody
	if err := s.decodeSQLBody(r, &b); err != nil {
		return err
	}
	if err := b.check(s, true); err != nil {
		return err
	}
	var out json.RawMessage
	err = s.d.Admin.QueryRow(r.Context(), `INSERT INTO basalt.studio_snippets (operator_id, name, sql) VALUES ($1, $2, $3)
		RETURNING json_build_object('id', id, 'name', name, 'sql', sql, 'created_at', created_at, 'updated_at', updated_at)`,
		op, strings.TrimSpace(*b.Name), *b.SQL).Scan(&out)
	if err != nil {
		return err
	}
	noteAudit(r.Context(), "snippet "+strings.TrimSpace(*b.Name), nil)
	writeRaw(w, http.StatusCreated, out)
	return nil
}

func (s *Service) updateSnippet(w http.ResponseWriter, r *http.Request) error {
	op, err := snippetOwner(r)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	if !uuidText.MatchString(id) {
		return notFound("no snippet %s", id)
	}
	var b snippetBody
	if err := s.decodeSQLBody(r, &b); err != nil {
		return err
	}
	if err := b.check(s, false); err != nil {
		return err
	}
	var out json.RawMessage
	err = s.d.Admin.QueryRow(r.Context(), `UPDATE basalt.studio_snippets SET name = coalesce($3, name), sql = coalesce($4, sql), updated_at = now()
		WHERE id = $1 AND operator_id = $2
		RETURNING json_build_object('id', id, 'name', name, 'sql', sql, 'created_at', created_at, 'updated_at', updated_at)`,
		id, op, b.Name, b.SQL).Scan(&out)
	if isNoRows(err) {
		return notFound("no snippet %s", id)
	}
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

func (s *Service) deleteSnippet(w http.ResponseWriter, r *http.Request) error {
	op, err := snippetOwner(r)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	if !uuidText.MatchString(id) {
		return notFound("no snippet %s", id)
	}
	tag, err := s.d.Admin.Exec(r.Context(), `DELETE FROM basalt.studio_snippets WHERE id = $1 AND operator_id = $2`, id, op)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return notFound("no snippet %s", id)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
