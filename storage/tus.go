package storage

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
)

// TUS 1.0.0 resumable uploads, as the reference serves them to
// tus-js-client: the core protocol and the extensions its stores offer,
// creation (with an upload in the same request, or with the length
// deferred), termination and expiration. Each chunk is stored as its own
// backend key under tusPrefix; the chunk that completes the upload
// assembles the parts into the object's version key, writes the row and
// drops the parts. Progress lives in storage.tus_uploads, so any Basalt
// node can take the next chunk.

const (
	tusVersion = "1.0.0"
	tusPrefix  = "#tus/" // '#' is not allowed in bucket names, so no clash
	// tusExtensions is the reference stores' list, in their order.
	tusExtensions = "creation,creation-with-upload,creation-defer-length,termination,expiration"
	// tusChunkType is the Content-Type of a request that carries bytes of
	// the upload (a PATCH, or a creation with an upload).
	tusChunkType = "application/offset+octet-stream"
)

// tusHeaders are sent on every TUS answer.
func tusHeaders(w http.ResponseWriter) {
	w.Header().Set("Tus-Resumable", tusVersion)
}

// tusOptions answers OPTIONS, where a client learns what the server does.
func (s *Service) tusOptions(w http.ResponseWriter) {
	tusHeaders(w)
	h := w.Header()
	h.Set("Tus-Version", tusVersion)
	h.Set("Tus-Extension", tusExtensions)
	h.Set("Tus-Max-Size", strconv.FormatInt(s.cfg.FileSizeLimit, 10))
}

// tusError gives an API error its logical status as the HTTP status, as
// TUS clients key off the status line.
func tusError(err error) error {
	if err == nil {
		return nil
	}
	e := asError(err)
	if e.HTTPStatus == 0 {
		c := *e
		c.HTTPStatus = e.Status
		return &c
	}
	return e
}

// tusUpload is a storage.tus_uploads row.
type tusUpload struct {
	ID, BucketID, Name, Version string
	// Length is the declared length; deferred until a PATCH declares it
	// (creation-defer-length).
	Length                 int64
	Deferred               bool
	Offset                 int64
	Parts                  []int64
	OwnerID                *string
	Upsert                 bool
	Mimetype, CacheControl string
	UserMetadata           json.RawMessage
	CreatedAt              time.Time
}

const tusColumns = `id, bucket_id, name, version, upload_length, upload_offset, parts, owner_id, upsert,
	mimetype, cache_control, user_metadata, created_at`

func scanTus(row pgx.Row) (tusUpload, error) {
	var u tusUpload
	var length *int64
	err := row.Scan(&u.ID, &u.BucketID, &u.Name, &u.Version, &length, &u.Offset, &u.Parts, &u.OwnerID, &u.Upsert,
		&u.Mimetype, &u.CacheControl, &u.UserMetadata, &u.CreatedAt)
	if length != nil {
		u.Length = *length
	} else {
		u.Deferred = true
	}
	return u, err
}

// complete reports whether every byte of the upload is stored.
func (u tusUpload) complete() bool { return !u.Deferred && u.Offset == u.Length }

// expires is when the upload stops being resumable: its creation plus the
// configured expiry, as the reference's S3 store counts it.
func (s *Service) tusExpires(u tusUpload) time.Time { return u.CreatedAt.Add(s.cfg.TusExpiry) }

// tusProgress sets what an answer that moved an upload says of it: its
// offset, Tus-Complete once done, else Upload-Expires (RFC 7231 date).
func (s *Service) tusProgress(w http.ResponseWriter, u tusUpload) {
	h := w.Header()
	h.Set("Upload-Offset", strconv.FormatInt(u.Offset, 10))
	if u.complete() {
		h.Set("Tus-Complete", "1")
	} else {
		h.Set("Upload-Expires", s.tusExpires(u).UTC().Format(http.TimeFormat))
	}
}

