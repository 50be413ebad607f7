package main

import (
	"context"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/pg"
)

// cmdServe runs the API against an existing database: no embedded cluster,
// configuration from the environment only (see deploy/README.md).
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlags("serve")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	cfg, err := config.Load(config.Serve, getenv)
	if err != nil {
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
	admin, err := pg.Connect(ctx, cfg.DatabaseURL, nil)
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	defer admin.Close()
	// Migrations run before the user pool connects: on a fresh database the
	// authenticator role only exists after the platform migration.
	if cfg.ApplyMigrations {
		if err := applyMigrations(ctx, admin, cfg.SQLDir, log); err != nil {
			return err
		}
	}
	if cfg.AuthenticatorURL == "" && cfg.AuthenticatorPassword != "" {
		if err := setAuthenticatorPassword(ctx, admin, cfg.AuthenticatorPassword); err != nil {
			return err
		}
	}
	// User requests never run as the admin role: authenticator can only
	// become anon, authenticated or service_role, so RLS always applies.
	userURL, err := cfg.UserDatabaseURL()
	if err != nil {
		return err
	}
	user, err := pg.Connect(ctx, userURL, nil)
	if err != nil {
		return fmt.Errorf("connect as authenticator: %w", err)
	}
	defer user.Close()
	s, err := buildStack(ctx, config.Serve, cfg, getenv, admin, user, keys, log)
	if err != nil {
		return err
	}
	apiURL, appURL := s.urls()
	log.Info("basalt serve ready", "api_url", apiURL, "app_url", appURL, "listen", s.api.Addr().String())
	return s.serve(ctx)
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
