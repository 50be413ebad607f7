// Package fsbackend stores object bytes in a local directory. Writes go to a
// temporary file that is renamed into place, so a reader never sees a
// partial file, and key segments are escaped so no object name can leave
// the root (no "..", no empty or hidden segments).
package fsbackend

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/basaltdev/basalt/storage"
)

// tmpDir holds writes in progress; it sits inside the root so that the final
// rename stays on one filesystem and is atomic.
const tmpDir = ".tmp"

// Backend is a storage.Backend on the local filesystem.
type Backend struct {
	root string
}

var _ storage.Backend = (*Backend)(nil)

// New returns a backend rooted at dir, creating it if needed.
func New(dir string) (*Backend, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("storage dir %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(abs, tmpDir), 0o750); err != nil {
		return nil, fmt.Errorf("create storage dir %s: %w", abs, err)
	}
	return &Backend{root: abs}, nil
}

// Root returns the directory the backend writes under.
func (b *Backend) Root() string { return b.root }

// path maps a key to a file path: each '/'-separated segment is escaped on
// its own, so the result always stays below the root. The last segment (the
// file) also gets a leafMark, which escaping never produces, so a key and
// a longer key below it ("b/a" and "b/a/v1") never need the same path as
// both a file and a directory.
func (b *Backend) path(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = escapeSegment(s)
	}
	segs[len(segs)-1] = leafMark + segs[len(segs)-1]
	return filepath.Join(append([]string{b.root}, segs...)...)
}

// unmarkedPath is where builds before the leaf mark kept key's file.
func (b *Backend) unmarkedPath(key string) string {
	p := b.path(key)
	return filepath.Join(filepath.Dir(p), strings.TrimPrefix(filepath.Base(p), leafMark))
}

// isFile reports whether p is a regular file.
func isFile(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// leafMark starts every file name; '~' is always escaped inside segments.
const leafMark = "~"

// escapeSegment keeps [A-Za-z0-9_-] and non-leading dots, and writes every
// other byte as %XX. An empty segment becomes "%" (never produced by the
// escaping otherwise), so "a//b" and "a/b" stay distinct.
func escapeSegment(s string) string {
	if s == "" {
		return "%"
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
			sb.WriteByte(c)
		case c == '.' && i > 0:
			sb.WriteByte(c)
		default:
			fmt.Fprintf(&sb, "%%%02X", c)
		}
	}
	return sb.String()
}

// unescapeSegment reverses escapeSegment.
func unescapeSegment(s string) (string, error) {
	if s == "%" {
		return "", nil
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			sb.WriteByte(s[i])
			continue
		}
		if i+3 > len(s) {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		v, err := hex.DecodeString(s[i+1 : i+3])
		if err != nil {
			return "", fmt.Errorf("bad escape in %q: %w", s, err)
		}
		sb.Write(v)
		i += 2
	}
	return sb.String(), nil
}

// Put writes r to a temporary file, syncs it and renames it to key.
func (b *Backend) Put(ctx context.Context, key string, r io.Reader, size int64, _ string) error {
	dst := b.path(key)
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return fmt.Errorf("create dir for %s: %w", key, tooLong(err))
	}
	f, err := os.CreateTemp(filepath.Join(b.root, tmpDir), "put-*")
	if err != nil {
		return fmt.Errorf("create temp file: %w", err)
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			os.Remove(tmp)
		}
	}()
	buf := bufPool.Get().(*[]byte)
	defer bufPool.Put(buf)
	// The anonymous struct hides (*os.File).ReadFrom, whose generic path
	// would copy through a 32 KB buffer: large reads mean fewer syscalls.
	n, err := io.CopyBuffer(struct{ io.Writer }{f}, ctxReader{ctx, r}, *buf)
	if err != nil {
		return fmt.Errorf("write %s: %w", key, noSpace(err))
	}
	if size >= 0 && n != size {
		return fmt.Errorf("write %s: got %d bytes, want %d", key, n, size)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", key, noSpace(err))
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", key, noSpace(err))
	}
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("rename into %s: %w", key, tooLong(err))
	}
	ok = true
	return nil
}

// noSpace marks a full disk or an exhausted quota as storage.ErrNoSpace.
func noSpace(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: %w", storage.ErrNoSpace, err)
	}
	return err
}

