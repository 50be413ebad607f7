package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/backup"
	"github.com/basaltdev/basalt/internal/pg"
	"github.com/basaltdev/basalt/storage"
	"github.com/basaltdev/basalt/storage/fsbackend"
	"github.com/basaltdev/basalt/studio"
)

// studioBackups runs `basalt backup` and `basalt restore`'s code for
// Studio's Database screen. Backups are kept in dir (the data dir's
// backups/, where `basalt backup` writes by default under basalt dev); a
// restore goes into a new database of the cluster and a new file store
// under the data dir's restores/<database>/storage.
type studioBackups struct {
	admin    *pgxpool.Pool
	store    storage.Backend
	dir      string
	restores string
	log      *slog.Logger
}

var _ studio.Backups = (*studioBackups)(nil)

// newStudioBackups keeps backups under dataDir, of the project whose
// objects the storage settings name.
func newStudioBackups(ctx context.Context, admin *pgxpool.Pool, dataDir string, getenv func(string) string, log *slog.Logger) (*studioBackups, error) {
	scfg, err := storage.ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	store, err := storageBackend(ctx, scfg)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	return &studioBackups{admin: admin, store: store, dir: filepath.Join(abs, "backups"), restores: filepath.Join(abs, "restores"), log: log}, nil
}

func backupInfo(name string, m *backup.Manifest) studio.BackupInfo {
	b := studio.BackupInfo{Name: name, CreatedAt: m.CreatedAt, BasaltVersion: m.BasaltVersion, PostgresVersion: m.PostgresVersion,
		DatabaseBytes: m.Database.Size, Objects: len(m.Objects)}
	for _, o := range m.Objects {
		b.ObjectBytes += o.Size
	}
	return b
}

// List reads the manifest of every backup in the folder; what is not a
// backup (a partial one being written, say) is left out.
func (b *studioBackups) List(ctx context.Context) ([]studio.BackupInfo, error) {
	entries, err := os.ReadDir(b.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var out []studio.BackupInfo
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		m, err := backup.ReadManifest(filepath.Join(b.dir, e.Name()))
		if err != nil {
			continue
		}
		out = append(out, backupInfo(e.Name(), m))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt.After(out[j].CreatedAt) })
	return out, nil
}

// Run writes a backup named by its time, as `basalt backup` does.
func (b *studioBackups) Run(ctx context.Context) (studio.BackupInfo, error) {
	name := "basalt-backup-" + time.Now().UTC().Format("20060102T150405Z")
	m, err := backup.Backup(ctx, backup.Target{DB: b.admin, Storage: b.store, Log: b.log}, filepath.Join(b.dir, name), buildVersion())
	if err != nil {
		return studio.BackupInfo{}, err
	}
	return backupInfo(name, m), nil
}

// Restore creates database (refused when it exists) and restores backup
// name into it and into a new file store; a failed restore drops the
// database it created.
func (b *studioBackups) Restore(ctx context.Context, name, database string) (studio.RestoreInfo, error) {
	if name == "" || name != filepath.Base(name) || strings.HasPrefix(name, ".") {
		return studio.RestoreInfo{}, notFoundError("no backup named " + name)
	}
	from := filepath.Join(b.dir, name)
	if _, err := backup.ReadManifest(from); err != nil {
		return studio.RestoreInfo{}, notFoundError("no backup named " + name)
	}
	var exists bool
	if err := b.admin.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)`, database).Scan(&exists); err != nil {
		return studio.RestoreInfo{}, err
	}
	if exists {
		return studio.RestoreInfo{}, conflictError(fmt.Sprintf("database %s exists already: a restore goes into a new database", database))
	}
	storeDir := filepath.Join(b.restores, database, "storage")
	if entries, _ := os.ReadDir(storeDir); len(entries) > 0 {
		return studio.RestoreInfo{}, conflictError(fmt.Sprintf("the store %s is not empty", storeDir))
	}
	if _, err := b.admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{database}.Sanitize()+" TEMPLATE template0"); err != nil {
		return studio.RestoreInfo{}, err
	}
	info, err := b.restoreInto(ctx, from, database, storeDir)
	if err != nil {
		dctx := context.WithoutCancel(ctx)
		if _, derr := b.admin.Exec(dctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{database}.Sanitize()+" WITH (FORCE)"); derr != nil {
			b.log.Error("studio restore: drop the database it created", "database", database, "err", derr)
		}
		_ = os.RemoveAll(filepath.Join(b.restores, database))
	}
	return info, err
}

func (b *studioBackups) restoreInto(ctx context.Context, from, database, storeDir string) (studio.RestoreInfo, error) {
	// pg_restore connects with the pool's connection string, so the
	// database is named there, not only in the parsed config.
	conn, err := withDatabase(b.admin.Config().ConnString(), database)
	if err != nil {
		return studio.RestoreInfo{}, err
	}
	db, err := pg.Connect(ctx, conn, func(c *pgxpool.Config) { c.MaxConns = 2 })
	if err != nil {
		return studio.RestoreInfo{}, err
	}
	defer db.Close()
	store, err := fsbackend.New(storeDir)
	if err != nil {
		return studio.RestoreInfo{}, err
	}
	m, err := backup.Restore(ctx, backup.Target{DB: db, Storage: store, Log: b.log}, from)
	if err != nil {
		return studio.RestoreInfo{}, err
	}
	notes := m.Notes
	if notes == nil {
		notes = []string{}
	}
	return studio.RestoreInfo{Database: database, Storage: storeDir, Notes: notes}, nil
}

// withDatabase is conn (a URL or libpq's key=value form) naming database.
func withDatabase(conn, database string) (string, error) {
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		u, err := url.Parse(conn)
		if err != nil {
			return "", fmt.Errorf("the admin connection string: %w", err)
		}
		q := u.Query()
		q.Del("dbname")
		u.RawQuery = q.Encode()
		u.Path = "/" + database
		return u.String(), nil
	}
	// In the key=value form the last setting of a key wins.
	return conn + " dbname=" + database, nil
}

// notFoundError and conflictError are refusals Studio answers with their
// status and message.
type statusError struct {
	status int
	msg    string
}

func (e statusError) Error() string   { return e.msg }
func (e statusError) HTTPStatus() int { return e.status }

func notFoundError(msg string) error { return statusError{http.StatusNotFound, msg} }
func conflictError(msg string) error { return statusError{http.StatusConflict, msg} }
