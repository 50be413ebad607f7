package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/backup"
	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/storage"
)

// cmdBackupRestore runs `basalt backup [--out DIR|FILE.tar[.gz]]` and
// `basalt restore --from DIR|FILE`. Both work on DATABASE_URL and the
// configured storage, else on the embedded cluster and its storage under
// the data dir, as `basalt migrate` does.
func cmdBackupRestore(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	usage := "usage: basalt backup [--out DIR|FILE.tar|FILE.tar.gz] [--data-dir DIR]"
	if cmd == "restore" {
		usage = "usage: basalt restore --from DIR|FILE [--data-dir DIR]"
	}
	fs := newFlags(cmd)
	dataDir := fs.String("data-dir", "", "data directory")
	out := fs.String("out", "", "backup destination")
	from := fs.String("from", "", "backup to restore")
	if err := fs.Parse(args); err != nil || fs.NArg() > 1 {
		return usageError{usage}
	}
	// The path may also come as the only argument.
	path := map[string]*string{"backup": out, "restore": from}[cmd]
	if fs.NArg() == 1 && *path == "" {
		*path = fs.Arg(0)
	}
	if (cmd == "restore" && *path == "") || (cmd == "backup" && *from != "") || (cmd == "restore" && *out != "") {
		return usageError{usage}
	}
	getenv = envWith(getenv, map[string]string{"BASALT_DATA_DIR": *dataDir})
	cfg, err := config.Load(config.Dev, getenv)
	if err != nil {
		return err
	}
	_, store, err := openStorage(ctx, cfg, getenv)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	return withAdminPool(ctx, cfg, log, func(admin *pgxpool.Pool) error {
		t := backup.Target{DB: admin, Storage: store, Log: log}
		if cmd == "restore" {
			return runRestore(ctx, t, *path, stdout)
		}
		if *path == "" {
			*path = defaultBackupPath(cfg, time.Now())
		}
		return runBackup(ctx, t, *path, stdout)
	})
}

func runBackup(ctx context.Context, t backup.Target, out string, stdout io.Writer) error {
	m, err := backup.Backup(ctx, t, out, buildVersion())
	if err != nil {
		return err
	}
	var bytes int64
	missing := 0
	for _, o := range m.Objects {
		bytes += o.Size
		if o.Missing {
			missing++
		}
	}
	fmt.Fprintf(stdout, "backup written to %s\n  snapshot %s, database dump %d bytes, %d storage objects (%d bytes)\n",
		out, m.CreatedAt.Format(time.RFC3339), m.Database.Size, len(m.Objects), bytes)
	if missing > 0 {
		fmt.Fprintf(stdout, "  %d objects had no bytes in the store (see the log); they are listed as missing\n", missing)
	}
	return nil
}

func runRestore(ctx context.Context, t backup.Target, from string, stdout io.Writer) error {
	m, err := backup.Restore(ctx, t, from)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "restored %s\n  snapshot %s (basalt %s): the database and %d storage objects, checksums verified\n",
		from, m.CreatedAt.Format(time.RFC3339), m.BasaltVersion, len(m.Objects))
	for _, n := range m.Notes {
		fmt.Fprintf(stdout, "  note: %s\n", n)
	}
	return nil
}

// defaultBackupPath is a timestamped directory: under the data dir for the
// embedded cluster, else in the working directory.
func defaultBackupPath(cfg config.Config, now time.Time) string {
	name := "basalt-backup-" + now.UTC().Format("20060102T150405Z")
	if cfg.DatabaseURL == "" {
		return filepath.Join(cfg.DataDir, "backups", name)
	}
	return name
}

// openStorage opens the object store of the database a maintenance command
// works on: the configured one with DATABASE_URL, else the embedded
// cluster's, whose bytes live under the data dir as `basalt dev` keeps them.
func openStorage(ctx context.Context, cfg config.Config, getenv func(string) string) (storage.Config, storage.Backend, error) {
	if cfg.DatabaseURL == "" {
		getenv = envWith(getenv, map[string]string{"STORAGE_FILE_DIR": filepath.Join(cfg.DataDir, "storage")})
	}
	scfg, err := storage.ConfigFromEnv(getenv)
	if err != nil {
		return scfg, nil, err
	}
	backend, err := storageBackend(ctx, scfg)
	return scfg, backend, err
}
