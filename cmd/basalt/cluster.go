package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"strconv"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

// Embedded cluster credentials. The bootstrap superuser "postgres" has the
// password "postgres" over TCP (what `supabase start` prints too) and is
// trusted on the unix socket, which only local users can reach.
const (
	embeddedUser     = "postgres"
	embeddedPassword = "postgres"
	embeddedDB       = "postgres"
)

// embeddedCluster describes the dev cluster under cfg.DataDir/pg.
func embeddedCluster(cfg config.Config, log *slog.Logger) (*pgcluster.Cluster, error) {
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	pgDir := filepath.Join(dataDir, "pg")
	if os.Geteuid() == 0 && !reachableByServerUser(pgDir) {
		// PostgreSQL runs as an unprivileged user when we are root; it cannot
		// enter a data dir below a private folder (a root home, a 0700 temp
		// dir). Keep the cluster in a system folder keyed by the data dir.
		sum := sha256.Sum256([]byte(pgDir))
		alt := filepath.Join("/var/lib/basalt", hex.EncodeToString(sum[:6]), "pg")
		log.Info("data dir is not reachable by the postgres user; keeping the cluster elsewhere", "data_dir", pgDir, "cluster_dir", alt)
		pgDir = alt
	}
	socketDir := filepath.Join(dataDir, "run")
	if len(socketDir)+len("/.s.PGSQL.65535") > 100 || (os.Geteuid() == 0 && !reachableByServerUser(socketDir)) {
		// Unix socket paths are limited to ~107 bytes; fall back to a short one.
		sum := sha256.Sum256([]byte(dataDir))
		socketDir = filepath.Join(os.TempDir(), "basalt-"+hex.EncodeToString(sum[:6]))
	}
	settings := map[string]string{
		// Realtime reads changes through logical replication.
		"wal_level":               "logical",
		"max_replication_slots":   "10",
		"max_wal_senders":         "10",
		"max_connections":         "200",
		"log_min_messages":        "warning",
		"unix_socket_permissions": "0777",
		// The one planner setting Supabase's database changes from
		// PostgreSQL's defaults (EXPLAIN's settings option lists it), so
		// plans and explain() output match theirs.
		"effective_cache_size": "128MB",
	}
	// The server's own log, as JSON lines Studio's Logs screen reads.
	for k, v := range pgcluster.ServerLogSettings {
		settings[k] = v
	}
	return &pgcluster.Cluster{
		DataDir:   pgDir,
		SocketDir: socketDir,
		Port:      cfg.DBPort,
		Superuser: embeddedUser,
		Password:  embeddedPassword,
		// Cron jobs run in the app's database (pg_cron, when installed).
		CronDatabase: embeddedDB,
		Settings:     settings,
		Log:          func(line string) { log.Debug("postgres", "line", line) },
	}, nil
}

// reachableByServerUser reports whether every existing parent of dir can be
// entered by the postgres system user (world or group execute bit, or owned
// by it). Folders that do not exist yet will be created traversable.
func reachableByServerUser(dir string) bool {
	u, err := user.Lookup("postgres")
	if err != nil {
		return true // pgcluster reports the missing user itself
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err == nil {
			if !canEnter(st, uid, gid) {
				return false
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return false
		}
		if d == "/" || d == "." {
			return true
		}
	}
}

// startEmbedded initialises (first run) and starts the dev cluster.
func startEmbedded(ctx context.Context, c *pgcluster.Cluster) error {
	if _, err := pgcluster.FindBinDir(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.DataDir), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(c.DataDir), err)
	}
	_ = os.Chmod(filepath.Dir(c.DataDir), 0o755)
	if err := c.Init(ctx); err != nil {
		return fmt.Errorf("initialise PostgreSQL cluster in %s: %w", c.DataDir, err)
	}
	if c.Running() {
		// Callers only get here when no live basalt owns the data dir: the
		// server was left behind by a basalt that was killed. Restart it so
		// it runs with this run's settings (ports, socket).
		if err := c.Stop(ctx, "fast"); err != nil {
			return fmt.Errorf("stop PostgreSQL left running by a previous basalt: %w", err)
		}
	}
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("start PostgreSQL: %w", err)
	}
	return nil
}
