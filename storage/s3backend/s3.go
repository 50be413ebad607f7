// Package s3backend stores object bytes in one bucket of any S3-compatible
// service (AWS S3, MinIO, R2) through minio-go. Every object version has its
// own key, so a failed Put never overwrites bytes a row points to.
package s3backend

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/basaltdev/basalt/storage"
)

// Backend is a storage.Backend on an S3 bucket.
type Backend struct {
	client *minio.Client
	bucket string
	prefix string // prepended to every key, e.g. "basalt/"
}

var _ storage.Backend = (*Backend)(nil)

// New connects to the S3 endpoint and makes sure the bucket exists.
func New(ctx context.Context, cfg storage.S3Config) (*Backend, error) {
	client, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: cfg.UseSSL,
		Region: cfg.Region,
	})
	if err != nil {
		return nil, fmt.Errorf("s3 client for %s: %w", cfg.Endpoint, err)
	}
	ok, err := client.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("s3 bucket %s: %w", cfg.Bucket, err)
	}
	if !ok {
		if err := client.MakeBucket(ctx, cfg.Bucket, minio.MakeBucketOptions{Region: cfg.Region}); err != nil {
			// Nodes starting together race to create it: losing is fine.
			if exists, eerr := client.BucketExists(ctx, cfg.Bucket); eerr != nil || !exists {
				return nil, fmt.Errorf("create s3 bucket %s: %w", cfg.Bucket, err)
			}
		}
	}
	p := strings.Trim(cfg.Prefix, "/")
	if p != "" {
		p += "/"
	}
	return &Backend{client: client, bucket: cfg.Bucket, prefix: p}, nil
}

// partSize bounds the memory minio-go uses per upload of unknown length
// (it buffers one part at a time); 8 MB parts allow objects up to 80 GB.
const partSize = 8 << 20

// Put uploads r; S3 makes the object visible only when the upload completes.
func (b *Backend) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if err := b.checkKey(key); err != nil {
		return err
	}
	_, err := b.client.PutObject(ctx, b.bucket, b.prefix+key, r, size, minio.PutObjectOptions{
		ContentType: contentType, PartSize: partSize, DisableContentSha256: true,
	})
	if err != nil {
		// 507 is how S3 servers (MinIO's XMinioStorageFull among them) say
		// they have no room left.
		switch resp := minio.ToErrorResponse(err); {
		case resp.StatusCode == http.StatusInsufficientStorage:
			err = fmt.Errorf("%w: %w", storage.ErrNoSpace, err)
		case resp.Code == "KeyTooLongError":
			err = fmt.Errorf("%w: %w", storage.ErrKeyTooLong, err)
		}
		return fmt.Errorf("s3 put %s: %w", key, err)
	}
	return nil
}

// maxKeyBytes is S3's limit on a key.
const maxKeyBytes = 1024

// checkKey refuses a key S3 cannot hold before anything is sent (minio-go
// would refuse it too, in words of its own).
func (b *Backend) checkKey(key string) error {
	if len(b.prefix)+len(key) > maxKeyBytes {
		return fmt.Errorf("s3 key %s: %w", key, storage.ErrKeyTooLong)
	}
	return nil
}

// Get reads key from offset; length -1 reads to the end.
func (b *Backend) Get(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	opts := minio.GetObjectOptions{}
	if offset > 0 || length >= 0 {
		end := int64(0)
		if length >= 0 {
			end = offset + length - 1
		}
		if length == 0 {
			return io.NopCloser(strings.NewReader("")), nil
		}
		if err := opts.SetRange(offset, end); err != nil {
			return nil, fmt.Errorf("s3 range %s: %w", key, err)
		}
	}
	// GetObject is lazy; Stat forces the request so a missing key is
	// reported here rather than mid-stream.
	obj, err := b.client.GetObject(ctx, b.bucket, b.prefix+key, opts)
	if err != nil {
		return nil, mapErr(key, err)
	}
	if _, err := obj.Stat(); err != nil {
		_ = obj.Close()
		return nil, mapErr(key, err)
	}
	return obj, nil
}

func mapErr(key string, err error) error {
	if minio.ToErrorResponse(err).Code == "NoSuchKey" {
		return storage.ErrNotExist
	}
	return fmt.Errorf("s3 get %s: %w", key, err)
}

// Copy uses server-side copy (up to 5 GB; larger sources are composed).
func (b *Backend) Copy(ctx context.Context, src, dst string) error {
	if err := b.checkKey(dst); err != nil {
		return err
	}
	_, err := b.client.CopyObject(ctx,
		minio.CopyDestOptions{Bucket: b.bucket, Object: b.prefix + dst},
		minio.CopySrcOptions{Bucket: b.bucket, Object: b.prefix + src})
	if err != nil {
		switch minio.ToErrorResponse(err).Code {
		case "NoSuchKey":
			return storage.ErrNotExist
		case "KeyTooLongError":
			err = fmt.Errorf("%w: %w", storage.ErrKeyTooLong, err)
		}
		return fmt.Errorf("s3 copy %s to %s: %w", src, dst, err)
	}
	return nil
}

// Delete removes keys in batches; missing keys are not an error in S3.
func (b *Backend) Delete(ctx context.Context, keys ...string) error {
	if len(keys) == 0 {
		return nil
	}
	ch := make(chan minio.ObjectInfo, len(keys))
	for _, k := range keys {
		ch <- minio.ObjectInfo{Key: b.prefix + k}
	}
	close(ch)
	var errs []error
	for e := range b.client.RemoveObjects(ctx, b.bucket, ch, minio.RemoveObjectsOptions{}) {
		if e.Err != nil && minio.ToErrorResponse(e.Err).Code != "NoSuchKey" {
			errs = append(errs, fmt.Errorf("s3 delete %s: %w", e.ObjectName, e.Err))
		}
	}
	return errors.Join(errs...)
}

// Walk lists keys under prefix.
func (b *Backend) Walk(ctx context.Context, prefix string, fn func(string, time.Time) error) error {
	for o := range b.client.ListObjects(ctx, b.bucket, minio.ListObjectsOptions{Prefix: b.prefix + prefix, Recursive: true}) {
		if o.Err != nil {
			return fmt.Errorf("s3 list: %w", o.Err)
		}
		if err := fn(strings.TrimPrefix(o.Key, b.prefix), o.LastModified); err != nil {
			return err
		}
	}
	return nil
}
