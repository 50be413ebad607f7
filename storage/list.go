package storage

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// listEntry is one row of a v1 listing: a file (id set) or a folder.
type listEntry struct {
	Name           string          `json:"name"`
	ID             *string         `json:"id"`
	UpdatedAt      any             `json:"updated_at"`
	CreatedAt      any             `json:"created_at"`
	LastAccessedAt any             `json:"last_accessed_at"`
	Metadata       json.RawMessage `json:"metadata"`
}

// listSQL lists one level below a prefix, as the caller (RLS SELECT). $1
// bucket, $2 the prefix (folder, with its trailing '/'), $3 the LIKE pattern
// (prefix + search, case-insensitive), $4 limit, $5 offset. Each name is cut
// at the first '/' after the prefix: a cut name is a folder.
const listSQL = `WITH level AS (
	SELECT substr(name, length($2) + 1) AS rest, id, updated_at, created_at, last_accessed_at, metadata
	FROM storage.objects
	WHERE bucket_id = $1 AND name ILIKE $3 ESCAPE '\'
), items AS (
	SELECT DISTINCT ON (split_part(rest, '/', 1)) split_part(rest, '/', 1) AS name, true AS folder,
		NULL::uuid AS id, NULL::timestamptz AS updated_at, NULL::timestamptz AS created_at,
		NULL::timestamptz AS last_accessed_at, NULL::jsonb AS metadata
	FROM level WHERE position('/' in rest) > 0
	UNION ALL
	SELECT rest, false, id, updated_at, created_at, last_accessed_at, metadata
	FROM level WHERE position('/' in rest) = 0
)
SELECT name, id::text, updated_at, created_at, last_accessed_at, metadata FROM items
ORDER BY %s LIMIT $4 OFFSET $5`

