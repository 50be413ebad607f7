package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/basaltdev/basalt/internal/accesslog"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/basaltdev/basalt/gateway"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/telemetry"
	"github.com/basaltdev/basalt/sql/platform"
	"github.com/basaltdev/basalt/studio"
)

// newLogger writes JSON log lines to w at the configured level. Lines
// logged with a request's context carry its request id (and trace id).
func newLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(level))
	return slog.New(telemetry.NewLogHandler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})))
}

// startTracing turns the OTLP trace exporter on when the OTEL_ variables
// ask for it; it must run before the pools open, which install the pgx
// tracer only while tracing is on. The returned function flushes the spans
// still buffered.
func startTracing(ctx context.Context, getenv func(string) string, log *slog.Logger) (func(), error) {
	cfg, err := telemetry.ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	shutdown, err := telemetry.Setup(ctx, cfg, buildVersion())
	if err != nil {
		return nil, err
	}
	if cfg.Traces {
		log.Info("exporting traces over OTLP", "endpoint", cfg.Endpoint)
	}
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(sctx); err != nil {
			log.Warn("flush traces", "err", err)
		}
	}, nil
}

// migrationSources are the platform migrations (embedded) followed by the
// app's, read from sqlDir/app when that folder exists. Between the two the
// default privileges on public are set (BASALT_PUBLIC_DEFAULT_GRANTS), so
// the app's new tables get them.
func migrationSources(sqlDir string, publicGrants bool) []migrate.Source {
	srcs := []migrate.Source{platform.Source(publicGrants)}
	app := filepath.Join(sqlDir, "app")
	if st, err := os.Stat(app); err == nil && st.IsDir() {
		srcs = append(srcs, migrate.Source{Name: "app", FS: os.DirFS(app)})
	}
	return srcs
}

// applyMigrations runs every pending migration and logs each file.
func applyMigrations(ctx context.Context, admin *pgxpool.Pool, sqlDir string, publicGrants bool, log *slog.Logger) error {
	applied, err := migrate.Up(ctx, admin, func(msg string) { log.Info(msg) }, migrationSources(sqlDir, publicGrants)...)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	log.Info("migrations up to date", "applied", len(applied))
	return nil
}

// applySeeds runs every sqlDir/seed/*.sql in name order, each in its own
// transaction. Seed files are written to be idempotent: dev runs them on
// every start.
func applySeeds(ctx context.Context, admin *pgxpool.Pool, sqlDir string, log *slog.Logger) error {
	dir := filepath.Join(sqlDir, "seed")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("read seed folder: %w", err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".sql") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return fmt.Errorf("read seed %s: %w", n, err)
		}
		// A seed that fails leaves nothing half-inserted, and the error
		// names the file.
		err = pgx.BeginFunc(ctx, admin, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, string(b))
			return err
		})
		if err != nil {
			return fmt.Errorf("seed %s: %w", n, err)
		}
		log.Info("applied seed", "file", n)
	}
	return nil
}

// stack is a running API: the gateway and the app server. dev and serve
// differ only in where the database, pools and keys come from; from here on
// they share one code path.
type stack struct {
	cfg  config.Config
	log  *slog.Logger
	keys *jwt.Keys
	api  net.Listener
	app  net.Listener // nil when the app server is off
	// front is what the API port serves: gateway.Starting until mount
	// hands it the gateway, so probes get answers while migrations run.
	front   *gateway.Handoff
	handler *gateway.Gateway
	appH    *gateway.App
	cleanup func()
	closed  sync.Once

	// Studio, when on: its listener (nil when off), settings and the
	// handler its port serves (starting until mountStudio).
	studio      net.Listener
	studioCfg   studio.Config
	studioFront *gateway.Handoff
}

// listen opens the API (and app) listeners so the ports are known and taken
// before anything is announced.
func listen(host string, port int) (net.Listener, error) {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return ln, nil
}

// newStack opens the listeners and builds the app server; the API answers
// gateway.Starting until mount.
func newStack(cfg config.Config, keys *jwt.Keys, log *slog.Logger) (*stack, error) {
	// Listen first: services build links from the API URL, which is only
	// known once the port is bound (BASALT_API_PORT=0 picks a free one).
	s := &stack{cfg: cfg, log: log, keys: keys, front: gateway.NewHandoff(gateway.Starting(buildVersion())), cleanup: func() {}}
	var err error
	if s.api, err = listen(cfg.Host, cfg.APIPort); err != nil {
		return nil, err
	}
	if cfg.AppPort > 0 {
		if s.app, err = listen(cfg.Host, cfg.AppPort); err != nil {
			_ = s.api.Close()
			return nil, err
		}
	}
	if s.cfg.PublicURL == "" {
		s.cfg.PublicURL = fmt.Sprintf("http://127.0.0.1:%d", s.api.Addr().(*net.TCPAddr).Port)
	}
	s.appH = gateway.NewApp(gateway.AppConfig{
		Dir: s.cfg.AppDir,
		Runtime: gateway.RuntimeConfig{
			SupabaseURL:            s.cfg.PublicURL,
			SupabaseAnonKey:        keys.AnonKey,
			SupabasePublishableKey: keys.PublishableKey,
		},
	}, log)
	return s, nil
}

