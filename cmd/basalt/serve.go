package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/pg"
)

// cmdServe runs the API against an existing database: no embedded cluster,
// configuration from the environment only (see deploy/README.md). The API
// port opens first and answers health probes while migrations run and pools
// connect (alive, not ready); the gateway takes over once everything is up.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlags("serve")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	cfg, err := config.Load(config.Serve, getenv)
	if err := checkSettings(err, getenv); err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	stopTracing, err := startTracing(ctx, getenv, log)
	if err != nil {
		return err
	}
	defer stopTracing()
	keys, err := keysFromConfig(cfg)
	if err != nil {
		return fmt.Errorf("keys: %w", err)
	}
	s, err := newStack(cfg, keys, log)
	if err != nil {
		return err
	}
	defer s.close()
	if err := s.listenStudio(config.Serve, getenv); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- s.serve(ctx) }()
	log.Info("basalt serve starting", "listen", s.api.Addr().String())

	admin, err := pg.Connect(ctx, cfg.DatabaseURL, nil)
	if err != nil {
		return stopServing(cancel, served, fmt.Errorf("DATABASE_URL: %w", err))
	}
	defer admin.Close()
	user, err := prepareDatabase(ctx, cfg, admin, log)
	if err != nil {
		return stopServing(cancel, served, err)
	}
	defer user.Close()
	replica, err := openReplica(cfg)
	if err != nil {
		return stopServing(cancel, served, err)
	}
	if replica != nil {
		defer replica.Close()
	}
	if err := s.mount(ctx, config.Serve, getenv, pools{admin: admin, user: user, replica: replica}); err != nil {
		return stopServing(cancel, served, err)
	}
	apiURL, appURL := s.urls()
	// Start-up's garbage (migrations read, the schema cache built, the
	// pools' first connections) goes back to the system now rather than
	// when the scavenger gets to it, so an idle node holds only what it uses.
	debug.FreeOSMemory()
	log.Info("basalt serve ready", "api_url", apiURL, "app_url", appURL, "studio_url", s.studioURL(), "listen", s.api.Addr().String())
	err = <-served
	s.close() // services stop before the pools they use close
	return err
}

// stopServing ends the early server after a failed start and returns err.
func stopServing(cancel context.CancelFunc, served <-chan error, err error) error {
	cancel()
	_ = <-served
	return err
}

// prepareDatabase applies migrations and opens the user pool. Migrations
// run before the user pool connects: on a fresh database the authenticator
// role only exists after the platform migration.
func prepareDatabase(ctx context.Context, cfg config.Config, admin *pgxpool.Pool, log *slog.Logger) (*pgxpool.Pool, error) {
	if cfg.ApplyMigrations {
		if err := applyMigrations(ctx, admin, cfg.SQLDir, cfg.PublicDefaultGrants, log); err != nil {
			return nil, err
		}
	}
	if cfg.AuthenticatorURL == "" && cfg.AuthenticatorPassword != "" {
		if err := setAuthenticatorPassword(ctx, admin, cfg.AuthenticatorPassword); err != nil {
			return nil, err
		}
	}
	// User requests never run as the admin role: authenticator can only
	// become anon, authenticated or service_role, so RLS always applies.
	userURL, err := cfg.UserDatabaseURL()
	if err != nil {
		return nil, err
	}
	user, err := pg.Connect(ctx, userURL, nil)
	if err != nil {
		return nil, fmt.Errorf("connect as authenticator: %w", err)
	}
	return user, nil
}

// openReplica opens the read replica's pool, or returns nil without one. It
// does not connect: a replica that is away at start only sends reads to the
// primary until it answers. A connection attempt gives up after two seconds
// unless the URL says otherwise, so a replica that went dark costs a read
// little before it falls back.
func openReplica(cfg config.Config) (*pgxpool.Pool, error) {
	url, err := cfg.ReplicaUserURL()
	if err != nil || url == "" {
		return nil, err
	}
	pool, err := pg.Open(url, func(c *pgxpool.Config) {
		if !strings.Contains(url, "connect_timeout") {
			c.ConnConfig.ConnectTimeout = 2 * time.Second
		}
	})
	if err != nil {
		return nil, fmt.Errorf("BASALT_READ_REPLICA_URL: %w", err)
	}
	return pool, nil
}

// setAuthenticatorPassword makes the authenticator role log in with the
// configured password, so operators only choose a password, not a role.
func setAuthenticatorPassword(ctx context.Context, admin *pgxpool.Pool, password string) error {
	var stmt string
	// ALTER ROLE takes no parameters: quote the literal with format(%L).
	if err := admin.QueryRow(ctx, `SELECT format('ALTER ROLE authenticator WITH LOGIN PASSWORD %L', $1::text)`, password).Scan(&stmt); err != nil {
		return fmt.Errorf("quote authenticator password: %w", err)
	}
	if _, err := admin.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("set authenticator password (the DATABASE_URL role needs CREATEROLE): %w", err)
	}
	return nil
}
