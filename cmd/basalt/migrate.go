package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/internal/config"
	"github.com/basaltdev/basalt/internal/migrate"
	"github.com/basaltdev/basalt/internal/pg"
)

// cmdMigrate applies (up), undoes the last (down), lists (status), compares
// with the database (diff) or creates (new NAME) migrations. Status and diff
// cover the repeatable files too.
// It targets DATABASE_URL when set, else the embedded cluster: the running
// `basalt dev`'s, or one started just for the command.
func cmdMigrate(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := newFlags("migrate")
	dataDir := fs.String("data-dir", "", "data directory")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	getenv = envWith(getenv, map[string]string{"BASALT_DATA_DIR": *dataDir})
	cfg, err := config.Load(config.Dev, getenv)
	if err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	switch sub := fs.Arg(0); sub {
	case "new":
		if fs.NArg() != 2 {
			return usageError{"usage: basalt migrate new NAME"}
		}
		path, err := newMigration(filepath.Join(cfg.SQLDir, "app"), fs.Arg(1))
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "created", path)
		return nil
	case "up", "status":
		return withAdminPool(ctx, cfg, log, func(admin *pgxpool.Pool) error {
			if sub == "up" {
				applied, err := migrate.Up(ctx, admin, nil, migrationSources(cfg.SQLDir)...)
				for _, m := range applied {
					fmt.Fprintf(stdout, "applied %s/%s\n", m.Source, m.Name)
				}
				if err == nil && len(applied) == 0 {
					fmt.Fprintln(stdout, "migrations are up to date")
				}
				return err
			}
			return printStatus(ctx, admin, cfg.SQLDir, stdout)
		})
	case "down":
		return withAdminPool(ctx, cfg, log, func(admin *pgxpool.Pool) error {
			return migrateDown(ctx, admin, cfg.SQLDir, stdout)
		})
	case "diff":
		return withAdminPool(ctx, cfg, log, func(admin *pgxpool.Pool) error {
			return migrateDiff(ctx, admin, cfg.SQLDir, stdout)
		})
	case "":
		return usageError{"usage: basalt migrate up|down|status|diff|new NAME"}
	default:
		return usageError{fmt.Sprintf("unknown migrate command %q", sub)}
	}
}

func printStatus(ctx context.Context, admin *pgxpool.Pool, sqlDir string, stdout io.Writer) error {
	sts, err := migrate.StatusOf(ctx, admin, migrationSources(sqlDir)...)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tMIGRATION\tSTATUS")
	pending := 0
	for _, s := range sts {
		status := "pending"
		switch {
		case s.Missing && s.Repeatable:
			status = "applied " + s.AppliedAt.UTC().Format(time.RFC3339) + ", but the FILE IS GONE (what it defined stays until a migration drops it)"
		case s.Missing:
			status = "applied " + s.AppliedAt.UTC().Format(time.RFC3339) + ", but the FILE IS GONE"
		case s.AppliedAt != nil && s.Changed && s.Repeatable:
			status = "changed since it was applied at " + s.AppliedAt.UTC().Format(time.RFC3339) + ": pending again"
			pending++
		case s.AppliedAt != nil && s.Changed:
			status = "EDITED after it was applied at " + s.AppliedAt.UTC().Format(time.RFC3339)
		case s.AppliedAt != nil:
			status = "applied " + s.AppliedAt.UTC().Format(time.RFC3339)
		default:
			pending++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Source, s.Name, status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%d pending\n", pending)
	return nil
}

// withAdminPool connects to the migration target and calls fn.
func withAdminPool(ctx context.Context, cfg config.Config, log interface{ Info(string, ...any) }, fn func(*pgxpool.Pool) error) (err error) {
	url := cfg.DatabaseURL
	if url == "" {
		abs, aerr := filepath.Abs(cfg.DataDir)
		if aerr != nil {
			return aerr
		}
		cfg.DataDir = abs
		// Prefer the running dev's cluster (through its socket); otherwise
		// start the cluster just for this command and stop it afterwards.
		if st, serr := readState(abs); serr == nil {
			url = fmt.Sprintf("postgres://%s@/%s?host=%s&port=%d&sslmode=disable", embeddedUser, embeddedDB, st.SocketDir, st.DBPort)
		} else {
			c, cerr := embeddedCluster(cfg, newLogger(io.Discard, "error"))
			if cerr != nil {
				return cerr
			}
			if err := startEmbedded(ctx, c); err != nil {
				return err
			}
			defer func() {
				sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				err = errors.Join(err, c.Stop(sctx, "fast"))
			}()
			url = c.SocketURL(embeddedUser, embeddedDB)
		}
	}
	admin, err := pg.Connect(ctx, url, nil)
	if err != nil {
		return err
	}
	defer admin.Close()
	return fn(admin)
}

// newMigration creates dir/NNNN_name.sql with the next free number.
func newMigration(dir, name string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	// Numbers follow the highest existing one; timestamped or odd names
	// (longer than six digits) do not move the sequence.
	next := 1
	for _, e := range entries {
		v, _, ok := strings.Cut(e.Name(), "_")
		if n, err := strconv.Atoi(v); ok && err == nil && n >= next && len(v) <= 6 {
			next = n + 1
		}
	}
	// Reuse the core naming rule for the description, then swap the
	// timestamp for our four-digit sequence.
	_, desc, _ := strings.Cut(migrate.NewFileName(time.Now(), name), "_")
	if desc == ".sql" {
		return "", errors.New("migration name must contain letters or digits")
	}
	path := filepath.Join(dir, fmt.Sprintf("%04d_%s", next, desc))
	// O_EXCL: never overwrite a migration, even in a race.
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, "-- %s\n", strings.TrimSuffix(desc, ".sql"))
	return path, err
}
