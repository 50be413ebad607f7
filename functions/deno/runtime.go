// Package deno runs TypeScript edge functions, written as for Supabase
// (`Deno.serve(handler)` in supabase/functions/<name>/index.ts), on real
// Deno. Each function version runs in its own Deno process with explicit
// permissions (network; reading its own folder and _shared; writing a
// private temp folder; only its own environment variables), a V8 heap cap, a
// resident-memory cap and a CPU budget per request. Processes start on the
// first request, stop when idle, and are replaced when they crash or hit a
// limit. Requests reach them over loopback HTTP with a per-process token.
package deno

import (
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

//go:embed bootstrap.ts
var bootstrapTS []byte

// Spec is one function version to run.
type Spec struct {
	// Name is the URL segment under /functions/v1.
	Name string
	// Version tells versions apart: a new value starts a new process.
	Version string
	// Root is the folder the process starts in (the functions folder).
	Root string
	// Entrypoint is the absolute path of the module that calls Deno.serve.
	Entrypoint string
	// ReadDirs are the folders the function may read: its own and _shared.
	ReadDirs []string
	// ConfigFile is the function's deno.json (or deno.jsonc), if any.
	ConfigFile string
	// ImportMap is an import map file, from config.toml's import_map.
	ImportMap string
	// VerifyJWT is config.toml's verify_jwt (default true).
	VerifyJWT bool
}

// Config holds the runtime's settings.
type Config struct {
	// DenoBin is the deno executable.
	DenoBin string
	// WorkDir holds the bootstrap and the workers' temp folders.
	WorkDir string
	// CacheDir is DENO_DIR: downloaded npm packages and compiled modules,
	// shared by every worker.
	CacheDir string
	// MemoryMB is V8's heap limit per worker; the resident set may reach
	// twice as much before the worker is stopped.
	MemoryMB int
	// CPUBudget is the CPU time one request may use.
	CPUBudget time.Duration
	// IdleTimeout stops a worker that served nothing for that long.
	IdleTimeout time.Duration
	// TaskTimeout bounds EdgeRuntime.waitUntil: a worker idle for that long
	// is stopped even with tasks pending (Supabase's wall clock, 150 s).
	TaskTimeout time.Duration
	// StartTimeout bounds a cold start (module download and compile
	// included).
	StartTimeout time.Duration
	// WatchInterval is how often memory and CPU are sampled.
	WatchInterval time.Duration
	// URLOrigin is the origin functions see in req.url, as Supabase's
	// runtime shows them http://localhost:8000/<name>.
	URLOrigin string
	// Env gives the variables every function sees (SUPABASE_URL, keys,
	// SUPABASE_DB_URL, the project's secrets), read at each worker start.
	Env func() map[string]string
	// Logs receives console output and invocation records; nil drops them.
	Logs LogSink
	// Log is the server log.
	Log *slog.Logger
}

// LogLine is one line of a function's console output.
type LogLine struct {
	Level     string
	RequestID string
	Message   string
}

// Invocation is the record of one request.
type Invocation struct {
	RequestID string
	Method    string
	Path      string
	Status    int
	Duration  time.Duration
	Error     string
}

// LogSink keeps function logs, per function and version.
type LogSink interface {
	Line(fn, version string, l LogLine)
	Invocation(fn, version string, inv Invocation)
}

// Defaults, close to Supabase's hosted limits.
const (
	DefaultMemoryMB    = 150
	DefaultCPUBudget   = 2 * time.Second
	DefaultIdleTimeout = 60 * time.Second
	DefaultURLOrigin   = "http://localhost:8000"
)

// Runtime runs the workers.
type Runtime struct {
	cfg           Config
	log           *slog.Logger
	bootstrapPath string
	prepared      sync.Once // folders and bootstrap written before the first worker
	prepareErr    error

	mu         sync.Mutex
	workers    map[string]*worker // by function name: the current version's
	closed     bool
	stopReaper chan struct{}
}

// New prepares the runtime: the bootstrap file and the cache folder. No
// process starts before the first request.
func New(cfg Config) (*Runtime, error) {
	if cfg.DenoBin == "" {
		return nil, errors.New("deno: no deno executable configured")
	}
	if cfg.MemoryMB <= 0 {
		cfg.MemoryMB = DefaultMemoryMB
	}
	if cfg.CPUBudget <= 0 {
		cfg.CPUBudget = DefaultCPUBudget
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.TaskTimeout <= 0 {
		cfg.TaskTimeout = 150 * time.Second
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 60 * time.Second
	}
	if cfg.WatchInterval <= 0 {
		cfg.WatchInterval = 50 * time.Millisecond
	}
	if cfg.URLOrigin == "" {
		cfg.URLOrigin = DefaultURLOrigin
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Env == nil {
		cfg.Env = func() map[string]string { return nil }
	}
	for _, d := range []*string{&cfg.WorkDir, &cfg.CacheDir} {
		if *d == "" {
			return nil, errors.New("deno: WorkDir and CacheDir are required")
		}
		// Workers start in their functions folder: paths must not be relative.
		abs, err := filepath.Abs(*d)
		if err != nil {
			return nil, fmt.Errorf("deno: %w", err)
		}
		*d = abs
	}
	boot := filepath.Join(cfg.WorkDir, "bootstrap.ts")
	rt := &Runtime{cfg: cfg, log: cfg.Log, bootstrapPath: boot, workers: map[string]*worker{},
		stopReaper: make(chan struct{})}
	go rt.reap()
	return rt, nil
}

// prepare writes the folders and the bootstrap, once, when the first
// worker starts: a server that never runs a TypeScript function writes
// nothing.
func (rt *Runtime) prepare() error {
	rt.prepared.Do(func() {
		for _, d := range []string{rt.cfg.WorkDir, rt.cfg.CacheDir} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				rt.prepareErr = fmt.Errorf("deno: %w", err)
				return
			}
		}
		if err := os.WriteFile(rt.bootstrapPath, bootstrapTS, 0o600); err != nil {
			rt.prepareErr = fmt.Errorf("deno: write bootstrap: %w", err)
		}
	})
	return rt.prepareErr
}

// functionEnv is what every function sees in Deno.env.
func (rt *Runtime) functionEnv() map[string]string { return rt.cfg.Env() }

func (rt *Runtime) logLine(spec Spec, l LogLine) {
	if rt.cfg.Logs != nil {
		rt.cfg.Logs.Line(spec.Name, spec.Version, l)
	}
}

// worker returns the running worker of spec's version, starting one when
// there is none (or an older version's, which is stopped).
func (rt *Runtime) worker(spec Spec) (*worker, error) {
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return nil, errors.New("deno: runtime closed")
	}
	w := rt.workers[spec.Name]
	var old *worker
	if w != nil && w.spec.Version != spec.Version {
		old, w = w, nil
	}
	if w != nil {
		select {
		case <-w.done:
			w = nil
		default:
		}
	}
	if w == nil {
		var err error
		w, err = rt.startWorker(spec)
		if err != nil {
			rt.mu.Unlock()
			return nil, err
		}
		rt.workers[spec.Name] = w
	}
	rt.mu.Unlock()
	if old != nil {
		go old.stopWhenIdle()
	}
	select {
	case <-w.ready:
	default:
		// Starting: wait for it, bounded (a running worker skips the timer).
		t := time.NewTimer(rt.cfg.StartTimeout)
		select {
		case <-w.ready:
			t.Stop()
		case <-t.C:
			w.kill(endStart, "no answer within the start timeout")
			return nil, fmt.Errorf("function %s did not start within %s", spec.Name, rt.cfg.StartTimeout)
		}
	}
	w.mu.Lock()
	err := w.startErr
	w.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return w, nil
}

