package storage

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/basaltdev/basalt/internal/pg"
)

// Stage 4 of an upload, record: the row, written as the owner. Its commit
// is what makes the new bytes the object's; after it, the version it
// replaced is the unreferenced one, and its bytes go.

// recordUpload writes up's row for the bytes the bytes stage wrote (up.key,
// up.version, up.meta). On failure the new bytes go; on success, the bytes
// of the version the row replaced.
func (s *Service) recordUpload(r *http.Request, up *uploadReq) (object, error) {
	o, old, err := s.writeRow(r, up)
	if err != nil {
		s.deleteBytes(r, up.key)
		return object{}, err
	}
	if old != "" && old != up.version {
		s.deleteBytes(r, objectKey(up.bucket.ID, up.name, old))
	}
	return o, nil
}

// writeRow inserts or upserts the final row as the owner and returns it with
// the version it replaced ("" for a new object). One statement: the CTE reads
// the previous version from the statement's snapshot, the INSERT writes the
// new one. (FOR UPDATE would skip the row the INSERT itself updates.) Two
// racing upserts may both report the same previous version; the version
// the loser replaced is then unreferenced and left to the sweep.
func (s *Service) writeRow(r *http.Request, up *uploadReq) (object, string, error) {
	metaJSON, _ := json.Marshal(up.meta)
	sql := insertSQL
	if up.upsert {
		sql = upsertSQL
	}
	sql = `WITH old AS (SELECT version FROM storage.objects WHERE bucket_id = $1 AND name = $2) ` +
		sql + ` RETURNING ` + objectColumns + `, (SELECT version FROM old)`
	var o object
	var old *string
	err := s.admin.QueryRow(r.Context(), sql, up.bucket.ID, up.name, ownerUUID(up.owner), up.owner,
		metaJSON, userMetaOrEmpty(up.userMeta), up.version).Scan(&o.ID, &o.BucketID, &o.Name, &o.Owner, &o.OwnerID,
		&o.Version, &o.CreatedAt, &o.UpdatedAt, &o.LastAccessedAt, &o.Metadata, &o.UserMetadata, &old)
	if pg.Is(err, "23505") {
		return o, "", errKeyExists()
	}
	if pg.Is(err, "23503") {
		return o, "", errNoSuchBucket() // the bucket was deleted meanwhile
	}
	if err != nil {
		return o, "", errInternal(fmt.Errorf("write object row %s/%s: %w", up.bucket.ID, up.name, err))
	}
	return o, deref(old), nil
}

// contentLengthHeader formats n for Content-Length.
func contentLengthHeader(n int64) string { return strconv.FormatInt(n, 10) }
