package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
	"github.com/basaltdev/basalt/internal/pgtest"
	"github.com/basaltdev/basalt/sql/platform"
)

// AppDatabase returns the owner and authenticator URLs of a database with
// Basalt's platform and Backline's app migrations applied: the one given by
// dsn and userDSN, or a throwaway cluster (started with the server
// settings given; stop removes it) whose processes' CPU the report counts.
func AppDatabase(ctx context.Context, prefix string, settings map[string]string, dsn, userDSN string) (adminURL, userURL string, stop func(), err error) {
	if dsn != "" {
		if userDSN == "" {
			return "", "", nil, errors.New("-dsn needs -user-dsn: the same database as the authenticator role")
		}
		return dsn, userDSN, func() {}, nil
	}
	c, stop, err := pgcluster.StartTemp(ctx, prefix, settings)
	if err != nil {
		return "", "", nil, err
	}
	if pid, ok := c.PID(); ok {
		CountDatabaseCPU(pid)
	}
	adminURL = c.SocketURL("postgres", "postgres")
	pool, err := pg.Connect(ctx, adminURL, nil)
	if err != nil {
		stop()
		return "", "", nil, err
	}
	defer pool.Close()
	root, err := pgtest.ModuleRoot()
	if err != nil {
		stop()
		return "", "", nil, err
	}
	// migrate reads only the *.sql files; the folder's Go tests are skipped.
	app := os.DirFS(filepath.Join(root, "sql", "app"))
	if _, err := migrate.Up(ctx, pool, nil, migrate.Source{Name: "platform", FS: platform.FS},
		migrate.Source{Name: "app", FS: app}); err != nil {
		stop()
		return "", "", nil, fmt.Errorf("migrate: %w", err)
	}
	return adminURL, c.SocketURL("authenticator", "postgres"), stop, nil
}

// PlatformPools starts a throwaway cluster (with the server settings given)
// with Basalt's platform migrations, and returns pools of maxConns as its
// owner and as the authenticator; the report counts the cluster's CPU.
// stop closes the pools and removes the cluster.
func PlatformPools(ctx context.Context, prefix string, settings map[string]string, maxConns int32) (admin, user *pgxpool.Pool, stop func(), err error) {
	c, stopCluster, err := pgcluster.StartTemp(ctx, prefix, settings)
	if err != nil {
		return nil, nil, nil, err
	}
	size := func(cfg *pgxpool.Config) { cfg.MaxConns = maxConns }
	fail := func(e error) (*pgxpool.Pool, *pgxpool.Pool, func(), error) {
		if admin != nil {
			admin.Close()
		}
		stopCluster()
		return nil, nil, nil, e
	}
	if admin, err = pg.Connect(ctx, c.SocketURL("postgres", "postgres"), size); err != nil {
		return fail(err)
	}
	if _, err = migrate.Up(ctx, admin, nil, migrate.Source{Name: "platform", FS: platform.FS}); err != nil {
		return fail(err)
	}
	if user, err = pg.Connect(ctx, c.SocketURL("authenticator", "postgres"), size); err != nil {
		return fail(err)
	}
	if pid, ok := c.PID(); ok {
		CountDatabaseCPU(pid)
	}
	return admin, user, func() { user.Close(); admin.Close(); stopCluster() }, nil
}
