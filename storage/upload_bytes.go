package storage

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"

	"github.com/google/uuid"
)

// Stage 3 of an upload, bytes: the body streams to a fresh version key.
// Until the record stage commits the row, the new bytes are unreferenced:
// invisible, and swept later if the row never comes.

// writeBytes streams up's body to a new version of the object and notes
// the version, its key and the bytes' system metadata in up.
func (s *Service) writeBytes(r *http.Request, up *uploadReq) error {
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
			return e
		}
		if lr, ok := up.body.(*limitReader); ok && lr.exceeded {
			return errTooLarge()
		}
		return putError(up.name, fmt.Errorf("store %s: %w", key, err))
	}
	up.version, up.key = version, key
	up.meta = sysMeta{
		ETag: `"` + hex.EncodeToString(hr.h.Sum(nil)) + `"`, Size: hr.n, Mimetype: up.mimetype,
		CacheControl: up.cacheControl, LastModified: isoTime(s.now()), ContentLength: hr.n,
		HTTPStatusCode: 200, XRobotsTag: up.robots,
	}
	return nil
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
