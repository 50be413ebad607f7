package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/lazy"
	"github.com/basaltdev/basalt/internal/pg"
)

// bucket is a storage.buckets row as the API returns it. Owner is the
// owner_id (a JWT sub); buckets made without a caller identity (service
// role keys have no sub) show "", as the reference's snapshots do.
type bucket struct {
	ID               string    `json:"id"`
	Name             string    `json:"name"`
	Owner            string    `json:"owner"`
	Public           bool      `json:"public"`
	Type             string    `json:"type,omitempty"`
	FileSizeLimit    *int64    `json:"file_size_limit"`
	AllowedMimeTypes []string  `json:"allowed_mime_types"`
	CreatedAt        time.Time `json:"-"`
	UpdatedAt        time.Time `json:"-"`
}

// MarshalJSON renders timestamps with milliseconds, as the reference does.
func (b bucket) MarshalJSON() ([]byte, error) {
	type plain bucket
	return json.Marshal(struct {
		plain
		CreatedAt string `json:"created_at"`
		UpdatedAt string `json:"updated_at"`
	}{plain(b), isoTime(b.CreatedAt), isoTime(b.UpdatedAt)})
}

// bucketColumns is the select list scanBucket reads; the coalesces keep
// rows written by plain SQL (nulls where the API never leaves them)
// renderable.
const bucketColumns = `id, name, coalesce(owner_id, owner::text, ''), coalesce(public, false), type::text,
	file_size_limit, allowed_mime_types, coalesce(created_at, now()), coalesce(updated_at, now())`

func scanBucket(row pgx.Row) (bucket, error) {
	var b bucket
	err := row.Scan(&b.ID, &b.Name, &b.Owner, &b.Public, &b.Type, &b.FileSizeLimit, &b.AllowedMimeTypes,
		&b.CreatedAt, &b.UpdatedAt)
	return b, err
}

// bucketNameRE is the reference's rule for bucket names.
var bucketNameRE = lazy.NewRegexp(`^[A-Za-z0-9_!.*'() &$=@;:+,?-]{1,100}$`)

func validBucketName(n string) bool {
	return bucketNameRE.MatchString(n) && strings.TrimSpace(n) == n
}

