// Package functions serves /functions/v1/{name}: a registry of Go handlers
// that stand in for Supabase Edge Functions. It reproduces what
// @supabase/functions-js observes of the Supabase gateway and edge runtime:
// routing on the first path segment, the per-function verify_jwt check, CORS
// on every response, and the runtime's error bodies. The handlers themselves
// (Backline's live in functions/backline) only see plain HTTP plus the
// caller the gateway verified.
package functions

import (
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/basaltdev/basalt/functions/deno"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/httpx"
	"github.com/basaltdev/basalt/internal/jwt"
)

// Function is one entry of the registry: the name is the first path segment
// under /functions/v1, as a folder name under supabase/functions is.
type Function struct {
	// Name is the URL segment: letters, digits, '-' and '_'.
	Name string
	// VerifyJWT mirrors supabase/config.toml's per-function verify_jwt: when
	// true (Supabase's default) a request needs a valid project JWT before
	// the handler runs. OPTIONS preflights always pass.
	VerifyJWT bool
	// Handler serves every method on /{name} and /{name}/{rest...}; it sees
	// the path below the function name in r.URL.Path ("/" when none).
	Handler httpx.HandlerFunc

	// script is a TypeScript function's version, served by Deno (Handler
	// is nil then).
	script deno.Spec
}

// Config holds the service's settings.
type Config struct {
	// TypeScript is how TypeScript functions run (Deno); see TSConfig.
	TypeScript TSConfig
	// Timeout is the wall-clock limit of one invocation (Supabase: 150 s on
	// the free plan, 400 s on paid plans and locally).
	Timeout time.Duration
	// MaxBodyBytes caps a request body (FUNCTIONS_MAX_BODY_BYTES).
	MaxBodyBytes int64
	// NoVerifyJWT lists functions whose verify_jwt is forced off, the
	// operator's equivalent of `verify_jwt = false` in config.toml.
	NoVerifyJWT []string
	// Keys, when set, verify the Authorization header of requests that did
	// not come through the gateway (no jwt.Caller in the context). Behind
	// the gateway they are not used.
	Keys *jwt.Keys
	// GatewayCORS says a gateway in front applies the operator's CORS
	// policy (preflights and Access-Control-Allow-Origin on every response),
	// so the service adds no CORS headers of its own and never widens that
	// policy. Off, the service answers preflights and adds the canonical
	// headers itself, as a hosted Supabase function does.
	GatewayCORS bool
	// Log receives handler errors and panics; nil discards them.
	Log *slog.Logger
	// Now is the clock for JWT checks; nil means time.Now.
	Now func() time.Time
	// Deno runs the TypeScript functions of Sources; nil serves Go
	// handlers only.
	Deno *deno.Runtime
	// Admin serves /_admin (deploys, secrets, logs); nil: not mounted.
	Admin http.Handler
	// Sources are the TypeScript functions: a project folder, deployed
	// versions. The first that has a name serves it; a Go handler of the
	// same name is refused at start.
	Sources []Source
}

// Source is a set of TypeScript functions that may change while Basalt
// runs (files edited, versions deployed).
type Source interface {
	Lookup(name string) (deno.Spec, bool)
	Names() []string
}

// TSConfig holds the settings of TypeScript functions: where they are, the
// Deno executable, each worker's limits, logs and secrets.
type TSConfig struct {
	// Dir is the Supabase functions folder served from files
	// (supabase/functions; config.toml beside it). Absent: none.
	Dir string
	// DenoBin is DENO_BIN; empty: found on PATH or under .tools/.
	DenoBin string
	// MemoryMB is the V8 heap limit of a worker.
	MemoryMB int
	// CPUBudget is the CPU time one request may use.
	CPUBudget time.Duration
	// IdleTimeout stops a worker that served nothing for that long.
	IdleTimeout time.Duration
	// LogRetention is how long function logs are kept.
	LogRetention time.Duration
	// SecretsKey seals secrets (BASALT_SECRETS_KEY); empty: derived from
	// the project's JWT secret.
	SecretsKey string
}

// DefaultMaxBodyBytes bounds a function's request body.
const DefaultMaxBodyBytes = 20 << 20

// DefaultTimeout is Supabase's free-plan wall clock per request.
const DefaultTimeout = 150 * time.Second