// tooLong marks a path the file system cannot hold (a segment past its
// limit on a name) as storage.ErrKeyTooLong.
func tooLong(err error) error {
	if errors.Is(err, syscall.ENAMETOOLONG) {
		return fmt.Errorf("%w: %w", storage.ErrKeyTooLong, err)
	}
	return err
}

// bufPool holds copy buffers for Put.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 256<<10); return &b }}

// ctxReader stops a long copy when the request is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Get opens key at offset, limited to length bytes when length >= 0.
func (b *Backend) Get(_ context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	f, err := os.Open(b.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		// Data directories written before files carried the leaf mark.
		if legacy := b.unmarkedPath(key); isFile(legacy) {
			f, err = os.Open(legacy)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, storage.ErrNotExist
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", key, err)
	}
	if offset > 0 {
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("seek %s: %w", key, err)
		}
	}
	if length < 0 {
		return f, nil
	}
	return &section{LimitedReader: io.LimitedReader{R: f, N: length}, f: f}, nil
}

// section is length bytes of an open file. Its WriteTo hands the writer an
// *io.LimitedReader over the *os.File, the one shape net/http's ReadFrom
// turns into sendfile(2); any other wrapper would make the server copy the
// bytes through user space.
type section struct {
	io.LimitedReader
	f *os.File
}

// WriteTo copies the section to w, zero-copy when w is a socket writer.
func (s *section) WriteTo(w io.Writer) (int64, error) {
	if rf, ok := w.(io.ReaderFrom); ok {
		return rf.ReadFrom(&s.LimitedReader)
	}
	return io.Copy(w, struct{ io.Reader }{&s.LimitedReader})
}

// Close closes the file.
func (s *section) Close() error { return s.f.Close() }

// Copy duplicates src into dst through a temporary file.
func (b *Backend) Copy(ctx context.Context, src, dst string) error {
	r, err := b.Get(ctx, src, 0, -1)
	if err != nil {
		return err
	}
	defer r.Close()
	return b.Put(ctx, dst, r, -1, "")
}

// Delete removes keys and any directories they leave empty.
func (b *Backend) Delete(_ context.Context, keys ...string) error {
	var errs []error
	for _, k := range keys {
		paths := []string{b.path(k)}
		if legacy := b.unmarkedPath(k); isFile(legacy) {
			paths = append(paths, legacy)
		}
		for _, p := range paths {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("delete %s: %w", k, err))
				continue
			}
			b.pruneDirs(filepath.Dir(p))
		}
	}
	return errors.Join(errs...)
}

// pruneDirs removes empty parent directories up to the root; Remove fails on
// a non-empty directory, which ends the walk.
func (b *Backend) pruneDirs(dir string) {
	for dir != b.root && strings.HasPrefix(dir, b.root+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// Walk visits stored keys under prefix, skipping writes in progress.
func (b *Backend) Walk(ctx context.Context, prefix string, fn func(string, time.Time) error) error {
	return filepath.WalkDir(b.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(b.root, p)
		if d.IsDir() {
			if rel == tmpDir {
				return filepath.SkipDir
			}
			return nil
		}
		segs := strings.Split(filepath.ToSlash(rel), "/")
		last, ok := strings.CutPrefix(segs[len(segs)-1], leafMark)
		if !ok {
			return nil // not a file this backend wrote
		}
		segs[len(segs)-1] = last
		for i, s := range segs {
			if segs[i], err = unescapeSegment(s); err != nil {
				return nil // not a file this backend wrote
			}
		}
		key := strings.Join(segs, "/")
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		return fn(key, info.ModTime())
	})
}

// SweepTemp removes temporary files older than age: writes that a crash
// interrupted before their rename.
func (b *Backend) SweepTemp(age time.Duration, now time.Time) (int, error) {
	entries, err := os.ReadDir(filepath.Join(b.root, tmpDir))
	if err != nil {
		return 0, fmt.Errorf("read temp dir: %w", err)
	}
	n := 0
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < age {
			continue
		}
		if os.Remove(filepath.Join(b.root, tmpDir, e.Name())) == nil {
			n++
		}
	}
	return n, nil
}
