package storage

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// maxUserMetadata is the reference's cap on the client's metadata JSON.
const maxUserMetadata = 1 << 20

// uploadReq is an upload after its headers (and leading multipart fields)
// have been read; body streams the file's bytes.
type uploadReq struct {
	bucket       bucket
	name         string
	upsert       bool
	owner        string // JWT sub, or the signed token's owner
	mimetype     string
	cacheControl string
	userMeta     json.RawMessage
	length       int64 // declared length for the policy test, -1 unknown
	raw          bool  // the body is the request body (not a multipart part)
	body         io.Reader
	robots       string
}

// upload answers POST /object/{bucket}/{path}; x-upsert: true makes it an
// upsert.
func (s *Service) upload(w http.ResponseWriter, r *http.Request) error {
	return s.uploadAs(w, r, r.Header.Get("x-upsert") == "true")
}

// update answers PUT /object/{bucket}/{path}, always an upsert.
func (s *Service) update(w http.ResponseWriter, r *http.Request) error {
	return s.uploadAs(w, r, true)
}

func (s *Service) uploadAs(w http.ResponseWriter, r *http.Request, upsert bool) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	bucketID := param(r, "bucket")
	up, err := readUpload(r, param(r, "path"))
	if err != nil {
		// A missing bucket is reported before a malformed request.
		if _, berr := s.findBucket(r, bucketID); berr != nil {
			return berr
		}
		return err
	}
	up.upsert, up.owner = upsert, c.sub()
	// The bucket and the policy test come back from one round trip; the
	// test runs before any byte is stored, with the metadata the reference
	// exposes to policies at this point. Its verdict counts only after the
	// bucket's own rules, as in the reference.
	b, probeErr, err := s.bucketAndCanInsert(r, c, bucketID, up)
	if err != nil {
		return err
	}
	if err := s.applyBucket(up, b); err != nil {
		return err
	}
	if probeErr != nil {
		return probeErr
	}
	o, err := s.store(r, up)
	if err != nil {
		return err
	}
	return writeJSON(w, map[string]string{"Id": o.ID, "Key": b.ID + "/" + o.Name})
}

// parseUpload reads headers or the leading multipart fields, checks the
// limits the reference checks before storing, and leaves the file streaming.
func (s *Service) parseUpload(r *http.Request, b bucket, name string) (*uploadReq, error) {
	up, err := readUpload(r, name)
	if err != nil {
		return nil, err
	}
	if err := s.applyBucket(up, b); err != nil {
		return nil, err
	}
	return up, nil
}

// readUpload is the part of parseUpload that needs no bucket: the headers
// or the leading multipart fields.
func readUpload(r *http.Request, name string) (*uploadReq, error) {
	// length is what the policy test reports as contentLength: the
	// request's, since a multipart part's own length is unknown until read.
	up := &uploadReq{name: name, length: r.ContentLength}
	ct := r.Header.Get("Content-Type")
	if mt, _, _ := mime.ParseMediaType(ct); mt == "multipart/form-data" {
		if err := parseMultipart(r, up); err != nil {
			return nil, err
		}
	} else {
		up.mimetype = ct
		if up.mimetype == "" {
			up.mimetype = "application/octet-stream"
		}
		up.cacheControl = r.Header.Get("Cache-Control")
		if v := r.Header.Get("x-metadata"); v != "" {
			raw, err := base64.StdEncoding.DecodeString(v)
			if err != nil || !json.Valid(raw) {
				return nil, errInvalid("Invalid metadata")
			}
			up.userMeta = raw
		}
		up.raw = true
		up.body = r.Body
	}
	if up.cacheControl == "" {
		up.cacheControl = "no-cache"
	}
	up.robots = r.Header.Get("x-robots-tag")
	return up, nil
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
	if err := validateKey(up.name); err != nil {
		return err
	}
	// Every body is cut off once it passes the limit, whatever
	// Content-Length claimed (chunked bodies claim nothing).
	up.body = &limitReader{r: up.body, limit: limit}
	return nil
}

