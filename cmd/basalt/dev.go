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

	"github.com/basaltdev/basalt/appkit"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/jwt"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
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
	// Absolute paths: the state file and socket URLs are read by other
	// processes (basalt status, compat runners) from other directories.
	if cfg.DataDir, err = filepath.Abs(cfg.DataDir); err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	stopTracing, err := startTracing(ctx, getenv, log)
	if err != nil {
		return err
	}
	defer stopTracing()
	// 0755, not 0700: when we run as root the server runs as postgres and
	// must traverse this folder to reach pg/. Secrets inside are 0600.
	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return fmt.Errorf("create data dir: %w", err)
	}
	// One dev per data dir: a second one would fight over the cluster.
	if st, err := readState(cfg.DataDir); err == nil {
		return fmt.Errorf("basalt dev is already running on %s (pid %d, %s)", cfg.DataDir, st.PID, st.APIURL)
	}

	// Keys are generated once and kept, so API keys pasted into an app's
	// .env keep working across restarts.
	keys, created, err := jwt.LoadOrCreate(filepath.Join(cfg.DataDir, "keys.json"), time.Now())
	if err != nil {
		return fmt.Errorf("keys: %w", err)
	}
	if created {
		log.Info("generated project keys", "file", filepath.Join(cfg.DataDir, "keys.json"))
	}
	if keys.ThirdParty, err = thirdPartyFromConfig(cfg.ThirdParty); err != nil {
		return err
	}

	cluster, err := embeddedCluster(cfg, log)
	if err != nil {
		return err
	}
	// Start-up (initdb on first run, migrations, seeds) gets a deadline of
	// its own; Ctrl-C during it still cancels through ctx.
	startCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := devTemplate(getenv, cfg.SQLDir, cfg.PublicDefaultGrants, log).fill(startCtx, cluster); err != nil {
		return err
	}
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
	// Restart the server if it dies (crash, OOM kill, kill by hand) until
	// shutdown begins. Supervision ends before the stop above runs (defers
	// run in reverse), so no restart can race it.
	supervised := make(chan struct{})
	supCtx, endSupervision := context.WithCancel(ctx)
	go func() {
		defer close(supervised)
		(&pgcluster.Supervisor{Cluster: cluster, Log: log}).Run(supCtx)
	}()
	defer func() { endSupervision(); <-supervised }()

	// Both pools use the unix socket: trusted, so the authenticator role
	// needs no password in dev, and no TCP round trip through the stack.
	admin, err := pg.Connect(startCtx, cluster.SocketURL(embeddedUser, embeddedDB), nil)
	if err != nil {
		return err
	}
	defer admin.Close()
	if err := applyMigrations(startCtx, admin, cfg.SQLDir, cfg.PublicDefaultGrants, log); err != nil {
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

	s, err := newStack(cfg, keys, log)
	if err != nil {
		return err
	}
	defer s.close()
	if err := s.listenStudio(config.Dev, getenv); err != nil {
		return err
	}
	if err := s.mount(ctx, config.Dev, getenv, pools{admin: admin, user: user}); err != nil {
		return err
	}
	if theApp.DevData != nil {
		if err := theApp.DevData(startCtx, appkit.Dev{Admin: admin, API: s.handler, Keys: keys, Log: log}); err != nil {
			return fmt.Errorf("%s dev data: %w", theApp.Name, err)
		}
	}
	apiURL, appURL := s.urls()
	// The state file is how `basalt status` in another process learns the
	// URLs and keys; it is removed on a clean exit, and ignored when the
	// pid it names is gone.
	st := state{
		APIURL:         apiURL,
		DBURL:          cluster.TCPURL(embeddedUser, embeddedPassword, embeddedDB),
		AppURL:         appURL,
		StudioURL:      s.studioURL(),
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
	printBanner(stdout, st, seedNotes(cfg.SQLDir))
	log.Info("basalt dev ready", "api_url", apiURL, "app_url", appURL, "pid", strconv.Itoa(os.Getpid()))
	err = s.serve(ctx)
	s.close() // services stop before the pools they use close
	log.Info("shutting down")
	return err
}
