package storage

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"
)

// maxBulk is the reference's cap on names per bulk request.
const maxBulk = 1000

// removeObjects answers DELETE /object/{bucket} {"prefixes":[...]}: exact
// names, deleted as the caller (DELETE ... RETURNING, so rows must be
// SELECT-visible too); names that are missing or not permitted are skipped.
func (s *Service) removeObjects(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	var in struct {
		Prefixes []string `json:"prefixes" validate:"required,min=1"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := checkBulkList(&in, in.Prefixes); err != nil {
		return err
	}
	b, err := s.findBucket(r, param(r, "bucket"))
	if err != nil {
		return err
	}
	deleted, err := s.deleteRows(r, c, b.ID, in.Prefixes)
	if err != nil {
		return err
	}
	return writeJSON(w, deleted)
}

// deleteRows deletes the named rows as the caller, then their bytes.
func (s *Service) deleteRows(r *http.Request, c caller, bucketID string, names []string) ([]object, error) {
	// DELETE ... RETURNING needs both the DELETE and the SELECT policy to
	// pass for a row, so hidden rows are skipped silently, as in the
	// reference; the answer lists only what was really deleted.
	deleted := []object{}
	err := s.asUser(r.Context(), r, c, "storage.object.delete", func(tx pgx.Tx) error {
		rows, err := tx.Query(r.Context(), `DELETE FROM storage.objects WHERE bucket_id = $1 AND name = ANY($2)
			RETURNING `+objectColumns, bucketID, names)
		if err != nil {
			return err
		}
		deleted, err = collectObjects(rows)
		return err
	})
	if err != nil {
		return nil, rlsError(err, "delete objects")
	}
	// Bytes go after the rows commit: a crash in between leaves only
	// unreferenced bytes, which the sweep removes.
	keys := make([]string, len(deleted))
	for i, o := range deleted {
		keys[i] = o.key()
	}
	s.deleteBytes(r, keys...)
	return deleted, nil
}

// deleteObject answers DELETE /object/{bucket}/{path}; a row the caller
// cannot delete is 403 like the reference's single delete.
func (s *Service) deleteObject(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	b, err := s.findBucket(r, param(r, "bucket"))
	if err != nil {
		return err
	}
	name := param(r, "path")
	if err := validateKey(name); err != nil {
		return err
	}
	deleted, err := s.deleteRows(r, c, b.ID, []string{name})
	if err != nil {
		return err
	}
	// Nothing deleted: tell "no such object" from "not yours" with an
	// owner lookup, as the reference's single delete answers differently.
	if len(deleted) == 0 {
		if _, err := s.adminObject(r, b.ID, name); err != nil {
			var e *Error
			if errors.As(err, &e) && e.Code == "NoSuchKey" {
				return e
			}
			return fmt.Errorf("check object: %w", err)
		}
		return errAccessDenied("Access denied")
	}
	return writeJSON(w, map[string]string{"message": "Successfully deleted"})
}

// checkBulkList validates the body of a bulk request and its name list
// (remove's "prefixes", batch signing's "paths"): the schema's rules
// (required, at least one item), then the reference's cap of maxBulk.
func checkBulkList(body any, names []string) error {
	if err := checkBody(body); err != nil {
		return err
	}
	if len(names) > maxBulk {
		return errInvalid("Bulk object requests are limited to 1000 objects per request.")
	}
	return nil
}