// parseMultipart reads the fields that precede the first file part and
// leaves up.body on that part, as the reference does (later fields are
// ignored).
func parseMultipart(r *http.Request, up *uploadReq) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return errInvalid("No content provided")
	}
	fields := map[string]string{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return errInvalid("No content provided")
		}
		if err != nil {
			return errInvalid("Malformed multipart body")
		}
		if p.FileName() == "" && p.Header.Get("Content-Type") == "" {
			v, err := io.ReadAll(io.LimitReader(p, maxUserMetadata+1))
			if err != nil {
				return errInvalid("Malformed multipart body")
			}
			fields[p.FormName()] = string(v)
			continue
		}
		up.body = p
		up.mimetype = p.Header.Get("Content-Type")
		break
	}
	if v := fields["contentType"]; v != "" {
		up.mimetype = v
	}
	if up.mimetype == "" {
		up.mimetype = "application/octet-stream"
	}
	if v := fields["cacheControl"]; v != "" {
		up.cacheControl = "max-age=" + v
	}
	meta := fields["metadata"]
	if meta == "" {
		meta = fields["userMetadata"]
	}
	if meta != "" {
		if !json.Valid([]byte(meta)) {
			return errInvalid("Invalid metadata")
		}
		up.userMeta = json.RawMessage(meta)
	}
	// The declared length for the policy test is the whole request, as the
	// part's own length is unknown until it is read.
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

// limitReader fails with errTooLarge as soon as more than limit bytes have
// been read, so an oversized upload stops without being buffered.
type limitReader struct {
	r        io.Reader
	n, limit int64
	exceeded bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.limit {
		l.exceeded = true
		return n, errTooLarge()
	}
	return n, err
}

// hashReader computes the MD5 (the ETag) and size while bytes stream.
type hashReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (h *hashReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.h.Write(p[:n])
	h.n += int64(n)
	return n, err
}

// insertSQL and upsertSQL are the statements the reference runs as the
// caller to test policies, and as the owner to write the final row.
const insertSQL = `INSERT INTO storage.objects (bucket_id, name, owner, owner_id, metadata, user_metadata, version)
	VALUES ($1, $2, $3, nullif($4, ''), $5, $6, $7)`

const upsertSQL = insertSQL + ` ON CONFLICT (name, bucket_id) DO UPDATE SET
	metadata = EXCLUDED.metadata, user_metadata = EXCLUDED.user_metadata, version = EXCLUDED.version,
	owner = EXCLUDED.owner, owner_id = EXCLUDED.owner_id`

// canInsert runs the upload's INSERT (or upsert) as the caller and rolls it
// back, in one round trip: it reports whether the policies allow it and
// whether the key is taken.
func (s *Service) canInsert(r *http.Request, c caller, up *uploadReq) error {
	sql, args := insertProbe(up)
	return insertVerdict(s.probeAsUser(r.Context(), r, c, "storage.object.upload", nil, sql, args...))
}

// bucketAndCanInsert is findBucket and canInsert in one round trip: the
// bucket comes from storage.read_target at the head of the probe pipeline.
// err is the bucket's failure; probeErr the policy test's verdict.
func (s *Service) bucketAndCanInsert(r *http.Request, c caller, bucketID string, up *uploadReq) (b bucket, probeErr, err error) {
	if _, err := pgCaller(r, c, ""); err != nil {
		// No pipeline for a role the API refuses: the bucket alone, so
		// that a missing bucket is still reported first.
		b, berr := s.findBucket(r, bucketID)
		return b, err, berr
	}
	var targetErr error
	head := func(batch *pgx.Batch) {
		// A NULL name matches no object: only the bucket is wanted.
		batch.Queue(`SELECT id, name, owner, public, type, file_size_limit, allowed_mime_types, created_at, updated_at
			FROM storage.read_target($1, NULL)`, bucketID).QueryRow(func(row pgx.Row) error {
			b, targetErr = scanBucket(row)
			return nil // the pipeline goes on; the verdict is read below
		})
	}
	up.bucket.ID = bucketID
	sql, args := insertProbe(up)
	probeErr = s.probeAsUser(r.Context(), r, c, "storage.object.upload", head, sql, args...)
	switch {
	case errors.Is(targetErr, pgx.ErrNoRows):
		return b, nil, errNoSuchBucket()
	case targetErr != nil:
		return b, nil, errInternal(fmt.Errorf("load bucket %s: %w", bucketID, targetErr))
	}
	return b, insertVerdict(probeErr), nil
}

