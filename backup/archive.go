package backup

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// packInto writes the backup in dir as a tar (gzipped when gz) to out, via
// a temporary file renamed into place. manifest.json goes first, so a
// reader streaming the tar learns what it holds before the bulk.
func packInto(dir, out string, gz bool) (err error) {
	f, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			os.Remove(f.Name())
		}
	}()
	var w io.Writer = f
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(f)
		w = zw
	}
	tw := tar.NewWriter(w)
	files := []string{manifestFile, dumpFile}
	err = filepath.WalkDir(filepath.Join(dir, objectsDir), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	for _, rel := range files {
		if err := addFile(tw, dir, rel); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return err
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), out)
}

func addFile(tw *tar.Writer, dir, rel string) error {
	f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	hdr := &tar.Header{Name: rel, Mode: 0o600, Size: st.Size(), ModTime: st.ModTime(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// readTarManifest reads manifest.json from a backup tar without unpacking
// the rest; Backup writes it as the first entry.
func readTarManifest(archive string) (*Manifest, error) {
	tmp, err := os.MkdirTemp("", "basalt-manifest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := unpackEntries(archive, tmp, func(name string) bool { return name == manifestFile }); err != nil {
		return nil, err
	}
	return readManifest(tmp)
}

// unpack extracts a backup tar (gzipped or not) into dir. Only the entries
// a backup has are accepted: regular files at clean relative paths.
func unpack(archive, dir string) error {
	return unpackEntries(archive, dir, nil)
}

// unpackEntries extracts the entries only accepts (all when nil), stopping
// after the first one when only is given.
func unpackEntries(archive, dir string, only func(string) bool) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if _, gz := archiveKind(archive); gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s: %w", archive, err)
		}
		defer zr.Close()
		r = zr
	}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", archive, err)
		}
		if hdr.Typeflag == tar.TypeDir {
			continue
		}
		name := path.Clean(hdr.Name)
		if hdr.Typeflag != tar.TypeReg || path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("%s: unexpected entry %q", archive, hdr.Name)
		}
		if only != nil && !only(name) {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return err
		}
		if err := writeFile(dst, tr); err != nil {
			return err
		}
		if only != nil {
			return nil
		}
	}
}

func writeFile(dst string, r io.Reader) error {
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, r)
	return errors.Join(err, out.Close())
}
