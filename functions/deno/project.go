package deno

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/basaltdev/basalt/internal/lazy"
)

// NameRE is what a function name may be: a folder name that is also a URL
// segment.
var NameRE = lazy.NewRegexp(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// entrypoints are tried in order when config.toml names none.
var entrypoints = []string{"index.ts", "index.js", "index.tsx", "index.jsx", "index.mjs"}

// functionSettings is one `[functions.<name>]` table of config.toml.
type functionSettings struct {
	Enabled    *bool  `toml:"enabled"`
	VerifyJWT  *bool  `toml:"verify_jwt"`
	ImportMap  string `toml:"import_map"`
	Entrypoint string `toml:"entrypoint"`
}

type configFile struct {
	Functions map[string]functionSettings `toml:"functions"`
}

// ReadProject reads a Supabase project's functions: every folder of dir
// (supabase/functions) with an entrypoint, except _shared and other names
// starting with '_' or '.', with the settings of config.toml (the file
// beside dir, supabase/config.toml, when it exists; its paths are relative
// to its own folder). A folder whose name is no valid function name, or a
// setting naming a file that does not exist, is an error.
func ReadProject(dir string) ([]Spec, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("functions folder: %w", err)
	}
	base := filepath.Dir(dir)
	var cfg configFile
	cfgPath := filepath.Join(base, "config.toml")
	if _, err := os.Stat(cfgPath); err == nil {
		if _, err := toml.DecodeFile(cfgPath, &cfg); err != nil {
			return nil, fmt.Errorf("%s: %w", cfgPath, err)
		}
	}
	shared := filepath.Join(dir, "_shared")
	var specs []Spec
	var problems []error
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, "_") || strings.HasPrefix(name, ".") {
			continue
		}
		if !NameRE.MatchString(name) {
			problems = append(problems, fmt.Errorf("functions: folder %q is not a valid function name", name))
			continue
		}
		set := cfg.Functions[name]
		if set.Enabled != nil && !*set.Enabled {
			continue
		}
		spec, err := specFor(dir, base, shared, name, set)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if spec.Entrypoint == "" {
			continue // a folder without code, e.g. tests
		}
		specs = append(specs, spec)
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs, errors.Join(problems...)
}

func specFor(dir, base, shared, name string, set functionSettings) (Spec, error) {
	fnDir := filepath.Join(dir, name)
	spec := Spec{Name: name, Root: dir, VerifyJWT: set.VerifyJWT == nil || *set.VerifyJWT,
		ReadDirs: []string{fnDir}}
	if st, err := os.Stat(shared); err == nil && st.IsDir() {
		spec.ReadDirs = append(spec.ReadDirs, shared)
	}
	resolve := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(base, p)
	}
	if set.Entrypoint != "" {
		spec.Entrypoint = resolve(set.Entrypoint)
		if _, err := os.Stat(spec.Entrypoint); err != nil {
			return spec, fmt.Errorf("functions: %s: entrypoint %s: %w", name, set.Entrypoint, err)
		}
	} else {
		for _, f := range entrypoints {
			if _, err := os.Stat(filepath.Join(fnDir, f)); err == nil {
				spec.Entrypoint = filepath.Join(fnDir, f)
				break
			}
		}
	}
	if set.ImportMap != "" {
		spec.ImportMap = resolve(set.ImportMap)
		if _, err := os.Stat(spec.ImportMap); err != nil {
			return spec, fmt.Errorf("functions: %s: import_map %s: %w", name, set.ImportMap, err)
		}
	}
	for _, f := range []string{"deno.json", "deno.jsonc"} {
		if _, err := os.Stat(filepath.Join(fnDir, f)); err == nil {
			spec.ConfigFile = filepath.Join(fnDir, f)
			break
		}
	}
	// An import map given in config.toml is read by Deno as a config file
	// would be when it is one (deno.json with "imports").
	if spec.ImportMap != "" && spec.ConfigFile == "" && isDenoConfig(spec.ImportMap) {
		spec.ConfigFile, spec.ImportMap = spec.ImportMap, ""
	}
	if spec.ImportMap != "" && !slices.Contains(spec.ReadDirs, filepath.Dir(spec.ImportMap)) {
		spec.ReadDirs = append(spec.ReadDirs, filepath.Dir(spec.ImportMap))
	}
	v, err := versionOf(append(slices.Clone(spec.ReadDirs), spec.ImportMap, spec.ConfigFile, spec.Entrypoint)...)
	if err != nil {
		return spec, fmt.Errorf("functions: %s: %w", name, err)
	}
	spec.Version = v
	return spec, nil
}

func isDenoConfig(p string) bool {
	b := filepath.Base(p)
	return b == "deno.json" || b == "deno.jsonc"
}

// versionOf hashes the names, sizes and modification times of the files
// under paths: a change to any of them is a new version.
func versionOf(paths ...string) (string, error) {
	h := sha256.New()
	for _, p := range paths {
		if p == "" {
			continue
		}
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != p {
					return filepath.SkipDir
				}
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00%d\x00%d\n", path, info.Size(), info.ModTime().UnixNano())
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// LocalSource serves a functions folder. With a watch interval it rescans
// the folder, so edits are served on the next request after the scan.
type LocalSource struct {
	dir string
	mu  sync.RWMutex
	by  map[string]Spec
	err error
}

// NewLocalSource reads dir once and, when every > 0, again every interval
// until stop is closed.
func NewLocalSource(dir string, every time.Duration, stop <-chan struct{}) (*LocalSource, error) {
	s := &LocalSource{dir: dir}
	if err := s.rescan(); err != nil {
		return nil, err
	}
	if every > 0 {
		go func() {
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					_ = s.rescan() // the last good scan stays served; the error is kept for Err
				}
			}
		}()
	}
	return s, nil
}

func (s *LocalSource) rescan() error {
	specs, err := ReadProject(s.dir)
	by := make(map[string]Spec, len(specs))
	for _, sp := range specs {
		by[sp.Name] = sp
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.err = err
	if err != nil && s.by != nil {
		return err
	}
	s.by = by
	return err
}

// Lookup returns the current version of the function called name.
func (s *LocalSource) Lookup(name string) (Spec, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sp, ok := s.by[name]
	return sp, ok
}

// Names lists the functions found.
func (s *LocalSource) Names() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.by))
	for n := range s.by {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Err is the problem of the last scan, if any.
func (s *LocalSource) Err() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.err
}