// ConfigFromEnv reads the service's variables:
//
//	FUNCTIONS_TIMEOUT        wall clock per invocation (Go duration, default 150s)
//	FUNCTIONS_NO_VERIFY_JWT  comma-separated function names with verify_jwt off
//	FUNCTIONS_MAX_BODY_BYTES request body limit (default 20 MiB)
//	BASALT_FUNCTIONS_DIR     TypeScript functions folder (default supabase/functions)
//	DENO_BIN                 the deno executable (default: PATH, then .tools/)
//	FUNCTIONS_MEMORY_MB      V8 heap per worker (default 150; resident cap twice that)
//	FUNCTIONS_CPU_BUDGET     CPU time per request (default 2s)
//	FUNCTIONS_IDLE_TIMEOUT   idle worker stop (default 60s)
//	FUNCTIONS_LOG_RETENTION  how long function logs are kept (default 168h)
//	BASALT_SECRETS_KEY       key sealing the secrets (default: from the JWT secret)
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	r := config.NewReader(getenv)
	cfg := Config{
		Timeout:      r.PositiveDuration("FUNCTIONS_TIMEOUT", DefaultTimeout),
		MaxBodyBytes: r.PositiveInt64("FUNCTIONS_MAX_BODY_BYTES", DefaultMaxBodyBytes),
		NoVerifyJWT:  r.List("FUNCTIONS_NO_VERIFY_JWT", nil),
		TypeScript: TSConfig{
			Dir:          r.String("BASALT_FUNCTIONS_DIR", "supabase/functions"),
			DenoBin:      r.String("DENO_BIN", ""),
			MemoryMB:     int(r.IntBetween("FUNCTIONS_MEMORY_MB", deno.DefaultMemoryMB, 32, 16384)),
			CPUBudget:    r.PositiveDuration("FUNCTIONS_CPU_BUDGET", deno.DefaultCPUBudget),
			IdleTimeout:  r.PositiveDuration("FUNCTIONS_IDLE_TIMEOUT", deno.DefaultIdleTimeout),
			LogRetention: r.PositiveDuration("FUNCTIONS_LOG_RETENTION", 7*24*time.Hour),
		},
	}
	r.ParseSecret("BASALT_SECRETS_KEY", func(v string) error {
		if len(v) < 32 {
			return fmt.Errorf("must be at least 32 characters")
		}
		cfg.TypeScript.SecretsKey = v
		return nil
	})
	return cfg, r.Err()
}

// Service implements /functions/v1 (mounted with the prefix stripped).
type Service struct {
	cfg   Config
	funcs map[string]Function
	log   *slog.Logger
	now   func() time.Time
}

var _ http.Handler = (*Service)(nil)

// New builds the service from its config and the functions to serve. It
// rejects invalid or duplicate names, so a misconfigured registry never
// starts.
func New(cfg Config, registry ...Function) (*Service, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	s := &Service{cfg: cfg, funcs: make(map[string]Function, len(registry)), log: cfg.Log, now: cfg.Now}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	for _, f := range registry {
		if !deno.NameRE.MatchString(f.Name) {
			return nil, fmt.Errorf("functions: invalid function name %q", f.Name)
		}
		if f.Handler == nil {
			return nil, fmt.Errorf("functions: function %q has no handler", f.Name)
		}
		if _, dup := s.funcs[f.Name]; dup {
			return nil, fmt.Errorf("functions: function %q registered twice", f.Name)
		}
		s.funcs[f.Name] = f
	}
	if len(cfg.Sources) > 0 && cfg.Deno == nil {
		return nil, fmt.Errorf("functions: TypeScript functions need the Deno runtime")
	}
	for _, src := range cfg.Sources {
		for _, name := range src.Names() {
			if _, dup := s.funcs[name]; dup {
				return nil, fmt.Errorf("functions: %q is both a Go function and a TypeScript function: rename one", name)
			}
		}
	}
	for _, name := range cfg.NoVerifyJWT {
		f, ok := s.funcs[name]
		if !ok && s.tsFunction(name) {
			continue // applied at each lookup
		}
		if !ok {
			return nil, fmt.Errorf("functions: FUNCTIONS_NO_VERIFY_JWT names unknown function %q", name)
		}
		f.VerifyJWT = false
		s.funcs[name] = f
	}
	return s, nil
}

// Names returns the function names, Go and TypeScript, for the start
// banner.
func (s *Service) Names() []string {
	names := slices.Collect(maps.Keys(s.funcs))
	for _, src := range s.cfg.Sources {
		names = append(names, src.Names()...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// tsFunction reports whether a source has a TypeScript function name.
func (s *Service) tsFunction(name string) bool {
	_, ok := s.lookupTS(name)
	return ok
}

func (s *Service) lookupTS(name string) (deno.Spec, bool) {
	for _, src := range s.cfg.Sources {
		if spec, ok := src.Lookup(name); ok {
			return spec, true
		}
	}
	return deno.Spec{}, false
}