// listObjects answers POST /object/list/{bucket}.
func (s *Service) listObjects(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	var in struct {
		Prefix *string `json:"prefix" validate:"required"`
		Limit  *int64  `json:"limit"`
		Offset *int64  `json:"offset"`
		Search string  `json:"search"`
		SortBy *struct {
			Column string `json:"column" validate:"omitempty,oneof=name updated_at created_at last_accessed_at"`
			Order  string `json:"order"`
		} `json:"sortBy"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := checkBody(&in); err != nil {
		return err
	}
	b, err := s.findBucket(r, param(r, "bucket"))
	if err != nil {
		return err
	}
	// The reference treats the prefix as a folder: "a" lists a/'s contents,
	// never names that merely start with "a".
	prefix := *in.Prefix
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	// 100 is storage-js's default; the reference caps a page at 1500.
	limit, offset := int64(100), int64(0)
	if in.Limit != nil {
		limit = min(max(*in.Limit, 0), 1500)
	}
	if in.Offset != nil {
		offset = max(*in.Offset, 0)
	}
	col, order := "name", "ASC"
	if in.SortBy != nil {
		if in.SortBy.Column != "" {
			col = in.SortBy.Column
		}
		if strings.EqualFold(in.SortBy.Order, "desc") {
			order = "DESC"
		}
	}
	// Names sort byte-wise with folders and files interleaved; other
	// columns put folders (no timestamps) first, then break ties by name.
	orderBy := `name COLLATE "C" ` + order
	if col != "name" {
		orderBy = `folder DESC, ` + pgx.Identifier{col}.Sanitize() + ` ` + order + `, name COLLATE "C" ASC`
	}
	// orderBy is built from allow-listed parts only, so splicing it is safe.
	sql := strings.Replace(listSQL, "%s", orderBy, 1)
	out := []listEntry{}
	err = s.asUser(r.Context(), r, c, "storage.object.list", func(tx pgx.Tx) error {
		rows, err := tx.Query(r.Context(), sql, b.ID, prefix, escapeLike(prefix+in.Search)+"%", limit, offset)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (listEntry, error) {
			var e listEntry
			var up, cr, la *time.Time
			err := row.Scan(&e.Name, &e.ID, &up, &cr, &la, &e.Metadata)
			e.UpdatedAt, e.CreatedAt, e.LastAccessedAt = isoPtr(up), isoPtr(cr), isoPtr(la)
			return e, err
		})
		return err
	})
	if err != nil {
		return rlsError(err, "list objects")
	}
	return writeJSON(w, out)
}

// v2Object and v2Folder are entries of a list-v2 answer.
type v2Object struct {
	ID             string          `json:"id"`
	Key            string          `json:"key"`
	Name           string          `json:"name"`
	Metadata       json.RawMessage `json:"metadata"`
	UpdatedAt      any             `json:"updated_at"`
	CreatedAt      any             `json:"created_at"`
	LastAccessedAt any             `json:"last_accessed_at"`
}

type v2Folder struct {
	Key  string `json:"key"`
	Name string `json:"name"`
}

// listV2SQL lists everything under a prefix ($2, LIKE pattern $3); with the
// delimiter ($6) names are cut at the next '/' into folders. The cursor is a
// plain offset, which the contract allows (cursors are opaque).
const listV2SQL = `WITH level AS (
	SELECT name, substr(name, length($2) + 1) AS rest, id, updated_at, created_at, last_accessed_at, metadata
	FROM storage.objects WHERE bucket_id = $1 AND name LIKE $3 ESCAPE '\'
), items AS (
	SELECT DISTINCT ON (split_part(rest, '/', 1)) $2 || split_part(rest, '/', 1) AS name, true AS folder,
		NULL::uuid AS id, NULL::timestamptz AS updated_at, NULL::timestamptz AS created_at,
		NULL::timestamptz AS last_accessed_at, NULL::jsonb AS metadata
	FROM level WHERE $6 AND position('/' in rest) > 0
	UNION ALL
	SELECT name, false, id, updated_at, created_at, last_accessed_at, metadata
	FROM level WHERE NOT $6 OR position('/' in rest) = 0
)
SELECT name, folder, id::text, updated_at, created_at, last_accessed_at, metadata FROM items
ORDER BY %s LIMIT $4 OFFSET $5`

// listObjectsV2 answers POST /object/list-v2/{bucket}.
func (s *Service) listObjectsV2(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	var in struct {
		Prefix        string `json:"prefix"`
		Limit         *int64 `json:"limit"`
		Cursor        string `json:"cursor"`
		WithDelimiter bool   `json:"with_delimiter"`
		SortBy        *struct {
			Column string `json:"column" validate:"omitempty,oneof=name updated_at created_at"`
			Order  string `json:"order"`
		} `json:"sortBy"`
	}
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := checkBody(&in); err != nil {
		return err
	}
	b, err := s.findBucket(r, param(r, "bucket"))
	if err != nil {
		return err
	}
	limit := int64(1000)
	if in.Limit != nil {
		limit = min(max(*in.Limit, 1), 1000)
	}
	offset := int64(0)
	if in.Cursor != "" {
		raw, err := base64.RawURLEncoding.DecodeString(in.Cursor)
		if err != nil {
			return errInvalid("Invalid cursor")
		}
		if offset, err = strconv.ParseInt(strings.TrimPrefix(string(raw), "o:"), 10, 64); err != nil || offset < 0 {
			return errInvalid("Invalid cursor")
		}
	}
	col, order := "name", "ASC"
	if in.SortBy != nil {
		if in.SortBy.Column != "" {
			col = in.SortBy.Column
		}
		if strings.EqualFold(in.SortBy.Order, "desc") {
			order = "DESC"
		}
	}
	orderBy := `name COLLATE "C" ` + order
	if col != "name" {
		orderBy = `folder DESC, ` + pgx.Identifier{col}.Sanitize() + ` ` + order + `, name COLLATE "C" ASC`
	}
	sql := strings.Replace(listV2SQL, "%s", orderBy, 1)
	type row struct {
		name   string
		folder bool
		obj    v2Object
	}
	var rows []row
	err = s.asUser(r.Context(), r, c, "storage.object.list", func(tx pgx.Tx) error {
		rs, err := tx.Query(r.Context(), sql, b.ID, in.Prefix, escapeLike(in.Prefix)+"%", limit+1, offset, in.WithDelimiter)
		if err != nil {
			return err
		}
		rows, err = pgx.CollectRows(rs, func(cr pgx.CollectableRow) (row, error) {
			var x row
			var id *string
			var up, cr2, la *time.Time
			err := cr.Scan(&x.name, &x.folder, &id, &up, &cr2, &la, &x.obj.Metadata)
			x.obj.ID, x.obj.Name, x.obj.Key = deref(id), x.name, x.name
			x.obj.UpdatedAt, x.obj.CreatedAt, x.obj.LastAccessedAt = isoPtr(up), isoPtr(cr2), isoPtr(la)
			return x, err
		})
		return err
	})
	if err != nil {
		return rlsError(err, "list objects")
	}
	// One row beyond the page was fetched: its presence is hasNext.
	out := map[string]any{"hasNext": false, "folders": []v2Folder{}, "objects": []v2Object{}}
	if int64(len(rows)) > limit {
		rows = rows[:limit]
		out["hasNext"] = true
		out["nextCursor"] = base64.RawURLEncoding.EncodeToString([]byte("o:" + strconv.FormatInt(offset+limit, 10)))
		out["nextCursorKey"] = rows[len(rows)-1].name
	}
	folders, objects := []v2Folder{}, []v2Object{}
	for _, x := range rows {
		if x.folder {
			folders = append(folders, v2Folder{Key: x.name, Name: x.name + "/"})
		} else {
			objects = append(objects, x.obj)
		}
	}
	out["folders"], out["objects"] = folders, objects
	return writeJSON(w, out)
}
