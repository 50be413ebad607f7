package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
)

// cmdDev runs the whole stack locally: embedded PostgreSQL, migrations,
// seed data, keys, gateway and app server, until SIGINT/SIGTERM.
func cmdDev(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) (err error) {
	fs := newFlags("dev")
	dataDir := fs.String("data-dir", "", "data directory (default .basalt, or BASALT_DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	getenv = envWith(getenv, map[string]string{"BASALT_DATA_DIR": *dataDir})
	cfg, err := config.Load(config.Dev, getenv)
	if err != nil {
		return err
	}
	if cfg.DataDir, err = filepath.Abs(cfg.DataDir); err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	if st, err := readState(cfg.DataDir); err == nil {
		return fmt.Errorf("basalt dev is already running on %s (pid %d, %s)", cfg.DataDir, st.PID, st.APIURL)
	}

	keys, created, err := jwt.LoadOrCreate(filepath.Join(cfg.DataDir, "keys.json"), time.Now())
	if err != nil {
		return fmt.Errorf("keys: %w", err)
	}
	if created {
		log.Info("generated project keys", "file", filepath.Join(cfg.DataDir, "keys.json"))
	}

	cluster, err := embeddedCluster(cfg, log)
	if err != nil {
		return err
	}
	startCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := startEmbedded(startCtx, cluster); err != nil {
		return err
	}
	log.Info("postgres started", "data_dir", cluster.DataDir, "port", cluster.Port)
	defer func() {
		// Stop Postgres cleanly whatever happened above: a fast shutdown
		// leaves no recovery work for the next start.
		sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if serr := cluster.Stop(sctx, "fast"); serr != nil {
			err = errors.Join(err, fmt.Errorf("stop postgres: %w", serr))
		} else {
			log.Info("postgres stopped")
		}
	}()

	admin, err := pg.Connect(startCtx, cluster.SocketURL(embeddedUser, embeddedDB), nil)
	if err != nil {
		return err
	}
	defer admin.Close()
	if err := applyMigrations(startCtx, admin, cfg.SQLDir, log); err != nil {
		return err
	}
	if err := applySeeds(startCtx, admin, cfg.SQLDir, log); err != nil {
		return err
	}
	user, err := pg.Connect(startCtx, cluster.SocketURL("authenticator", embeddedDB), nil)
	if err != nil {
		return err
	}
	defer user.Close()

	s, err := buildStack(ctx, config.Dev, cfg, getenv, admin, user, keys, log)
	if err != nil {
		return err
	}
	apiURL, appURL := s.urls()
	st := state{
		APIURL:         apiURL,
		DBURL:          cluster.TCPURL(embeddedUser, embeddedPassword, embeddedDB),
		AppURL:         appURL,
		AnonKey:        keys.AnonKey,
		ServiceRoleKey: keys.ServiceRoleKey,
		JWTSecret:      string(keys.Secret),
		JWKSURL:        apiURL + "/auth/v1/.well-known/jwks.json",
		PublishableKey: keys.PublishableKey,
		SecretKey:      keys.SecretKey,
		PID:            os.Getpid(),
		SocketDir:      cluster.SocketDir,
		DBPort:         cluster.Port,
		StartedAt:      time.Now().UTC(),
	}
	if err := writeState(cfg.DataDir, st); err != nil {
		return err
	}
	defer os.Remove(statePath(cfg.DataDir))
	printBanner(stdout, st)
	log.Info("basalt dev ready", "api_url", apiURL, "app_url", appURL, "pid", strconv.Itoa(os.Getpid()))
	err = s.serve(ctx)
	log.Info("shutting down")
	return err
}