// partKey names the chunk stored at offset. It is keyed by the upload's
// version (a UUID), not by its id, which grows with the object's name.
func (u tusUpload) partKey(offset int64) string {
	return tusPrefix + u.Version + "/" + strconv.FormatInt(offset, 10)
}

// parseTusMetadata reads Upload-Metadata: "key base64value,key2 base64value".
func parseTusMetadata(h string) map[string]string {
	m := map[string]string{}
	for _, pair := range strings.Split(h, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(pair), " ")
		if k == "" {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
		if err != nil {
			continue
		}
		m[k] = string(b)
	}
	return m
}

// tusCreate answers POST /upload/resumable: the upload's checks run now
// (bucket, key, size, type, RLS), before any byte is stored.
func (s *Service) tusCreate(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return tusError(err)
	}
	return tusError(s.tusCreateAs(w, r, &c, nil))
}

// tusCreateSigned answers POST /upload/resumable/sign with an upload token
// in x-signature instead of a JWT.
func (s *Service) tusCreateSigned(w http.ResponseWriter, r *http.Request) error {
	md := parseTusMetadata(r.Header.Get("Upload-Metadata"))
	claims, _, err := s.verifyToken(r.Header.Get("x-signature"), md["bucketName"], md["objectName"], "upload")
	if err != nil {
		return tusError(err)
	}
	return tusError(s.tusCreateAs(w, r, nil, claims))
}

// tusCreationLength reads a creation's length: Upload-Length, or
// Upload-Defer-Length: 1 when the client does not know it yet; exactly one
// of them.
func tusCreationLength(h http.Header) (length int64, deferred bool, err error) {
	_, hasLength := h["Upload-Length"]
	deferValue, hasDefer := h["Upload-Defer-Length"]
	if hasDefer && (len(deferValue) != 1 || deferValue[0] != "1") {
		return 0, false, errTus(400, "Invalid upload-defer-length\n")
	}
	if hasLength == hasDefer {
		return 0, false, errTusLength()
	}
	if hasDefer {
		return 0, true, nil
	}
	length, ok := httpx.ParseDigits(h.Get("Upload-Length"))
	if !ok {
		return 0, false, errInvalid("Upload-Length header is required")
	}
	return length, false, nil
}

