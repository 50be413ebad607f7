package storage

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/internal/pg"
)

// Stage 2 of an upload, authorize: the bucket, its rules and the caller's
// policies, all before any byte is stored.

// authorizeUpload loads the bucket and runs the policy test in one round
// trip, then answers in the reference's order: a missing bucket, a
// malformed request, the bucket's own rules, the policies' verdict.
func (s *Service) authorizeUpload(r *http.Request, up *uploadReq) error {
	b, probeErr, err := s.bucketAndCanInsert(r, up)
	if err != nil {
		return err
	}
	if up.headErr != nil {
		return up.headErr
	}
	if err := s.applyBucket(up, b); err != nil {
		return err
	}
	return probeErr
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
// err is the bucket's failure; probeErr the policy test's verdict. An
// upload whose head was malformed, or whose role the API refuses, is not
// tested: the bucket alone is loaded, so that a missing one is still
// reported first.
func (s *Service) bucketAndCanInsert(r *http.Request, up *uploadReq) (b bucket, probeErr, err error) {
	up.owner, up.bucket.ID = up.caller.sub(), up.bucketID
	sql, args := insertProbe(up)
	if _, err := pgCaller(r, up.caller, ""); err != nil || up.headErr != nil {
		b, berr := s.findBucket(r, up.bucketID)
		return b, err, berr
	}
	var targetErr error
	head := func(batch *pgx.Batch) {
		// A NULL name matches no object: only the bucket is wanted.
		batch.Queue(`SELECT id, name, owner, public, type, file_size_limit, allowed_mime_types, created_at, updated_at
			FROM storage.read_target($1, NULL)`, up.bucketID).QueryRow(func(row pgx.Row) error {
			b, targetErr = scanBucket(row)
			return nil // the pipeline goes on; the verdict is read below
		})
	}
	probeErr = s.probeAsUser(r.Context(), r, up.caller, "storage.object.upload", head, sql, args...)
	switch {
	case errors.Is(targetErr, pgx.ErrNoRows):
		return b, nil, errNoSuchBucket()
	case targetErr != nil:
		return b, nil, errInternal(fmt.Errorf("load bucket %s: %w", up.bucketID, targetErr))
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
