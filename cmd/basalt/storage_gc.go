package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/storage"
)

// cmdStorage runs storage maintenance: `basalt storage gc` deletes stored
// bytes no object row points to (left by a crash between the two writes),
// abandoned temp files and stale resumable uploads. It is safe while serving.
func cmdStorage(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	const usage = "usage: basalt storage gc [--data-dir DIR]"
	if len(args) == 0 || args[0] != "gc" {
		return usageError{usage}
	}
	fs := newFlags("storage gc")
	dataDir := fs.String("data-dir", "", "data directory")
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() != 0 {
		return usageError{usage}
	}
	getenv = envWith(getenv, map[string]string{"BASALT_DATA_DIR": *dataDir})
	cfg, err := config.Load(config.Dev, getenv)
	if err != nil {
		return err
	}
	scfg, backend, err := openStorage(ctx, cfg, getenv)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	return withAdminPool(ctx, cfg, log, func(admin *pgxpool.Pool) error {
		st, err := storage.Sweep(ctx, admin, backend, scfg.LeftoverAge, time.Now())
		fmt.Fprintf(stdout, "scanned %d stored keys, deleted %d leftovers and %d temp files\n", st.Scanned, st.Deleted, st.Temp)
		return err
	})
}
