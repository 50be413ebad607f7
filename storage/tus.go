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

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/httpx"
)

// TUS 1.0.0 resumable uploads (core + creation + termination), as the
// reference serves them to tus-js-client. Each PATCH is stored as its own
// backend key under tusPrefix; the PATCH that completes the upload
// assembles the parts into the object's version key, writes the row and
// drops the parts. Progress lives in storage.tus_uploads, so any Basalt
// node can take the next chunk.

const (
	tusVersion = "1.0.0"
	tusPrefix  = "#tus/" // '#' is not allowed in bucket names, so no clash
)

// tusHeaders are sent on every TUS answer.
func tusHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Tus-Resumable", tusVersion)
	h.Set("Tus-Version", tusVersion)
	h.Set("Tus-Extension", "creation,termination")
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
	Length, Offset              int64
	Parts                       []int64
	OwnerID                     *string
	Upsert                      bool
	Mimetype, CacheControl      string
	UserMetadata                json.RawMessage
}

const tusColumns = `id, bucket_id, name, version, upload_length, upload_offset, parts, owner_id, upsert,
	mimetype, cache_control, user_metadata`

func scanTus(row pgx.Row) (tusUpload, error) {
	var u tusUpload
	err := row.Scan(&u.ID, &u.BucketID, &u.Name, &u.Version, &u.Length, &u.Offset, &u.Parts, &u.OwnerID, &u.Upsert,
		&u.Mimetype, &u.CacheControl, &u.UserMetadata)
	return u, err
}

func (u tusUpload) partKey(offset int64) string {
	return tusPrefix + u.ID + "/" + strconv.FormatInt(offset, 10)
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
// (bucket, key, size, type, RLS), before any byte is sent.
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

func (s *Service) tusCreateAs(w http.ResponseWriter, r *http.Request, c *caller, token map[string]any) error {
	tusHeaders(w)
	md := parseTusMetadata(r.Header.Get("Upload-Metadata"))
	if r.Header.Get("Upload-Metadata") == "" {
		return errInvalid("Metadata header is required")
	}
	length, ok := httpx.ParseDigits(r.Header.Get("Upload-Length"))
	if !ok {
		return errInvalid("Upload-Length header is required")
	}
	b, err := s.findBucket(r, md["bucketName"])
	if err != nil {
		return err
	}
	name := md["objectName"]
	if err := validateKey(name); err != nil {
		return err
	}
	if length > s.limit(b) {
		return errTooLarge()
	}
	up := &uploadReq{bucket: b, name: name, length: length, mimetype: md["contentType"], cacheControl: "no-cache"}
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
	version := uuid.NewString()
	id := base64.RawURLEncoding.EncodeToString([]byte(b.ID + "/" + name + "/" + version))
	_, err = s.admin.Exec(r.Context(), `INSERT INTO storage.tus_uploads
		(id, bucket_id, name, version, upload_length, owner_id, upsert, mimetype, cache_control, user_metadata)
		VALUES ($1, $2, $3, $4, $5, nullif($6, ''), $7, $8, $9, $10)`,
		id, b.ID, name, version, length, up.owner, up.upsert, up.mimetype, up.cacheControl, up.userMeta)
	if err != nil {
		return errInternal(fmt.Errorf("create upload %s/%s: %w", b.ID, name, err))
	}
	base := "/storage/v1/upload/resumable/"
	if token != nil {
		base += "sign/"
	}
	w.Header().Set("Location", base+id)
	w.WriteHeader(http.StatusCreated)
	return nil
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
	w.Header().Set("Upload-Offset", strconv.FormatInt(u.Offset, 10))
	w.Header().Set("Upload-Length", strconv.FormatInt(u.Length, 10))
	w.Header().Set("Cache-Control", "no-store")
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

// tusAppend stores one chunk. The offset update is a compare-and-set, so
// two clients racing on one upload cannot both append at the same offset.
func (s *Service) tusAppend(w http.ResponseWriter, r *http.Request) error {
	tusHeaders(w)
	if ct := r.Header.Get("Content-Type"); ct != "application/offset+octet-stream" {
		return &Error{Status: 415, Code: "InvalidContentType", Label: "Unsupported Media Type",
			Message: "Content-Type must be application/offset+octet-stream"}
	}
	u, err := s.tusLoad(r)
	if err != nil {
		return err
	}
	off, ok := httpx.ParseDigits(r.Header.Get("Upload-Offset"))
	if !ok || off != u.Offset {
		return &Error{Status: 409, Code: "InvalidUploadOffset", Label: "Conflict", Message: "Upload-Offset does not match"}
	}
	remaining := u.Length - u.Offset
	if r.ContentLength > remaining {
		return errTooLarge()
	}
	lr := &limitReader{r: r.Body, limit: remaining}
	cr := &hashReader{r: lr, h: md5.New()}
	key := u.partKey(off)
	if err := s.backend.Put(r.Context(), key, cr, -1, "application/octet-stream"); err != nil {
		s.deleteBytes(r, key)
		if lr.exceeded {
			return errTooLarge()
		}
		return putError(fmt.Errorf("store chunk %s: %w", key, err))
	}
	if cr.n == 0 && remaining > 0 {
		s.deleteBytes(r, key)
		w.Header().Set("Upload-Offset", strconv.FormatInt(u.Offset, 10))
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	tag, err := s.admin.Exec(r.Context(), `UPDATE storage.tus_uploads
		SET upload_offset = upload_offset + $3, parts = parts || $2::bigint
		WHERE id = $1 AND upload_offset = $2`, u.ID, off, cr.n)
	if err != nil || tag.RowsAffected() == 0 {
		s.deleteBytes(r, key)
		if err != nil {
			return errInternal(fmt.Errorf("record chunk: %w", err))
		}
		return &Error{Status: 409, Code: "InvalidUploadOffset", Label: "Conflict", Message: "Upload-Offset does not match"}
	}
	u.Offset += cr.n
	u.Parts = append(u.Parts, off)
	if u.Offset == u.Length {
		if err := s.tusFinish(r, u); err != nil {
			return err
		}
	}
	w.Header().Set("Upload-Offset", strconv.FormatInt(u.Offset, 10))
	w.WriteHeader(http.StatusNoContent)
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
		return putError(fmt.Errorf("assemble %s: %w", key, err))
	}
	up := &uploadReq{bucket: b, name: u.Name, upsert: u.Upsert, owner: deref(u.OwnerID), mimetype: u.Mimetype,
		cacheControl: u.CacheControl, userMeta: u.UserMetadata}
	meta := sysMeta{ETag: `"` + hex.EncodeToString(hr.h.Sum(nil)) + `"`, Size: hr.n, Mimetype: u.Mimetype,
		CacheControl: u.CacheControl, LastModified: isoTime(s.now()), ContentLength: hr.n, HTTPStatusCode: 200}
	_, old, err := s.writeRow(r, up, meta, u.Version)
	if err != nil {
		s.deleteBytes(r, key)
		return err
	}
	if old != "" && old != u.Version {
		s.deleteBytes(r, objectKey(u.BucketID, u.Name, old))
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