func (s *Service) tusCreateAs(w http.ResponseWriter, r *http.Request, c *caller, token map[string]any) error {
	tusHeaders(w)
	md := parseTusMetadata(r.Header.Get("Upload-Metadata"))
	if r.Header.Get("Upload-Metadata") == "" {
		return errInvalid("Metadata header is required")
	}
	length, deferred, err := tusCreationLength(r.Header)
	if err != nil {
		return err
	}
	b, err := s.findBucket(r, md["bucketName"])
	if err != nil {
		return err
	}
	name := md["objectName"]
	if err := validateNewKey(name); err != nil {
		return err
	}
	limit := s.limit(b)
	if !deferred && length > limit {
		return errTooLarge()
	}
	up := &uploadReq{bucket: b, name: name, length: length, mimetype: md["contentType"], cacheControl: "no-cache"}
	if deferred {
		up.length = -1
	}
	if up.mimetype == "" {
		up.mimetype = "application/octet-stream"
	}
	if v := md["cacheControl"]; v != "" {
		up.cacheControl = "max-age=" + v
	}
	if v := md["metadata"]; v != "" {
		if !json.Valid([]byte(v)) {
			return errInvalid("Invalid metadata")
		}
		up.userMeta = json.RawMessage(v)
	}
	if !mimeAllowed(b.AllowedMimeTypes, up.mimetype) {
		return errMime(up.mimetype)
	}
	if token != nil {
		up.upsert, _ = token["upsert"].(bool)
		up.owner, _ = token["owner"].(string)
	} else {
		up.upsert, up.owner = r.Header.Get("x-upsert") == "true", c.sub()
		if err := s.canInsert(r, *c, up); err != nil {
			return err
		}
	}
	if !up.upsert {
		if _, err := s.adminObject(r, b.ID, name); err == nil {
			return errKeyExists()
		}
	}
	// creation-with-upload: the request may carry the first bytes. They
	// must fit before the upload is created, so a refused body leaves
	// nothing behind.
	withBody := r.Header.Get("Content-Type") == tusChunkType
	u := tusUpload{BucketID: b.ID, Name: name, Version: uuid.NewString(), Length: length, Deferred: deferred,
		Upsert: up.upsert, Mimetype: up.mimetype, CacheControl: up.cacheControl, UserMetadata: up.userMeta,
		CreatedAt: s.now()}
	if withBody {
		if err := u.bodyFits(r, limit); err != nil {
			return err
		}
	}
	if up.owner != "" {
		u.OwnerID = &up.owner
	}
	u.ID = base64.RawURLEncoding.EncodeToString([]byte(b.ID + "/" + name + "/" + u.Version))
	var declared *int64
	if !deferred {
		declared = &length
	}
	_, err = s.admin.Exec(r.Context(), `INSERT INTO storage.tus_uploads
		(id, bucket_id, name, version, upload_length, owner_id, upsert, mimetype, cache_control, user_metadata, created_at)
		VALUES ($1, $2, $3, $4, $5, nullif($6, ''), $7, $8, $9, $10, $11)`,
		u.ID, b.ID, name, u.Version, declared, up.owner, up.upsert, up.mimetype, up.cacheControl, up.userMeta, u.CreatedAt)
	if err != nil {
		return errInternal(fmt.Errorf("create upload %s/%s: %w", b.ID, name, err))
	}
	switch {
	case withBody:
		if err := s.tusReceive(r, &u, limit, nil); err != nil {
			return err
		}
		s.tusProgress(w, u)
	case u.complete():
		// An empty upload is complete as soon as it exists.
		if err := s.tusFinish(r, u); err != nil {
			return err
		}
		w.Header().Set("Tus-Complete", "1")
	default:
		w.Header().Set("Upload-Expires", s.tusExpires(u).UTC().Format(http.TimeFormat))
	}
	base := "/storage/v1/upload/resumable/"
	if token != nil {
		base += "sign/"
	}
	w.Header().Set("Location", base+u.ID)
	w.WriteHeader(http.StatusCreated)
	return nil
}

// bodyFits checks a request's declared length against what the upload
// may still take: its remaining bytes, or while its length is deferred,
// what the bucket's limit leaves.
func (u tusUpload) bodyFits(r *http.Request, limit int64) error {
	if r.ContentLength > u.room(limit) {
		return errTooLarge()
	}
	return nil
}

// room is how many more bytes the upload may take.
func (u tusUpload) room(limit int64) int64 {
	if u.Deferred {
		return limit - u.Offset
	}
	return u.Length - u.Offset
}

// tusLoad finds an upload and checks the caller may touch it: the creator
// (same sub, or the same upload token) or service_role.
func (s *Service) tusLoad(r *http.Request) (tusUpload, error) {
	u, err := scanTus(s.admin.QueryRow(r.Context(), `SELECT `+tusColumns+` FROM storage.tus_uploads WHERE id = $1`, param(r, "id")))
	if errors.Is(err, pgx.ErrNoRows) {
		return u, &Error{Status: 404, Code: "NoSuchUpload", Label: "Not Found", Message: "Upload not found"}
	}
	if err != nil {
		return u, errInternal(fmt.Errorf("load upload: %w", err))
	}
	if strings.HasPrefix(r.URL.Path, "/upload/resumable/sign/") {
		if _, _, err := s.verifyToken(r.Header.Get("x-signature"), u.BucketID, u.Name, "upload"); err != nil {
			return u, err
		}
		return u, nil
	}
	c, err := s.requireJWT(r)
	if err != nil {
		return u, err
	}
	if !c.isService() && deref(u.OwnerID) != c.sub() {
		return u, &Error{Status: 404, Code: "NoSuchUpload", Label: "Not Found", Message: "Upload not found"}
	}
	return u, nil
}

