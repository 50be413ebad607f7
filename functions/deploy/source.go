package deploy

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/internal/pg"
)

// Source serves the deployed functions' active versions on this node. It
// keeps an unpacked copy of each under dir and follows changes announced
// with NOTIFY basalt_functions (and, in case a notification is missed, a
// poll), so a deploy or rollback on any node is served here within seconds.
// It also keeps the secrets, decrypted, for the functions' environment.
type Source struct {
	// Listener, when set before Run, is the node's shared listener; nil:
	// Run listens on a connection of its own.
	Listener *pg.Listener

	store *Store
	dir   string
	log   *slog.Logger
	poll  time.Duration

	refreshing sync.Mutex // one refresh at a time: they unpack into the same folders
	mu         sync.RWMutex
	specs      map[string]deno.Spec
	shas       map[string]string
	secrets    map[string]string
	changed    chan struct{} // a refresh happened (tests wait on it)
}

// NewSource loads the active versions once; Run follows changes.
func NewSource(ctx context.Context, store *Store, dir string, log *slog.Logger) (*Source, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Source{store: store, dir: dir, log: log, poll: 5 * time.Second,
		specs: map[string]deno.Spec{}, shas: map[string]string{}, changed: make(chan struct{}, 1)}
	if err := s.Refresh(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Lookup returns the active version of name.
func (s *Source) Lookup(name string) (deno.Spec, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	sp, ok := s.specs[name]
	return sp, ok
}

// Names lists the deployed functions.
func (s *Source) Names() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.specs))
	for n := range s.specs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Secrets returns the project's secrets as last loaded.
func (s *Source) Secrets() map[string]string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.secrets
}

// Refresh reloads the active versions and secrets, unpacking versions not
// seen before.
func (s *Source) Refresh(ctx context.Context) error {
	s.refreshing.Lock()
	defer s.refreshing.Unlock()
	acts, err := s.store.actives(ctx)
	if err != nil {
		return fmt.Errorf("deployed functions: %w", err)
	}
	secrets, err := s.store.Secrets(ctx)
	if err != nil {
		return fmt.Errorf("function secrets: %w", err)
	}
	specs := map[string]deno.Spec{}
	shas := map[string]string{}
	for name, a := range acts {
		spec, err := s.unpacked(ctx, name, a)
		if err != nil {
			s.log.Error("functions: a deployed version cannot be served", "function", name, "version", a.Version, "err", err)
			continue
		}
		specs[name], shas[name] = spec, a.SHA256
	}
	s.mu.Lock()
	s.specs, s.shas, s.secrets = specs, shas, secrets
	s.mu.Unlock()
	select {
	case s.changed <- struct{}{}:
	default:
	}
	return nil
}

// unpacked returns the spec of a version, unpacking it the first time.
func (s *Source) unpacked(ctx context.Context, name string, a active) (deno.Spec, error) {
	dir := filepath.Join(s.dir, name, strconv.Itoa(a.Version)+"-"+a.SHA256[:12])
	ready := filepath.Join(dir, ".ready")
	var spec deno.Spec
	if _, err := os.Stat(ready); err != nil {
		b, err := s.store.bundle(ctx, name, a.Version)
		if err != nil {
			return spec, err
		}
		tmp := dir + ".tmp"
		_ = os.RemoveAll(tmp)
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return spec, err
		}
		if _, err := Unpack(b, tmp, name); err != nil {
			_ = os.RemoveAll(tmp)
			return spec, err
		}
		_ = os.RemoveAll(dir)
		if err := os.Rename(tmp, dir); err != nil {
			return spec, err
		}
		if err := os.WriteFile(ready, nil, 0o600); err != nil {
			return spec, err
		}
	}
	specs, err := deno.ReadProject(filepath.Join(dir, "functions"))
	if err != nil {
		return spec, err
	}
	for _, sp := range specs {
		if sp.Name == name {
			sp.Version = "v" + strconv.Itoa(a.Version)
			sp.VerifyJWT = a.VerifyJWT
			return sp, nil
		}
	}
	return spec, fmt.Errorf("version %d has no entrypoint", a.Version)
}

// Run follows changes until ctx ends: NOTIFY basalt_functions, and a
// poll as a fallback.
func (s *Source) Run(ctx context.Context) {
	pg.Follow(ctx, s.Listener, s.store.db, "basalt_functions", s.poll, s.Refresh, s.log, "functions")
}
