package storage_test

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
	"github.com/basaltdev/basalt/storage/s3backend"
)

// TestFullDiskAnswers507 fills a real 1 MiB file system: the upload answers
// 507 in the reference's envelope, leaves no row and no bytes behind, and
// the next upload that fits works.
func TestFullDiskAnswers507(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A tmpfs of 1 MiB is a disk that really fills up; mounting needs root.
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a small tmpfs here (%v): run as root to test a full disk", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, 0) })
	backend, err := fsbackend.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, backend)
	e.bucket("b", false)

	big := bytes.Repeat([]byte("x"), 2<<20)
	wantErr(t, e.put(e.service, "b", "big.bin", "application/octet-stream", big, false),
		507, "507", "InsufficientStorage", "The storage backend is out of space")
	if n := e.count(`SELECT count(*) FROM storage.objects`); n != 0 {
		t.Errorf("%d object rows after a failed upload, want 0", n)
	}
	var files []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 0 {
		t.Errorf("files left on the full disk: %v", files)
	}
	if rec := e.put(e.service, "b", "small.txt", "text/plain", []byte("fits"), false); rec.Code != 200 {
		t.Fatalf("upload after the failure: %d %s", rec.Code, rec.Body)
	}
	if rec := e.get(e.service, "b", "small.txt", nil); rec.Code != 200 || rec.Body.String() != "fits" {
		t.Errorf("download: %d %q", rec.Code, rec.Body)
	}
}

// TestS3FullAnswers507: an S3 server that says it has no room (MinIO's 507
// XMinioStorageFull) is a 507 too.
func TestS3FullAnswers507(t *testing.T) {
	full := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusInsufficientStorage)
			_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>XMinioStorageFull</Code>` +
				`<Message>Storage backend has reached its minimum free drive threshold. Please delete a few objects to proceed.</Message>` +
				`<Resource>` + r.URL.Path + `</Resource><RequestId>1</RequestId></Error>`))
			return
		}
		w.WriteHeader(http.StatusOK) // bucket checks and the rest
	}))
	t.Cleanup(full.Close)
	backend, err := s3backend.New(context.Background(), storage.S3Config{
		Endpoint: strings.TrimPrefix(full.URL, "http://"), Bucket: "basalt-test", Region: "us-east-1",
		AccessKey: "test", SecretKey: "testsecret",
	})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnvWith(t, backend)
	e.bucket("b", false)
	wantErr(t, e.put(e.service, "b", "a.txt", "text/plain", []byte("hello"), false),
		507, "507", "InsufficientStorage", "The storage backend is out of space")
	if n := e.count(`SELECT count(*) FROM storage.objects`); n != 0 {
		t.Errorf("%d object rows after a failed upload, want 0", n)
	}
}
