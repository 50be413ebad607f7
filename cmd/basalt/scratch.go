package main

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/internal/pgcluster"
)

// withScratchDB starts a throwaway cluster, applies the migrations on disk
// (platform, then sql/app) and calls fn with a superuser pool on it: the
// schema the files describe, with no data and no hand-made changes. The
// cluster is stopped and removed afterwards.
func withScratchDB(ctx context.Context, sqlDir string, publicGrants bool, fn func(*pgxpool.Pool) error) error {
	c, stop, err := pgcluster.StartTemp(ctx, "bsc", nil)
	if err != nil {
		return err
	}
	defer stop()
	db, err := pg.Connect(ctx, c.SocketURL("postgres", "postgres"), nil)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := migrate.Up(ctx, db, nil, migrationSources(sqlDir, publicGrants)...); err != nil {
		return fmt.Errorf("apply the migrations to a throwaway database: %w", err)
	}
	return fn(db)
}
