package storage_test

import (
	"context"
	"errors"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/basaltdev/basalt/storage"
)

// TestBackendContract holds both backends to the Backend interface's
// promises, which the service's consistency argument rests on.
func TestBackendContract(t *testing.T) {
	t.Parallel()
	for _, kind := range backendKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := newBackend(t, kind)
			read := func(key string, off, n int64) (string, error) {
				r, err := b.Get(ctx, key, off, n)
				if err != nil {
					return "", err
				}
				defer r.Close()
				data, err := io.ReadAll(r)
				return string(data), err
			}
			put := func(key, data string, size int64) {
				t.Helper()
				if err := b.Put(ctx, key, strings.NewReader(data), size, "text/plain"); err != nil {
					t.Fatalf("put %s: %v", key, err)
				}
			}
			put("b1/dir/a.txt/v1", "0123456789", 10)
			put("b1/dir/a.txt/v1/nested", "nested", -1) // a name below another object's key
			put("b2/x y&z/v1", "odd name", -1)

			for _, tt := range []struct {
				key     string
				off, n  int64
				want    string
				wantErr error
			}{
				{"b1/dir/a.txt/v1", 0, -1, "0123456789", nil},
				{"b1/dir/a.txt/v1", 3, 4, "3456", nil},
				{"b1/dir/a.txt/v1", 7, -1, "789", nil},
				{"b1/dir/a.txt/v1/nested", 0, -1, "nested", nil},
				{"b2/x y&z/v1", 0, -1, "odd name", nil},
				{"b1/missing", 0, -1, "", storage.ErrNotExist},
			} {
				got, err := read(tt.key, tt.off, tt.n)
				if !errors.Is(err, tt.wantErr) || got != tt.want {
					t.Errorf("Get(%q, %d, %d) = %q, %v; want %q, %v", tt.key, tt.off, tt.n, got, err, tt.want, tt.wantErr)
				}
			}

			if err := b.Copy(ctx, "b1/dir/a.txt/v1", "b2/copy/v9"); err != nil {
				t.Fatal(err)
			}
			if got, _ := read("b2/copy/v9", 0, -1); got != "0123456789" {
				t.Errorf("copy = %q", got)
			}
			if err := b.Copy(ctx, "b1/missing", "b2/never"); !errors.Is(err, storage.ErrNotExist) {
				t.Errorf("copy of a missing key: %v", err)
			}

			walk := func(prefix string) []string {
				var keys []string
				err := b.Walk(ctx, prefix, func(k string, mod time.Time) error {
					if time.Since(mod) > time.Hour || time.Until(mod) > time.Hour {
						t.Errorf("key %s modified %v", k, mod)
					}
					keys = append(keys, k)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				sort.Strings(keys)
				return keys
			}
			if diff := cmp.Diff([]string{"b1/dir/a.txt/v1", "b1/dir/a.txt/v1/nested", "b2/copy/v9", "b2/x y&z/v1"}, walk("")); diff != "" {
				t.Errorf("walk (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"b2/copy/v9", "b2/x y&z/v1"}, walk("b2/")); diff != "" {
				t.Errorf("walk b2/ (-want +got):\n%s", diff)
			}

			if err := b.Delete(ctx, "b1/dir/a.txt/v1", "b1/never-existed"); err != nil {
				t.Fatal(err)
			}
			if _, err := read("b1/dir/a.txt/v1", 0, -1); !errors.Is(err, storage.ErrNotExist) {
				t.Errorf("deleted key reads: %v", err)
			}
			if got, _ := read("b1/dir/a.txt/v1/nested", 0, -1); got != "nested" {
				t.Errorf("deleting a key took a key below it: %q", got)
			}
		})
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c, err := storage.ConfigFromEnv(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Backend != "file" || c.FileDir != ".basalt/storage" || c.FileSizeLimit != 50_000_000 ||
		c.UploadURLExpiry != 2*time.Hour || !c.ImageTransform || c.LeftoverAge != time.Hour || c.TusExpiry != time.Hour {
		t.Errorf("defaults = %+v", c)
	}
	c, err = storage.ConfigFromEnv(env(map[string]string{"STORAGE_BACKEND": "S3", "STORAGE_S3_ENDPOINT": "minio:9000",
		"STORAGE_S3_BUCKET": "objects", "STORAGE_S3_USE_SSL": "false", "STORAGE_FILE_SIZE_LIMIT": "5GB",
		"STORAGE_IMAGE_TRANSFORMATION": "false", "STORAGE_GC_AGE": "10m", "STORAGE_TUS_URL_EXPIRY": "30m"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Backend != "s3" || c.S3.Endpoint != "minio:9000" || c.S3.UseSSL || c.FileSizeLimit != 5_000_000_000 ||
		c.ImageTransform || c.LeftoverAge != 10*time.Minute || c.TusExpiry != 30*time.Minute {
		t.Errorf("s3 config = %+v", c)
	}
	for _, bad := range []map[string]string{
		{"STORAGE_BACKEND": "tape"},
		{"STORAGE_BACKEND": "s3"},
		{"STORAGE_FILE_SIZE_LIMIT": "lots"},
		{"STORAGE_GC_AGE": "soon"},
		{"STORAGE_TUS_URL_EXPIRY": "48h"}, // past the sweep of unfinished uploads
	} {
		if _, err := storage.ConfigFromEnv(env(bad)); err == nil {
			t.Errorf("ConfigFromEnv(%v) accepted", bad)
		}
	}
}