// pools are the database connections services run on.
type pools struct {
	admin   *pgxpool.Pool // DATABASE_URL role
	user    *pgxpool.Pool // authenticator on the primary
	replica *pgxpool.Pool // authenticator on the read replica; nil without one
}

// mount wires services and gateway over the pools and hands the API port
// to the gateway.
func (s *stack) mount(ctx context.Context, mode config.Mode, getenv func(string) string, p pools) error {
	cfg := s.cfg
	_, appURL := s.urls()
	// One registry for /metrics: the gateway's series, the pools' and
	// whatever the services register.
	reg := prometheus.NewRegistry()
	named := map[string]*pgxpool.Pool{"admin": p.admin, "user": p.user}
	if p.replica != nil {
		named["replica"] = p.replica
	}
	if err := reg.Register(telemetry.NewPoolCollector(named)); err != nil {
		return err
	}
	// One LISTEN connection for the node's control-plane notifications,
	// closed after every service that subscribed to it.
	listener := pg.NewListener(p.admin, s.log)
	svcs, cleanup, err := buildServices(ctx, deps{Mode: mode, Config: cfg, Getenv: getenv, Admin: p.admin, User: p.user,
		Replica: p.replica, Listener: listener, Keys: s.keys, Log: s.log, Metrics: reg, PublicURL: cfg.PublicURL, AppURL: appURL})
	stopServices := cleanup
	cleanup = func() { stopServices(); listener.Close() }
	if err != nil {
		cleanup()
		return fmt.Errorf("build services: %w", err)
	}
	keyStore, stopKeys, err := apiKeyStore(ctx, p.admin, listener, s.keys, s.log)
	if err != nil {
		cleanup()
		return fmt.Errorf("api keys: %w", err)
	}
	logCfg, err := accesslog.ConfigFromEnv(getenv)
	if err != nil {
		stopKeys()
		cleanup()
		return err
	}
	host, _ := os.Hostname()
	logCfg.Node = net.JoinHostPort(host, strconv.Itoa(s.api.Addr().(*net.TCPAddr).Port))
	access, err := accesslog.New(p.admin, logCfg, s.log, reg)
	if err != nil {
		stopKeys()
		cleanup()
		return err
	}
	// The access log is written until the last request is answered.
	stopAll := cleanup
	cleanup = func() { stopAll(); access.Close() }
	s.handler, err = gateway.New(gateway.Config{
		AccessLog:          access,
		CORSOrigins:        cfg.CORSOrigins,
		TrustedProxyHeader: cfg.TrustedProxyHeader,
		Version:            buildVersion(),
		Health:             func(ctx context.Context) error { return p.admin.Ping(ctx) },
		Details:            healthDetails(p.admin),
		Registry:           reg,
		APIKeys:            keyStore,
	}, svcs, s.keys, s.log)
	if err != nil {
		stopKeys()
		cleanup()
		return err
	}
	s.cleanup = func() { stopKeys(); cleanup() }
	if pv := theApp.Previews; pv != nil {
		if err := s.appH.UsePreviews(gateway.PreviewConfig{DB: p.user, Function: pv.Function, Paths: pv.Paths, APIURL: cfg.PublicURL}); err != nil {
			return err
		}
	}
	if err := s.mountStudio(ctx, mode, p, reg, getenv); err != nil {
		return fmt.Errorf("studio: %w", err)
	}
	s.front.Set(s.handler)
	return nil
}

// serve runs the servers until ctx ends, then drains them. The caller runs
// s.close after it returns, so no in-flight request loses its service.
func (s *stack) serve(ctx context.Context) error {
	t := gateway.Timeouts{
		ReadHeader: s.cfg.ReadHeaderTimeout, Read: s.cfg.ReadTimeout, Write: s.cfg.WriteTimeout,
		Idle: s.cfg.IdleTimeout, Shutdown: s.cfg.ShutdownTimeout,
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Both servers drain in parallel on shutdown.
	var wg sync.WaitGroup
	errs := make([]error, 3)
	wg.Add(1)
	go func() {
		defer wg.Done()
		errs[0] = gateway.Serve(ctx, gateway.NewServer(s.front, t), s.api, t.Shutdown)
		cancel() // one server failing stops the other
	}()
	if s.app != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[1] = gateway.Serve(ctx, gateway.NewServer(s.appH, t), s.app, t.Shutdown)
			cancel()
		}()
	}
	if s.studio != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[2] = gateway.Serve(ctx, gateway.NewServer(s.studioFront, t), s.studio, t.Shutdown)
			cancel()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// close stops the services and releases the ports (serve has closed them
// already when it ran). Only the first call does anything.
func (s *stack) close() {
	s.closed.Do(func() {
		s.cleanup()
		_ = s.api.Close()
		if s.app != nil {
			_ = s.app.Close()
		}
		if s.studio != nil {
			_ = s.studio.Close()
		}
	})
}

// urls returns the API and app URLs as clients reach them.
func (s *stack) urls() (api, app string) {
	api = s.cfg.PublicURL
	if s.app != nil {
		app = fmt.Sprintf("http://127.0.0.1:%d", s.app.Addr().(*net.TCPAddr).Port)
	}
	return api, app
}
