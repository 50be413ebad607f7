package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/lazy"
)

// object is a storage.objects row.
type object struct {
	ID             string
	BucketID       string
	Name           string
	Owner          *string
	OwnerID        *string
	Version        *string
	CreatedAt      *time.Time
	UpdatedAt      *time.Time
	LastAccessedAt *time.Time
	Metadata       json.RawMessage
	UserMetadata   json.RawMessage
}

const objectColumns = `id::text, bucket_id, name, owner::text, owner_id, version, created_at, updated_at,
	last_accessed_at, metadata, user_metadata`

func scanObject(row pgx.Row) (object, error) {
	var o object
	err := row.Scan(&o.ID, &o.BucketID, &o.Name, &o.Owner, &o.OwnerID, &o.Version, &o.CreatedAt, &o.UpdatedAt,
		&o.LastAccessedAt, &o.Metadata, &o.UserMetadata)
	return o, err
}

func collectObjects(rows pgx.Rows) ([]object, error) {
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (object, error) { return scanObject(row) })
}

// key is where the object's current bytes live in the backend.
func (o object) key() string { return objectKey(o.BucketID, o.Name, deref(o.Version)) }

// objectKey names the bytes of one version of an object. Rows written by
// plain SQL (seed data) have no version and map to bucket/name.
func objectKey(bucketID, name, version string) string {
	if version == "" {
		return bucketID + "/" + name
	}
	return bucketID + "/" + name + "/" + version
}

// ObjectKey is objectKey for tools that move bytes outside the service
// (backup and restore), so there is one rule for where a row's bytes live.
func ObjectKey(bucketID, name, version string) string { return objectKey(bucketID, name, version) }

// sysMeta is the system metadata kept in objects.metadata.
type sysMeta struct {
	ETag           string `json:"eTag"`
	Size           int64  `json:"size"`
	Mimetype       string `json:"mimetype"`
	CacheControl   string `json:"cacheControl"`
	LastModified   string `json:"lastModified"`
	ContentLength  int64  `json:"contentLength"`
	HTTPStatusCode int    `json:"httpStatusCode"`
	XRobotsTag     string `json:"xRobotsTag,omitempty"`
}

func (o object) meta() sysMeta {
	var m sysMeta
	_ = json.Unmarshal(o.Metadata, &m)
	if m.Mimetype == "" {
		m.Mimetype = "application/octet-stream"
	}
	if m.CacheControl == "" {
		m.CacheControl = "no-cache"
	}
	return m
}

// lastModified is metadata.lastModified, else updated_at.
func (o object) lastModified() time.Time {
	if t, err := time.Parse(time.RFC3339Nano, o.meta().LastModified); err == nil {
		return t
	}
	if o.UpdatedAt != nil {
		return *o.UpdatedAt
	}
	return time.Time{}
}

// MarshalJSON renders the reference's object shape (its serializer's
// allow-list), with millisecond timestamps.
func (o object) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{
		"name": o.Name, "bucket_id": o.BucketID, "owner": o.Owner, "owner_id": o.OwnerID,
		"version": o.Version, "id": o.ID, "updated_at": isoPtr(o.UpdatedAt), "created_at": isoPtr(o.CreatedAt),
		"last_accessed_at": isoPtr(o.LastAccessedAt), "metadata": o.Metadata, "user_metadata": o.UserMetadata,
	})
}

// userMetaOrEmpty is the user_metadata a row gets: the client's, or {}.
func userMetaOrEmpty(m json.RawMessage) json.RawMessage {
	if len(m) == 0 {
		return json.RawMessage(`{}`)
	}
	return m
}

func isoPtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return isoTime(*t)
}

// keyRE is the reference's rule for object names (S3-safe characters).
var keyRE = lazy.NewRegexp(`^[A-Za-z0-9_/!.*'() &$=@;:+,?-]*$`)

// maxKeyBytes bounds the name an object gets: S3's limit on a key, which
// the reference inherits from its store.
const maxKeyBytes = 1024

// validateKey is the reference's rule for a name: not empty, S3-safe
// characters only.
func validateKey(name string) error {
	if name == "" || !keyRE.MatchString(name) {
		return errInvalidKey(name)
	}
	return nil
}

// validateNewKey is validateKey for a name an object is about to get (an
// upload, a copy or move destination, a signed upload, a TUS creation):
// also at most maxKeyBytes, and no "." or ".." segment, which the
// reference's file store refuses as a path. A name stored before these
// rules can still be read, moved away from and deleted.
func validateNewKey(name string) error {
	if err := validateKey(name); err != nil {
		return err
	}
	if len(name) > maxKeyBytes {
		return errInvalidKey(name)
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "." || seg == ".." {
			return errInvalidKey(name)
		}
	}
	return nil
}

// readObject loads bucket/name for a read: public buckets skip RLS, private
// ones need a verified token and an RLS-visible row. Failures are reported
// as not found, never as 403, like the reference.
func (s *Service) readObject(r *http.Request, c caller, b bucket, name string, forcePublic bool) (object, error) {
	if b.Public || forcePublic {
		return s.adminObject(r, b.ID, name)
	}
	return s.readPrivate(r, c, b, name)
}

