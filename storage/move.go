package storage

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// moveInput is the body of /object/move and /object/copy.
type moveInput struct {
	BucketID          string          `json:"bucketId" validate:"required"`
	SourceKey         string          `json:"sourceKey" validate:"required"`
	DestinationKey    string          `json:"destinationKey" validate:"required"`
	DestinationBucket string          `json:"destinationBucket"`
	CopyMetadata      *bool           `json:"copyMetadata"`
	Metadata          json.RawMessage `json:"metadata"`
}

func (in *moveInput) validate() error {
	if err := checkBody(in); err != nil {
		return err
	}
	if in.DestinationBucket == "" {
		in.DestinationBucket = in.BucketID
	}
	if err := validateKey(in.SourceKey); err != nil {
		return err
	}
	return validateNewKey(in.DestinationKey)
}

// moveObject answers POST /object/move. As the caller, in one transaction:
// SELECT the source (not visible: NoSuchKey), copy the bytes to the new
// version key, UPDATE the row (USING checks the old row, WITH CHECK the new
// one). The old bytes are deleted after the commit.
func (s *Service) moveObject(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	var in moveInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	if _, err := s.findBucket(r, in.BucketID); err != nil {
		return err
	}
	if _, err := s.findBucket(r, in.DestinationBucket); err != nil {
		return err
	}
	// The moved row gets a new version and its bytes a new key, so the old
	// key stays valid until the UPDATE commits and a failure anywhere leaves
	// the object where it was.
	version := uuid.NewString()
	newKey := objectKey(in.DestinationBucket, in.DestinationKey, version)
	var src, moved object
	copied := false
	err = s.asUser(r.Context(), r, c, "storage.object.move", func(tx pgx.Tx) error {
		var err error
		src, err = scanObject(tx.QueryRow(r.Context(), `SELECT `+objectColumns+` FROM storage.objects
			WHERE bucket_id = $1 AND name = $2 FOR UPDATE`, in.BucketID, in.SourceKey))
		if errors.Is(err, pgx.ErrNoRows) {
			return errNoSuchKey()
		}
		if err != nil {
			return err
		}
		// The destination check runs as the owner: a hidden object at the
		// destination still makes the name taken, as the unique index would.
		var taken bool
		if err := s.admin.QueryRow(r.Context(), `SELECT EXISTS (SELECT 1 FROM storage.objects WHERE bucket_id = $1 AND name = $2)`,
			in.DestinationBucket, in.DestinationKey).Scan(&taken); err != nil {
			return err
		}
		if taken && !(in.DestinationBucket == in.BucketID && in.DestinationKey == in.SourceKey) {
			return errKeyExists()
		}
		if err := s.backend.Copy(r.Context(), src.key(), newKey); err != nil {
			return fmt.Errorf("copy bytes %s: %w", src.key(), err)
		}
		copied = true
		moved, err = scanObject(tx.QueryRow(r.Context(), `UPDATE storage.objects
			SET bucket_id = $3, name = $4, version = $5, owner = $6, owner_id = nullif($7, '')
			WHERE bucket_id = $1 AND name = $2 RETURNING `+objectColumns,
			in.BucketID, in.SourceKey, in.DestinationBucket, in.DestinationKey, version, ownerUUID(c.sub()), c.sub()))
		if errors.Is(err, pgx.ErrNoRows) {
			return errRLS() // visible but not updatable
		}
		return err
	})
	if err != nil {
		if copied {
			s.deleteBytes(r, newKey)
		}
		if pg.Is(err, "23505") {
			return errKeyExists()
		}
		return rlsError(err, "move object")
	}
	s.deleteBytes(r, src.key())
	return writeJSON(w, map[string]string{"message": "Successfully moved", "Id": moved.ID, "Key": moved.Name})
}

// copyObject answers POST /object/copy: SELECT the source as the caller,
// test the destination INSERT (or upsert with x-upsert) under RLS, copy the
// bytes, then write the destination row as the owner.
func (s *Service) copyObject(w http.ResponseWriter, r *http.Request) error {
	c, err := s.requireJWT(r)
	if err != nil {
		return err
	}
	var in moveInput
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := in.validate(); err != nil {
		return err
	}
	srcBucket, err := s.findBucket(r, in.BucketID)
	if err != nil {
		return err
	}
	dstBucket, err := s.findBucket(r, in.DestinationBucket)
	if err != nil {
		return err
	}
	// Reading the source is a SELECT as the caller; an invisible source is
	// NoSuchKey, as for a download.
	var src object
	err = s.asUser(r.Context(), r, c, "storage.object.copy", func(tx pgx.Tx) error {
		var err error
		src, err = scanObject(tx.QueryRow(r.Context(), `SELECT `+objectColumns+` FROM storage.objects
			WHERE bucket_id = $1 AND name = $2`, srcBucket.ID, in.SourceKey))
		if errors.Is(err, pgx.ErrNoRows) {
			return errNoSuchKey()
		}
		return err
	})
	if err != nil {
		return rlsError(err, "copy object")
	}
	m := src.meta()
	up := &uploadReq{bucket: dstBucket, name: in.DestinationKey, upsert: r.Header.Get("x-upsert") == "true",
		owner: c.sub(), mimetype: m.Mimetype, cacheControl: m.CacheControl, length: m.Size, robots: m.XRobotsTag}
	// Metadata: the source's unless copyMetadata is false; explicit metadata
	// (body or x-metadata) wins.
	if in.CopyMetadata == nil || *in.CopyMetadata {
		up.userMeta = src.UserMetadata
	}
	if v := r.Header.Get("x-metadata"); v != "" {
		if raw, err := base64.StdEncoding.DecodeString(v); err == nil && json.Valid(raw) {
			up.userMeta = raw
		}
	}
	if len(in.Metadata) > 0 && string(in.Metadata) != "null" {
		up.userMeta = in.Metadata
	}
	// The destination bucket's rules apply to the copy as to an upload.
	if !mimeAllowed(dstBucket.AllowedMimeTypes, up.mimetype) {
		return errMime(up.mimetype)
	}
	if m.Size > s.limit(dstBucket) {
		return errTooLarge()
	}
	if err := s.canInsert(r, c, up); err != nil {
		return err
	}
	version := uuid.NewString()
	key := objectKey(dstBucket.ID, up.name, version)
	if err := s.backend.Copy(r.Context(), src.key(), key); err != nil {
		s.deleteBytes(r, key)
		if errors.Is(err, ErrNotExist) {
			return errMissingBytes()
		}
		return putError(up.name, fmt.Errorf("copy bytes %s: %w", src.key(), err))
	}
	m.LastModified = isoTime(s.now())
	up.version, up.key, up.meta = version, key, m
	dst, err := s.recordUpload(r, up)
	if err != nil {
		return err
	}
	// The answer is the destination row plus the reference's Id and Key.
	out := map[string]any{}
	b, _ := json.Marshal(dst)
	_ = json.Unmarshal(b, &out)
	out["Id"], out["Key"] = dst.ID, dstBucket.ID+"/"+dst.Name
	return writeJSON(w, out)
}
