package storage

import (
	"fmt"
	"strings"
	"time"

	"github.com/basaltdev/basalt/internal/config"
)

// Config is the storage service's configuration. ConfigFromEnv fills it from
// STORAGE_* variables; the zero value plus defaults() is a working local
// setup.
type Config struct {
	// Backend is "file" (default) or "s3".
	Backend string
	// FileDir is where the file backend keeps bytes (STORAGE_FILE_DIR).
	FileDir string
	// S3 settings, used when Backend is "s3".
	S3 S3Config
	// FileSizeLimit is the global per-object limit in bytes
	// (STORAGE_FILE_SIZE_LIMIT, default 50 MB); a bucket's own limit can only
	// lower it.
	FileSizeLimit int64
	// UploadURLExpiry is the lifetime of signed upload URLs
	// (STORAGE_UPLOAD_SIGNED_URL_EXPIRY, default 2h as on hosted Supabase).
	UploadURLExpiry time.Duration
	// ImageTransform enables /render/image (STORAGE_IMAGE_TRANSFORMATION;
	// ConfigFromEnv defaults it to true, a zero Config has it off).
	ImageTransform bool
	// ImageMaxBytes caps the source size /render/image will decode
	// (STORAGE_IMAGE_MAX_BYTES, default 25 MB).
	ImageMaxBytes int64
	// ImageMaxPixels caps width*height of a decoded source image
	// (default 50 megapixels), so a small file cannot expand into gigabytes.
	ImageMaxPixels int64
	// LeftoverAge is how old unreferenced bytes must be before the sweep
	// deletes them (STORAGE_GC_AGE, default 1h), so uploads in flight are safe.
	LeftoverAge time.Duration
	// TusExpiry is how long after its creation a resumable upload may be
	// continued (STORAGE_TUS_URL_EXPIRY, default 1h, the reference's
	// TUS_URL_EXPIRY_MS); later it answers 410 and Upload-Expires says when.
	TusExpiry time.Duration
}

// S3Config selects an S3-compatible bucket that holds every object.
type S3Config struct {
	Endpoint  string // host[:port], STORAGE_S3_ENDPOINT
	Bucket    string // STORAGE_S3_BUCKET
	Region    string // STORAGE_S3_REGION
	AccessKey string // STORAGE_S3_ACCESS_KEY
	SecretKey string // STORAGE_S3_SECRET_KEY
	UseSSL    bool   // STORAGE_S3_USE_SSL (default true)
	Prefix    string // optional key prefix inside the bucket, STORAGE_S3_PREFIX
}

// defaults fills unset fields and validates the rest.
func (c *Config) defaults() error {
	if c.Backend == "" {
		c.Backend = "file"
	}
	if c.FileDir == "" {
		c.FileDir = ".basalt/storage"
	}
	if c.FileSizeLimit <= 0 {
		c.FileSizeLimit = 50 * 1000 * 1000
	}
	if c.UploadURLExpiry <= 0 {
		c.UploadURLExpiry = 2 * time.Hour
	}
	if c.ImageMaxBytes <= 0 {
		c.ImageMaxBytes = 25 * 1000 * 1000
	}
	if c.ImageMaxPixels <= 0 {
		c.ImageMaxPixels = 50_000_000
	}
	if c.LeftoverAge <= 0 {
		c.LeftoverAge = time.Hour
	}
	if c.TusExpiry <= 0 {
		c.TusExpiry = time.Hour
	}
	if c.TusExpiry > abandonedUpload {
		return fmt.Errorf("STORAGE_TUS_URL_EXPIRY %s: at most %s, after which the sweep drops unfinished uploads", c.TusExpiry, abandonedUpload)
	}
	switch c.Backend {
	case "file":
	case "s3":
		if c.S3.Endpoint == "" || c.S3.Bucket == "" {
			return fmt.Errorf("storage backend s3 needs STORAGE_S3_ENDPOINT and STORAGE_S3_BUCKET")
		}
	default:
		return fmt.Errorf("STORAGE_BACKEND %q: want file or s3", c.Backend)
	}
	return nil
}

// ConfigFromEnv reads the STORAGE_* variables, reporting every bad one.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	r := config.NewReader(getenv)
	c := Config{
		Backend:        strings.ToLower(r.String("STORAGE_BACKEND", "")),
		FileDir:        r.String("STORAGE_FILE_DIR", ""),
		ImageTransform: r.Bool("STORAGE_IMAGE_TRANSFORMATION", true),
		S3: S3Config{
			Endpoint:  r.String("STORAGE_S3_ENDPOINT", ""),
			Bucket:    r.String("STORAGE_S3_BUCKET", ""),
			Region:    r.String("STORAGE_S3_REGION", ""),
			AccessKey: r.String("STORAGE_S3_ACCESS_KEY", ""),
			SecretKey: r.String("STORAGE_S3_SECRET_KEY", ""),
			Prefix:    r.String("STORAGE_S3_PREFIX", ""),
			UseSSL:    r.Bool("STORAGE_S3_USE_SSL", true),
		},
		UploadURLExpiry: r.Duration("STORAGE_UPLOAD_SIGNED_URL_EXPIRY", 0),
		LeftoverAge:     r.Duration("STORAGE_GC_AGE", 0),
		TusExpiry:       r.Duration("STORAGE_TUS_URL_EXPIRY", 0),
	}
	for name, dst := range map[string]*int64{"STORAGE_FILE_SIZE_LIMIT": &c.FileSizeLimit, "STORAGE_IMAGE_MAX_BYTES": &c.ImageMaxBytes} {
		r.Parse(name, func(v string) (err error) {
			*dst, err = parseSize(v)
			return err
		})
	}
	if err := c.defaults(); err != nil {
		r.Fail("%w", err)
	}
	return c, r.Err()
}
