// Package backends opens the storage backend a storage.Config selects, so
// cmd/basalt needs one call: backends.Open(ctx, cfg).
package backends

import (
	"context"

	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
	"github.com/basaltdev/basalt/storage/s3backend"
)

// Open returns the filesystem backend (default) or the S3 backend.
func Open(ctx context.Context, cfg storage.Config) (storage.Backend, error) {
	if cfg.Backend == "s3" {
		return s3backend.New(ctx, cfg.S3)
	}
	dir := cfg.FileDir
	if dir == "" {
		dir = ".basalt/storage"
	}
	return fsbackend.New(dir)
}