// insertProbe is the policy test's statement for up.
func insertProbe(up *uploadReq) (string, []any) {
	meta, _ := json.Marshal(map[string]any{"mimetype": up.mimetype, "contentLength": up.length})
	sql := insertSQL
	if up.upsert {
		sql = upsertSQL
	}
	return sql, []any{up.bucket.ID, up.name, ownerUUID(up.owner), up.owner, meta, userMetaOrEmpty(up.userMeta),
		uuid.NewString()}
}

// insertVerdict maps the policy test's error to the API's.
func insertVerdict(err error) error {
	switch {
	case err == nil:
		return nil
	case pg.Is(err, "23505"):
		return errKeyExists()
	default:
		return rlsError(err, "upload policy test")
	}
}

func userMetaOrEmpty(m json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return json.RawMessage(`{}`)
	}
	return m
}

// store streams the bytes to a fresh version key, then writes the row as the
// owner. The order is what keeps bytes and rows consistent: until the row
// commits, the new bytes are unreferenced (invisible, swept later); after it
// commits, the previous version's bytes are the unreferenced ones.
func (s *Service) store(r *http.Request, up *uploadReq) (object, error) {
	version := uuid.NewString()
	key := objectKey(up.bucket.ID, up.name, version)
	hr := &hashReader{r: up.body, h: md5.New()}
	// A raw body with a Content-Length tells the backend the exact size
	// (S3 then uploads in one request); multipart parts stay unknown.
	size := int64(-1)
	if up.length >= 0 && up.body != nil {
		if lr, ok := up.body.(*limitReader); ok && lr.r == r.Body {
			size = up.length
		}
	}
	if err := s.backend.Put(r.Context(), key, hr, size, up.mimetype); err != nil {
		s.deleteBytes(r, key) // a backend that left anything behind
		var e *Error
		if errors.As(err, &e) {
			return object{}, e
		}
		if lr, ok := up.body.(*limitReader); ok && lr.exceeded {
			return object{}, errTooLarge()
		}
		return object{}, putError(fmt.Errorf("store %s: %w", key, err))
	}
	meta := sysMeta{
		ETag: `"` + hex.EncodeToString(hr.h.Sum(nil)) + `"`, Size: hr.n, Mimetype: up.mimetype,
		CacheControl: up.cacheControl, LastModified: isoTime(s.now()), ContentLength: hr.n,
		HTTPStatusCode: 200, XRobotsTag: up.robots,
	}
	o, old, err := s.writeRow(r, up, meta, version)
	if err != nil {
		s.deleteBytes(r, key)
		return object{}, err
	}
	if old != "" && old != version {
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
func (s *Service) writeRow(r *http.Request, up *uploadReq, meta sysMeta, version string) (object, string, error) {
	metaJSON, _ := json.Marshal(meta)
	sql := insertSQL
	if up.upsert {
		sql = upsertSQL
	}
	sql = `WITH old AS (SELECT version FROM storage.objects WHERE bucket_id = $1 AND name = $2) ` +
		sql + ` RETURNING ` + objectColumns + `, (SELECT version FROM old)`
	var o object
	var old *string
	err := s.admin.QueryRow(r.Context(), sql, up.bucket.ID, up.name, ownerUUID(up.owner), up.owner,
		metaJSON, userMetaOrEmpty(up.userMeta), version).Scan(&o.ID, &o.BucketID, &o.Name, &o.Owner, &o.OwnerID,
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
