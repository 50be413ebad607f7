package storage

import (
	"context"
	"errors"
	"io"
	"time"
)

// Backend stores object bytes under opaque keys. The service never reuses a
// key: every write goes to a fresh key (bucket/name/version), and the row in
// storage.objects names the version that is current. That is what keeps
// metadata and bytes consistent when a request dies half-way: bytes without
// a row are invisible and the leftover sweep removes them.
type Backend interface {
	// Put stores r under key. size is the exact length, or -1 when unknown.
	// A Put that fails leaves nothing visible under key.
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error
	// Get opens key for reading from offset; length -1 reads to the end.
	// A missing key returns ErrNotExist.
	Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	// Copy duplicates src to dst.
	Copy(ctx context.Context, src, dst string) error
	// Delete removes keys; missing keys are not an error.
	Delete(ctx context.Context, keys ...string) error
	// Walk calls fn for every stored key under prefix ("" for all), with its
	// last modification time. It is used by the leftover sweep only.
	Walk(ctx context.Context, prefix string, fn func(key string, modified time.Time) error) error
}

// ErrNotExist is returned by Backend.Get for a missing key.
var ErrNotExist = errors.New("object bytes not found")

// ErrKeyTooLong is wrapped by a Backend.Put or Copy whose key the store
// cannot hold (a path segment past the file system's limit on a name, an S3
// key past 1024 bytes). The service answers InvalidKey: the name is the
// client's to change.
var ErrKeyTooLong = errors.New("key too long for the storage backend")

// ErrNoSpace is wrapped by a Backend.Put that failed because the store is
// full (a full disk, a quota, an S3 server out of drives). The service
// answers 507 and keeps nothing of the object.
var ErrNoSpace = errors.New("storage backend is out of space")