// readPrivate loads bucket/name from a private bucket as the caller: the row
// must pass the caller's SELECT policies, and a hidden row and a missing row
// are the same NoSuchKey. Requests without a token never see private
// objects.
func (s *Service) readPrivate(r *http.Request, c caller, b bucket, name string) (object, error) {
	if c.claims == nil {
		return object{}, errNoSuchBucket()
	}
	var o object
	err := s.queryRowAsUser(r.Context(), r, c, "storage.object.get", func(row pgx.Row) error {
		var err error
		o, err = scanObject(row)
		return err
	}, `SELECT `+objectColumns+` FROM storage.objects WHERE bucket_id = $1 AND name = $2`, b.ID, name)
	if errors.Is(err, pgx.ErrNoRows) {
		return o, errNoSuchKey()
	}
	if err != nil {
		return o, rlsError(err, "load object")
	}
	return o, nil
}

// readBucketObject is findBucket followed by readObject for the read
// routes, in one round trip on the user pool: storage.read_target, still as
// authenticator, returns the bucket and, for a public bucket, the object;
// then the role switch and the caller's RLS read of the object, which
// private buckets use. forcePublic serves public buckets only, whatever the
// caller.
func (s *Service) readBucketObject(r *http.Request, c caller, bucketID, name string, forcePublic bool) (bucket, object, error) {
	var b bucket
	var pub, priv object
	var oid, obucket, oname *string
	var targetErr error
	batch := &pgx.Batch{}
	batch.Queue(`SELECT * FROM storage.read_target($1, $2)`, bucketID, name).QueryRow(func(row pgx.Row) error {
		targetErr = row.Scan(&b.ID, &b.Name, &b.Owner, &b.Public, &b.Type, &b.FileSizeLimit, &b.AllowedMimeTypes,
			&b.CreatedAt, &b.UpdatedAt, &oid, &obucket, &oname, &pub.Owner, &pub.OwnerID, &pub.Version,
			&pub.CreatedAt, &pub.UpdatedAt, &pub.LastAccessedAt, &pub.Metadata, &pub.UserMetadata)
		return targetErr
	})
	// Without a token a private object is never visible, and an invalid
	// role is only an error where RLS would run: no RLS read then.
	pc, setupErr := pgCaller(r, c, "storage.object.get")
	var setup string
	var setupArgs []any
	if setupErr == nil {
		if setup, setupArgs, setupErr = pc.Setup(); setupErr != nil {
			setupErr = errInternal(fmt.Errorf("caller setup: %w", setupErr))
		}
	}
	hidden := false
	if c.claims != nil && setupErr == nil && !forcePublic {
		batch.Queue(setup, setupArgs...)
		batch.Queue(`SELECT `+objectColumns+` FROM storage.objects WHERE bucket_id = $1 AND name = $2`,
			bucketID, name).QueryRow(func(row pgx.Row) error {
			var err error
			priv, err = scanObject(row)
			if errors.Is(err, pgx.ErrNoRows) {
				hidden = true
				return nil
			}
			return err
		})
	}
	err := s.user.SendBatch(r.Context(), batch).Close()
	switch {
	case errors.Is(targetErr, pgx.ErrNoRows):
		return b, pub, errNoSuchBucket()
	case targetErr != nil:
		return b, pub, errInternal(fmt.Errorf("load bucket %s and object: %w", bucketID, targetErr))
	case forcePublic && !b.Public:
		return b, pub, errNoSuchBucket()
	case b.Public && oid == nil:
		return b, pub, errNoSuchKey()
	case b.Public:
		// The RLS read does not matter here, whatever it returned.
		pub.ID, pub.BucketID, pub.Name = *oid, deref(obucket), deref(oname)
		return b, pub, nil
	case c.claims == nil:
		return b, priv, errNoSuchBucket()
	case setupErr != nil:
		return b, priv, setupErr
	case err != nil:
		return b, priv, rlsError(err, "load object")
	case hidden:
		return b, priv, errNoSuchKey()
	}
	return b, priv, nil
}

// adminObject loads a row without RLS (signed URLs, the sweep).
func (s *Service) adminObject(r *http.Request, bucketID, name string) (object, error) {
	o, err := scanObject(s.admin.QueryRow(r.Context(),
		`SELECT `+objectColumns+` FROM storage.objects WHERE bucket_id = $1 AND name = $2`, bucketID, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return o, errNoSuchKey()
	}
	if err != nil {
		return o, errInternal(fmt.Errorf("load object %s/%s: %w", bucketID, name, err))
	}
	return o, nil
}

// deleteBytes removes backend keys after their rows are gone. Failures are
// logged only: the rows are already gone, so the bytes are invisible, and the
// leftover sweep deletes them later.
func (s *Service) deleteBytes(r *http.Request, keys ...string) {
	if len(keys) == 0 {
		return
	}
	if err := s.backend.Delete(context.WithoutCancel(r.Context()), keys...); err != nil {
		s.log.WarnContext(r.Context(), "storage: delete bytes failed; the leftover sweep will retry", "keys", len(keys), "err", err)
	}
}
