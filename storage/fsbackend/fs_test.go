package fsbackend

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/basaltdev/basalt/storage"
)

func TestEscapeKeepsEveryKeyInsideTheRoot(t *testing.T) {
	t.Parallel()
	b, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key  string
		want string // path relative to the root
	}{
		{"bucket/a.txt/v1", "bucket/a.txt/~v1"},
		{"bucket/../../etc/passwd", "bucket/%2E./%2E./etc/~passwd"},
		{"bucket/./x", "bucket/%2E/~x"},
		{"bucket//x", "bucket/%/~x"},
		{"b/.hidden", "b/~%2Ehidden"},
		{"b/~x/..", "b/%7Ex/~%2E."},
		{"b/sp ace&$=@;:+,?*'()!", "b/~sp%20ace%26%24%3D%40%3B%3A%2B%2C%3F%2A%27%28%29%21"},
		{"#tus/abc/0", "%23tus/abc/~0"},
		{".tmp", "~%2Etmp"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			t.Parallel()
			got, err := filepath.Rel(b.root, b.path(tt.key))
			if err != nil || got != filepath.FromSlash(tt.want) {
				t.Errorf("path(%q) = %q, %v; want %q", tt.key, got, err, tt.want)
			}
			// Every segment round-trips.
			for _, seg := range strings.Split(tt.key, "/") {
				if back, err := unescapeSegment(escapeSegment(seg)); err != nil || back != seg {
					t.Errorf("segment %q round-trips to %q, %v", seg, back, err)
				}
			}
		})
	}
}

// failingReader yields some bytes, then an error, like a dropped upload.
type failingReader struct{ n int }

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("connection reset")
	}
	k := min(len(p), f.n)
	for i := range k {
		p[i] = 'x'
	}
	f.n -= k
	return k, nil
}

func TestPutIsAtomic(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, "b/k/v1", strings.NewReader("complete"), 8, "text/plain"); err != nil {
		t.Fatal(err)
	}
	// A broken write leaves neither a file nor a temp file behind.
	if err := b.Put(ctx, "b/k/v2", &failingReader{n: 100}, -1, ""); err == nil {
		t.Fatal("broken write succeeded")
	}
	if err := b.Put(ctx, "b/k/v3", strings.NewReader("short"), 10, ""); err == nil {
		t.Fatal("short write succeeded")
	}
	if _, err := b.Get(ctx, "b/k/v2", 0, -1); !errors.Is(err, storage.ErrNotExist) {
		t.Errorf("partial file visible: %v", err)
	}
	tmp, _ := os.ReadDir(filepath.Join(b.root, tmpDir))
	if len(tmp) != 0 {
		t.Errorf("temp files left: %d", len(tmp))
	}
	var keys []string
	_ = b.Walk(ctx, "", func(k string, _ time.Time) error { keys = append(keys, k); return nil })
	if len(keys) != 1 || keys[0] != "b/k/v1" {
		t.Errorf("keys = %v", keys)
	}
	// Ranges.
	r, err := b.Get(ctx, "b/k/v1", 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	_ = r.Close()
	if string(got) != "plet" {
		t.Errorf("range = %q", got)
	}
	// Delete prunes empty directories up to the root.
	if err := b.Delete(ctx, "b/k/v1", "b/never"); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(b.root); len(entries) != 1 {
		t.Errorf("root holds %d entries after delete, want only %s", len(entries), tmpDir)
	}
}

func TestSweepTemp(t *testing.T) {
	t.Parallel()
	b, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.root, tmpDir, "put-crashed"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n, _ := b.SweepTemp(time.Hour, time.Now()); n != 0 {
		t.Errorf("young temp file swept")
	}
	if n, _ := b.SweepTemp(time.Hour, time.Now().Add(2*time.Hour)); n != 1 {
		t.Errorf("old temp file kept")
	}
}

// TestLegacyLayout reads and deletes files written before the leaf mark.
func TestLegacyLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	legacy := b.unmarkedPath("b/old.txt/v1")
	if err := os.MkdirAll(filepath.Dir(legacy), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(legacy, []byte("old bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := b.Get(ctx, "b/old.txt/v1", 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	_ = r.Close()
	if string(got) != "old bytes" {
		t.Errorf("legacy read = %q", got)
	}
	if err := b.Delete(ctx, "b/old.txt/v1"); err != nil {
		t.Fatal(err)
	}
	if isFile(legacy) {
		t.Error("legacy file survived delete")
	}
}

// readFromSpy records what io.Copy hands to a ReaderFrom destination.
type readFromSpy struct {
	src io.Reader
	buf strings.Builder
}

func (s *readFromSpy) Write(p []byte) (int, error) { return s.buf.Write(p) }

func (s *readFromSpy) ReadFrom(r io.Reader) (int64, error) {
	s.src = r
	return io.Copy(&s.buf, r)
}

// TestGetRangeKeepsTheSendfileShape checks that a ranged read hands the
// destination's ReadFrom an *io.LimitedReader over the *os.File, the shape
// net/http turns into sendfile, and still yields exactly the range.
func TestGetRangeKeepsTheSendfileShape(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, "bk/obj/v1", strings.NewReader("0123456789"), 10, ""); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		offset, length int64
		want           string
	}{
		{0, 10, "0123456789"},
		{2, 5, "23456"},
		{9, 1, "9"},
	}
	for _, tt := range tests {
		r, err := b.Get(ctx, "bk/obj/v1", tt.offset, tt.length)
		if err != nil {
			t.Fatal(err)
		}
		spy := &readFromSpy{}
		if _, err := io.Copy(spy, r); err != nil {
			t.Fatal(err)
		}
		_ = r.Close()
		if spy.buf.String() != tt.want {
			t.Errorf("Get(%d, %d) = %q, want %q", tt.offset, tt.length, spy.buf.String(), tt.want)
		}
		lr, ok := spy.src.(*io.LimitedReader)
		if !ok {
			t.Fatalf("Get(%d, %d): ReadFrom got %T, want *io.LimitedReader", tt.offset, tt.length, spy.src)
		}
		if _, ok := lr.R.(*os.File); !ok {
			t.Errorf("Get(%d, %d): the limited reader wraps %T, want *os.File", tt.offset, tt.length, lr.R)
		}
	}
}