// tusHead answers HEAD: where to resume.
func (s *Service) tusHead(w http.ResponseWriter, r *http.Request) error {
	tusHeaders(w)
	u, err := s.tusLoad(r)
	if err != nil {
		return tusError(err)
	}
	if s.now().After(s.tusExpires(u)) {
		return errTusGone()
	}
	h := w.Header()
	h.Set("Upload-Offset", strconv.FormatInt(u.Offset, 10))
	if u.Deferred {
		h.Set("Upload-Defer-Length", "1")
	} else {
		h.Set("Upload-Length", strconv.FormatInt(u.Length, 10))
	}
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	return nil
}

// tusPatch answers PATCH with a JWT; tusPatchSigned with x-signature.
func (s *Service) tusPatch(w http.ResponseWriter, r *http.Request) error {
	return tusError(s.tusAppend(w, r))
}

func (s *Service) tusPatchSigned(w http.ResponseWriter, r *http.Request) error {
	return tusError(s.tusAppend(w, r))
}

// tusAppend stores one chunk. An expired upload is gone (410); a deferred
// one may declare its length here (Upload-Length), once, not below the
// bytes already stored.
func (s *Service) tusAppend(w http.ResponseWriter, r *http.Request) error {
	tusHeaders(w)
	if ct := r.Header.Get("Content-Type"); ct != tusChunkType {
		return &Error{Status: 415, Code: "InvalidContentType", Label: "Unsupported Media Type",
			Message: "Content-Type must be application/offset+octet-stream"}
	}
	u, err := s.tusLoad(r)
	if err != nil {
		return err
	}
	if s.now().After(s.tusExpires(u)) {
		return errTusGone()
	}
	off, ok := httpx.ParseDigits(r.Header.Get("Upload-Offset"))
	if !ok || off != u.Offset {
		return errTusOffset()
	}
	limit := s.cfg.FileSizeLimit
	if u.Deferred || r.Header.Get("Upload-Length") != "" {
		b, err := s.findBucket(r, u.BucketID)
		if err != nil {
			return err
		}
		limit = s.limit(b)
	}
	var declared *int64
	if v := r.Header.Get("Upload-Length"); v != "" {
		size, ok := httpx.ParseDigits(v)
		switch {
		case !ok:
			return errTus(400, "Invalid upload-length\n")
		case !u.Deferred || size < u.Offset:
			return errTusLength()
		case size > limit:
			return errTooLarge()
		}
		u.Length, u.Deferred, declared = size, false, &size
	}
	if err := u.bodyFits(r, limit); err != nil {
		return err
	}
	if err := s.tusReceive(r, &u, limit, declared); err != nil {
		return err
	}
	s.tusProgress(w, u)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// errTusOffset is a chunk for another offset than the upload's.
func errTusOffset() *Error {
	return &Error{Status: 409, Code: "InvalidUploadOffset", Label: "Conflict", Message: "Upload-Offset does not match"}
}

// tusReceive stores the request's body as the chunk at u.Offset and moves
// the upload on (declaring its length when declared is set), then
// assembles the object once every byte is there. The offset update is a
// compare-and-set, so two clients racing on one upload cannot both append
// at the same offset.
func (s *Service) tusReceive(r *http.Request, u *tusUpload, limit int64, declared *int64) error {
	off := u.Offset
	lr := &limitReader{r: r.Body, limit: u.room(limit)}
	cr := &hashReader{r: lr, h: md5.New()}
	key := u.partKey(off)
	if err := s.backend.Put(r.Context(), key, cr, -1, "application/octet-stream"); err != nil {
		s.deleteBytes(r, key)
		if lr.exceeded {
			return errTooLarge()
		}
		return putError(u.Name, fmt.Errorf("store chunk %s: %w", key, err))
	}
	if cr.n == 0 {
		s.deleteBytes(r, key) // nothing to keep; the offset stays
	}
	tag, err := s.admin.Exec(r.Context(), `UPDATE storage.tus_uploads
		SET upload_offset = upload_offset + $3,
			parts = CASE WHEN $3 > 0 THEN parts || $2::bigint ELSE parts END,
			upload_length = coalesce(upload_length, $4)
		WHERE id = $1 AND upload_offset = $2`, u.ID, off, cr.n, declared)
	if err != nil || tag.RowsAffected() == 0 {
		if cr.n > 0 {
			s.deleteBytes(r, key)
		}
		if err != nil {
			return errInternal(fmt.Errorf("record chunk: %w", err))
		}
		return errTusOffset()
	}
	u.Offset += cr.n
	if cr.n > 0 {
		u.Parts = append(u.Parts, off)
	}
	if u.complete() {
		return s.tusFinish(r, *u)
	}
	return nil
}

// tusFinish assembles the parts into the object and writes its row, then
// removes the parts and the progress row.
func (s *Service) tusFinish(r *http.Request, u tusUpload) error {
	b, err := s.findBucket(r, u.BucketID)
	if err != nil {
		return err
	}
	hr := &hashReader{r: &partsReader{ctx: r.Context(), s: s, u: u}, h: md5.New()}
	key := objectKey(u.BucketID, u.Name, u.Version)
	if err := s.backend.Put(r.Context(), key, hr, u.Length, u.Mimetype); err != nil {
		s.deleteBytes(r, key)
		return putError(u.Name, fmt.Errorf("assemble %s: %w", key, err))
	}
	up := &uploadReq{bucket: b, name: u.Name, upsert: u.Upsert, owner: deref(u.OwnerID), mimetype: u.Mimetype,
		cacheControl: u.CacheControl, userMeta: u.UserMetadata}
	meta := sysMeta{ETag: `"` + hex.EncodeToString(hr.h.Sum(nil)) + `"`, Size: hr.n, Mimetype: u.Mimetype,
		CacheControl: u.CacheControl, LastModified: isoTime(s.now()), ContentLength: hr.n, HTTPStatusCode: 200}
	up.version, up.key, up.meta = u.Version, key, meta
	if _, err := s.recordUpload(r, up); err != nil {
		return err
	}
	s.tusDrop(r, u)
	return nil
}

// tusDrop removes an upload's progress row and parts.
func (s *Service) tusDrop(r *http.Request, u tusUpload) {
	if _, err := s.admin.Exec(context.WithoutCancel(r.Context()), `DELETE FROM storage.tus_uploads WHERE id = $1`, u.ID); err != nil {
		s.log.WarnContext(r.Context(), "storage: drop upload row", "id", u.ID, "err", err)
	}
	keys := make([]string, len(u.Parts))
	for i, p := range u.Parts {
		keys[i] = u.partKey(p)
	}
	s.deleteBytes(r, keys...)
}

// tusDelete answers DELETE (termination).
func (s *Service) tusDelete(w http.ResponseWriter, r *http.Request) error {
	tusHeaders(w)
	u, err := s.tusLoad(r)
	if err != nil {
		return tusError(err)
	}
	s.tusDrop(r, u)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// partsReader streams an upload's parts in order, opening one at a time.
type partsReader struct {
	ctx context.Context
	s   *Service
	u   tusUpload
	i   int
	cur io.ReadCloser
}

func (p *partsReader) Read(b []byte) (int, error) {
	for {
		if p.cur == nil {
			if p.i >= len(p.u.Parts) {
				return 0, io.EOF
			}
			rc, err := p.s.backend.Get(p.ctx, p.u.partKey(p.u.Parts[p.i]), 0, -1)
			if err != nil {
				return 0, fmt.Errorf("open part %d: %w", p.i, err)
			}
			p.cur, p.i = rc, p.i+1
		}
		n, err := p.cur.Read(b)
		if errors.Is(err, io.EOF) {
			_ = p.cur.Close()
			p.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}