// stopWhenIdle lets an old version finish what it serves, then stops it.
func (w *worker) stopWhenIdle() {
	deadline := time.Now().Add(w.rt.cfg.IdleTimeout)
	for w.busy() && time.Now().Before(deadline) {
		select {
		case <-w.done:
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
	w.stop()
}

// workerEnded forgets an ended worker.
func (rt *Runtime) workerEnded(w *worker, reason string) {
	rt.mu.Lock()
	if rt.workers[w.spec.Name] == w {
		delete(rt.workers, w.spec.Name)
	}
	rt.mu.Unlock()
	if reason != endStopped {
		rt.log.Warn("functions: worker ended", "function", w.spec.Name, "reason", reason,
			"stderr", lastLines(w.stderr.String(), 5))
	}
}

// reap stops workers idle for longer than IdleTimeout.
func (rt *Runtime) reap() {
	tick := time.NewTicker(min(rt.cfg.IdleTimeout, rt.cfg.TaskTimeout) / 4)
	defer tick.Stop()
	for {
		select {
		case <-rt.stopReaper:
			return
		case <-tick.C:
		}
		rt.mu.Lock()
		var idle []*worker
		for _, w := range rt.workers {
			w.mu.Lock()
			// A worker still starting (a first run may download modules for
			// longer than the idle timeout) is not idle.
			quiet := time.Since(w.lastUsed)
			if w.listening && len(w.inflight) == 0 && (w.tasks == 0 && quiet > rt.cfg.IdleTimeout || quiet > rt.cfg.TaskTimeout) {
				idle = append(idle, w)
			}
			w.mu.Unlock()
		}
		rt.mu.Unlock()
		for _, w := range idle {
			w.stop()
		}
	}
}

// Running lists the functions that have a live worker.
func (rt *Runtime) Running() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var names []string
	for n := range rt.workers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Pid is the process id of the function's worker, 0 when none runs.
func (rt *Runtime) Pid(name string) int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if w := rt.workers[name]; w != nil {
		return w.cmd.Process.Pid
	}
	return 0
}

// Stop stops the worker of one function, if any (a function deleted).
func (rt *Runtime) Stop(name string) {
	rt.mu.Lock()
	w := rt.workers[name]
	rt.mu.Unlock()
	if w != nil {
		w.stop()
	}
}

// Close stops every worker.
func (rt *Runtime) Close() {
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return
	}
	rt.closed = true
	close(rt.stopReaper)
	ws := make([]*worker, 0, len(rt.workers))
	for _, w := range rt.workers {
		ws = append(ws, w)
	}
	rt.mu.Unlock()
	for _, w := range ws {
		w.stop()
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}
