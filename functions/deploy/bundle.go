// Package deploy keeps TypeScript functions deployed without a rebuild:
// versioned bundles in Postgres, the version each function serves, their
// logs and the project's sealed secrets; it serves them to the Deno runtime
// on every node and offers the admin API the `basalt functions` and
// `basalt secrets` commands call.
package deploy

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/basaltdev/basalt/functions/deno"
)

// Bundle limits: a function is source code, not a media library.
const (
	MaxBundleBytes   = 20 << 20  // compressed, as uploaded
	MaxUnpackedBytes = 100 << 20 // all files together
	MaxFiles         = 5000
)

// A bundle is a gzipped tar of a small Supabase project holding one
// function: functions/<name>/..., functions/_shared/... and config.toml
// with that function's [functions.<name>] table; files that table names
// (import_map, entrypoint) keep their paths relative to config.toml.

// Build makes the bundle of function name from a Supabase functions folder
// (supabase/functions; config.toml is read beside it).
func Build(functionsDir, name string) ([]byte, error) {
	if !deno.NameRE.MatchString(name) {
		return nil, fmt.Errorf("%q is not a valid function name", name)
	}
	functionsDir, err := filepath.Abs(functionsDir)
	if err != nil {
		return nil, err
	}
	base := filepath.Dir(functionsDir)
	if st, err := os.Stat(filepath.Join(functionsDir, name)); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("no function folder %s", filepath.Join(functionsDir, name))
	}
	var cfg struct {
		Functions map[string]map[string]any `toml:"functions"`
	}
	cfgPath := filepath.Join(base, "config.toml")
	if _, err := os.Stat(cfgPath); err == nil {
		if _, err := toml.DecodeFile(cfgPath, &cfg); err != nil {
			return nil, fmt.Errorf("%s: %w", cfgPath, err)
		}
	}
	section := cfg.Functions[name]

	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	add := func(rel string) error {
		root := filepath.Join(base, rel)
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "node_modules" || (strings.HasPrefix(d.Name(), ".") && p != root) {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil // symlinks and devices stay behind
			}
			r, err := filepath.Rel(base, p)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			hdr := &tar.Header{Name: filepath.ToSlash(r), Mode: 0o644, Size: int64(len(b))}
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			_, err = tw.Write(b)
			return err
		})
	}
	if err := add(filepath.Join("functions", name)); err != nil {
		return nil, err
	}
	if st, err := os.Stat(filepath.Join(functionsDir, "_shared")); err == nil && st.IsDir() {
		if err := add(filepath.Join("functions", "_shared")); err != nil {
			return nil, err
		}
	}
	for _, key := range []string{"import_map", "entrypoint"} {
		p, _ := section[key].(string)
		if p == "" || filepath.IsAbs(p) {
			if p != "" {
				return nil, fmt.Errorf("config.toml: functions.%s.%s must be relative to config.toml", name, key)
			}
			continue
		}
		rel := filepath.Clean(p)
		if strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("config.toml: functions.%s.%s points outside the project", name, key)
		}
		if strings.HasPrefix(filepath.ToSlash(rel), "functions/"+name+"/") || strings.HasPrefix(filepath.ToSlash(rel), "functions/_shared/") {
			continue // already in
		}
		if err := add(rel); err != nil {
			return nil, err
		}
	}
	var conf bytes.Buffer
	if err := toml.NewEncoder(&conf).Encode(map[string]any{"functions": map[string]any{name: section}}); err != nil {
		return nil, err
	}
	if err := tw.WriteHeader(&tar.Header{Name: "config.toml", Mode: 0o644, Size: int64(conf.Len())}); err != nil {
		return nil, err
	}
	if _, err := tw.Write(conf.Bytes()); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	if buf.Len() > MaxBundleBytes {
		return nil, fmt.Errorf("bundle of %s is %d bytes, over the %d byte limit", name, buf.Len(), MaxBundleBytes)
	}
	return buf.Bytes(), nil
}

// ErrBadBundle wraps every reason a bundle is refused.
var ErrBadBundle = errors.New("invalid bundle")

// Unpack writes a bundle into dir (which must be empty or absent),
// refusing paths that leave it, links, and sizes over the limits, and
// returns the spec of function name in it.
func Unpack(bundle []byte, dir, name string) (deno.Spec, error) {
	if len(bundle) > MaxBundleBytes {
		return deno.Spec{}, fmt.Errorf("%w: %d bytes, over the %d byte limit", ErrBadBundle, len(bundle), MaxBundleBytes)
	}
	gz, err := gzip.NewReader(bytes.NewReader(bundle))
	if err != nil {
		return deno.Spec{}, fmt.Errorf("%w: %v", ErrBadBundle, err)
	}
	tr := tar.NewReader(gz)
	var total int64
	files := 0
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return deno.Spec{}, fmt.Errorf("%w: %v", ErrBadBundle, err)
		}
		if hdr.Typeflag == tar.TypeDir {
			continue
		}
		if hdr.Typeflag != tar.TypeReg {
			return deno.Spec{}, fmt.Errorf("%w: %s is not a regular file", ErrBadBundle, hdr.Name)
		}
		clean := path.Clean(hdr.Name)
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return deno.Spec{}, fmt.Errorf("%w: path %q leaves the bundle", ErrBadBundle, hdr.Name)
		}
		if files++; files > MaxFiles {
			return deno.Spec{}, fmt.Errorf("%w: more than %d files", ErrBadBundle, MaxFiles)
		}
		if total += hdr.Size; total > MaxUnpackedBytes {
			return deno.Spec{}, fmt.Errorf("%w: over %d bytes unpacked", ErrBadBundle, MaxUnpackedBytes)
		}
		p := filepath.Join(dir, filepath.FromSlash(clean))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return deno.Spec{}, err
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return deno.Spec{}, err
		}
		_, err = io.Copy(f, io.LimitReader(tr, hdr.Size))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return deno.Spec{}, err
		}
	}
	specs, err := deno.ReadProject(filepath.Join(dir, "functions"))
	if err != nil {
		return deno.Spec{}, fmt.Errorf("%w: %v", ErrBadBundle, err)
	}
	for _, s := range specs {
		if s.Name == name {
			return s, nil
		}
	}
	return deno.Spec{}, fmt.Errorf("%w: no function %s with an entrypoint in it", ErrBadBundle, name)
}