// findBucket loads a bucket as the owner (no RLS), for the object routes.
func (s *Service) findBucket(r *http.Request, id string) (bucket, error) {
	b, err := scanBucket(s.admin.QueryRow(r.Context(), `SELECT `+bucketColumns+` FROM storage.buckets WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return b, errNoSuchBucket()
	}
	if err != nil {
		return b, errInternal(fmt.Errorf("load bucket %s: %w", id, err))
	}
	return b, nil
}

// listBuckets answers GET /bucket with the buckets RLS lets the caller see.
func (s *Service) listBuckets(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	// Query options as storage-js sends them; the sort column and order come
	// from allow-lists because they are spliced into the SQL text.
	q := r.URL.Query()
	col := "name"
	switch v := q.Get("sortColumn"); v {
	case "", "name":
	case "id", "created_at", "updated_at":
		col = v
	default:
		return errSchema("querystring/sortColumn must be equal to one of the allowed values")
	}
	order := "ASC"
	switch strings.ToLower(q.Get("sortOrder")) {
	case "", "asc":
	case "desc":
		order = "DESC"
	default:
		return errSchema("querystring/sortOrder must be equal to one of the allowed values")
	}
	limit, offset := int64(math.MaxInt32), int64(0)
	if v := q.Get("limit"); v != "" {
		if limit, err = strconv.ParseInt(v, 10, 64); err != nil || limit < 1 {
			return errSchema("querystring/limit must be >= 1")
		}
	}
	if v := q.Get("offset"); v != "" {
		if offset, err = strconv.ParseInt(v, 10, 64); err != nil || offset < 0 {
			return errSchema("querystring/offset must be >= 0")
		}
	}
	// col and order come from the allow-lists above.
	sql := `SELECT ` + bucketColumns + ` FROM storage.buckets
		WHERE ($1 = '' OR name ILIKE '%' || $1 || '%')
		ORDER BY ` + pgx.Identifier{col}.Sanitize() + ` ` + order + ` LIMIT $2 OFFSET $3`
	out := []bucket{}
	err = s.asUser(r.Context(), r, c, "storage.bucket.list", func(tx pgx.Tx) error {
		rows, err := tx.Query(r.Context(), sql, escapeLike(q.Get("search")), limit, offset)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (bucket, error) { return scanBucket(row) })
		return err
	})
	if err != nil {
		return rlsError(err, "list buckets")
	}
	return writeJSON(w, out)
}

// getBucket answers GET /bucket/{id}; invisible buckets are not found.
func (s *Service) getBucket(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	var b bucket
	err = s.asUser(r.Context(), r, c, "storage.bucket.get", func(tx pgx.Tx) error {
		b, err = scanBucket(tx.QueryRow(r.Context(), `SELECT `+bucketColumns+` FROM storage.buckets WHERE id = $1`, param(r, "id")))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return errNoSuchBucket()
	}
	if err != nil {
		return rlsError(err, "get bucket")
	}
	b.Type = "" // the reference leaves type out of the single-bucket answer
	return writeJSON(w, b)
}

// bucketInput is the body of create and update; raw fields keep "absent"
// apart from null. Its validate tags are create's schema (update requires
// nothing).
type bucketInput struct {
	ID               *string         `json:"id"`
	Name             *string         `json:"name" validate:"required"`
	Public           *bool           `json:"public"`
	FileSizeLimit    json.RawMessage `json:"file_size_limit"`
	AllowedMimeTypes json.RawMessage `json:"allowed_mime_types"`
	Type             *string         `json:"type"`
}

// limits parses file_size_limit and allowed_mime_types; set reports which
// were present (null clears).
func (in bucketInput) limits() (size *int64, sizeSet bool, mimes []string, mimesSet bool, err error) {
	if len(in.FileSizeLimit) > 0 {
		sizeSet = true
		if string(in.FileSizeLimit) != "null" {
			var n int64
			if err = json.Unmarshal(in.FileSizeLimit, &n); err != nil {
				var str string
				if json.Unmarshal(in.FileSizeLimit, &str) != nil {
					return nil, false, nil, false, errInvalid("Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B")
				}
				if n, err = parseSize(str); err != nil {
					return nil, false, nil, false, errInvalid("Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B")
				}
			}
			err = nil
			size = &n
		}
	}
	if len(in.AllowedMimeTypes) > 0 {
		mimesSet = true
		if string(in.AllowedMimeTypes) != "null" {
			var raw []string
			if json.Unmarshal(in.AllowedMimeTypes, &raw) != nil {
				return nil, false, nil, false, errSchema("body/allowed_mime_types must be array")
			}
			mimes = []string{}
			for _, m := range raw {
				if m == "" {
					continue
				}
				if !mimeRuleRE.MatchString(m) {
					return nil, false, nil, false, errInvalid("Invalid mime type format")
				}
				mimes = append(mimes, m)
			}
		}
	}
	return size, sizeSet, mimes, mimesSet, nil
}

// mimeRuleRE accepts type/subtype or type/* with optional parameters.
var mimeRuleRE = lazy.NewRegexp(`^[a-zA-Z0-9!#$&^_.+-]+/([a-zA-Z0-9!#$&^_.+-]+|\*)(\s*;.*)?$`)

var sizeRE = lazy.NewRegexp(`^(\d+(?:\.\d+)?)\s*(gb|mb|kb|b)$`)

// parseSize reads "20mb" style sizes in decimal units, or plain bytes,
// exactly (no float rounding), truncated to whole bytes. A size beyond
// int64 is refused rather than wrapped to a negative limit.
func parseSize(v string) (int64, error) {
	v = strings.ToLower(strings.TrimSpace(v))
	num, unit := v, "b"
	if m := sizeRE.FindStringSubmatch(v); m != nil {
		num, unit = m[1], m[2]
	} else if _, ok := httpx.ParseDigits(v); !ok {
		return 0, fmt.Errorf("invalid size %q", v)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("invalid size %q", v)
	}
	r.Mul(r, new(big.Rat).SetInt64(map[string]int64{"b": 1, "kb": 1e3, "mb": 1e6, "gb": 1e9}[unit]))
	n := new(big.Int).Quo(r.Num(), r.Denom())
	if !n.IsInt64() {
		return 0, fmt.Errorf("size %q is too large", v)
	}
	return n.Int64(), nil
}

// createBucket answers POST /bucket as an RLS-checked INSERT.
func (s *Service) createBucket(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	var in bucketInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := checkBody(&in); err != nil {
		return err
	}
	id := *in.Name
	if in.ID != nil && *in.ID != "" {
		id = *in.ID
	}
	if !validBucketName(id) {
		return errBucketName()
	}
	// Limits are validated before the INSERT so a bad value never reaches
	// the table (the reference checks the same way).
	size, _, mimes, _, err := in.limits()
	if err != nil {
		return err
	}
	typ := "STANDARD"
	if in.Type != nil && *in.Type != "" {
		typ = strings.ToUpper(*in.Type)
		if typ != "STANDARD" && typ != "ANALYTICS" {
			return errSchema("body/type must be equal to one of the allowed values")
		}
	}
	public := in.Public != nil && *in.Public
	// The INSERT runs as the caller: a bucket policy with WITH CHECK decides
	// who may create buckets (none by default, so only service_role can).
	err = s.asUser(r.Context(), r, c, "storage.bucket.create", func(tx pgx.Tx) error {
		_, err := tx.Exec(r.Context(), `INSERT INTO storage.buckets
			(id, name, owner, owner_id, public, file_size_limit, allowed_mime_types, type)
			VALUES ($1, $1, $2, nullif($3, ''), $4, $5, $6, $7::storage.buckettype)`,
			id, ownerUUID(c.sub()), c.sub(), public, size, mimes, typ)
		return err
	})
	if pg.Is(err, "23505") {
		return errBucketExists()
	}
	if err != nil {
		return rlsError(err, "create bucket")
	}
	return writeJSON(w, map[string]string{"name": id})
}

// updateBucket answers PUT /bucket/{id} as an RLS-checked UPDATE.
func (s *Service) updateBucket(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	var in bucketInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	size, sizeSet, mimes, mimesSet, err := in.limits()
	if err != nil {
		return err
	}
	if in.Public == nil && !sizeSet && !mimesSet {
		return errInvalid("No content provided")
	}
	// Absent fields keep their value; JSON null clears a limit. The CASE
	// flags carry "was it present" into the one statement.
	var n int64
	err = s.asUser(r.Context(), r, c, "storage.bucket.update", func(tx pgx.Tx) error {
		tag, err := tx.Exec(r.Context(), `UPDATE storage.buckets SET
			public = coalesce($2, public),
			file_size_limit = CASE WHEN $3 THEN $4 ELSE file_size_limit END,
			allowed_mime_types = CASE WHEN $5 THEN $6 ELSE allowed_mime_types END,
			updated_at = now()
			WHERE id = $1`, param(r, "id"), in.Public, sizeSet, size, mimesSet, mimes)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return rlsError(err, "update bucket")
	}
	// Zero rows means missing or hidden by RLS; both read as not found.
	if n == 0 {
		return errNoSuchBucket()
	}
	return writeJSON(w, map[string]string{"message": "Successfully updated"})
}

// deleteBucket answers DELETE /bucket/{id}. Emptiness is checked as the
// owner (objects the caller cannot see still count); the DELETE is the
// caller's, under RLS.
func (s *Service) deleteBucket(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	id := param(r, "id")
	if _, err := s.findBucket(r, id); err != nil {
		return err
	}
	var n int64
	err = s.asUser(r.Context(), r, c, "storage.bucket.delete", func(tx pgx.Tx) error {
		var nonEmpty bool
		// Runs as the caller but reads through a fresh owner query so hidden
		// objects count too.
		if err := s.admin.QueryRow(r.Context(),
			`SELECT EXISTS (SELECT 1 FROM storage.objects WHERE bucket_id = $1)`, id).Scan(&nonEmpty); err != nil {
			return fmt.Errorf("check bucket %s empty: %w", id, err)
		}
		if nonEmpty {
			return errNotEmpty()
		}
		tag, err := tx.Exec(r.Context(), `DELETE FROM storage.buckets WHERE id = $1`, id)
		n = tag.RowsAffected()
		return err
	})
	if pg.Is(err, "23503") {
		return errNotEmpty() // an object landed between the check and the delete
	}
	if err != nil {
		return rlsError(err, "delete bucket")
	}
	if n == 0 {
		return errNoSuchBucket()
	}
	return writeJSON(w, map[string]string{"message": "Successfully deleted"})
}

// emptyBucket answers POST /bucket/{id}/empty: service_role only. The
// reference queues the work; Basalt deletes the rows at once and removes the
// bytes afterwards, so the answer is the same and the bucket is empty sooner.
func (s *Service) emptyBucket(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	if !c.isService() {
		e := errAccessDenied("Access denied: Invalid role")
		e.HTTPStatus = http.StatusForbidden
		return e
	}
	id := param(r, "id")
	if _, err := s.findBucket(r, id); err != nil {
		return err
	}
	// Rows first, in one owner transaction that may pass the protect_delete
	// trigger; the bytes follow once the rows are gone (see deleteBytes).
	var keys []string
	err = pgx.BeginFunc(r.Context(), s.admin, func(tx pgx.Tx) error {
		if _, err := tx.Exec(r.Context(), `SELECT set_config('storage.allow_delete_query', 'true', true)`); err != nil {
			return err
		}
		rows, err := tx.Query(r.Context(), `DELETE FROM storage.objects WHERE bucket_id = $1 RETURNING name, version`, id)
		if err != nil {
			return err
		}
		keys, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
			var name string
			var version *string
			err := row.Scan(&name, &version)
			return objectKey(id, name, deref(version)), err
		})
		return err
	})
	if err != nil {
		return errInternal(fmt.Errorf("empty bucket %s: %w", id, err))
	}
	s.deleteBytes(r, keys...)
	return writeJSON(w, map[string]string{"message": "Empty bucket has been queued. Completion may take up to an hour."})
}

// ownerUUID returns sub when it is a UUID (the deprecated owner column is
// uuid-typed), else nil.
func ownerUUID(sub string) any {
	if uuidRE.MatchString(sub) {
		return sub
	}
	return nil
}

var uuidRE = lazy.NewRegexp(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// escapeLike escapes LIKE wildcards so user text matches literally.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// applyBucket checks an upload against bucket b's rules and the service's
// limits, in the reference's order, and caps the body at the limit.
func (s *Service) applyBucket(up *uploadReq, b bucket) error {
	up.bucket = b
	limit := s.limit(b)
	if up.raw && up.length > limit {
		return errTooLarge()
	}
	if len(up.userMeta) > maxUserMetadata {
		return &Error{Status: 413, Code: "EntityTooLarge", Label: "Payload too large",
			Message: "The user_metadata exceeded the maximum allowed size"}
	}
	if !strings.HasSuffix(up.name, ".emptyFolderPlaceholder") && !mimeAllowed(b.AllowedMimeTypes, up.mimetype) {
		return errMime(up.mimetype)
	}
	if err := validateNewKey(up.name); err != nil {
		return err
	}
	// Every body is cut off once it passes the limit, whatever
	// Content-Length claimed (chunked bodies claim nothing).
	up.body = &limitReader{r: up.body, limit: limit}
	return nil
}

// limit is the effective per-object size limit for bucket b.
func (s *Service) limit(b bucket) int64 {
	if b.FileSizeLimit != nil && *b.FileSizeLimit < s.cfg.FileSizeLimit {
		return *b.FileSizeLimit
	}
	return s.cfg.FileSizeLimit
}

// mimeAllowed applies a bucket's allowed_mime_types: type/* matches the
// type, anything else must match type/subtype exactly; parameters are
// ignored on both sides.
func mimeAllowed(allowed []string, mt string) bool {
	if len(allowed) == 0 {
		return true
	}
	base := strings.ToLower(strings.TrimSpace(strings.SplitN(mt, ";", 2)[0]))
	typ := strings.SplitN(base, "/", 2)[0]
	for _, a := range allowed {
		a = strings.ToLower(strings.TrimSpace(strings.SplitN(a, ";", 2)[0]))
		if a == base || (strings.HasSuffix(a, "/*") && strings.TrimSuffix(a, "/*") == typ) {
			return true
		}
	}
	return false
}
