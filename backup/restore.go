package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/basaltdev/basalt/storage"
)

// ErrNotEmpty is returned when the restore target already holds data.
var ErrNotEmpty = errors.New("restore target is not empty")

// Restore brings the backup at from (a directory or a tar written by Backup)
// into t, which must be an empty database and an empty object store. Every
// file's SHA-256 is checked before anything is written, and each object's
// again as it is stored.
func Restore(ctx context.Context, t Target, from string) (*Manifest, error) {
	dir, cleanup, err := openBackup(from)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	if err := checkEmptyDatabase(ctx, t); err != nil {
		return nil, err
	}
	if err := checkEmptyStore(ctx, t.Storage); err != nil {
		return nil, err
	}
	if err := verifyFiles(dir, m); err != nil {
		return nil, err
	}
	prog, err := clientProgram(t.BinDir, "pg_restore")
	if err != nil {
		return nil, err
	}
	if err := restoreRoles(ctx, t, m.Roles); err != nil {
		return nil, err
	}
	dsn, env, err := libpqConn(t.DB.Config().ConnString())
	if err != nil {
		return nil, err
	}
	// One transaction: a failure leaves the database as empty as it was.
	// Owners become the restoring role, as the source's owner (the dev
	// cluster's postgres, a server's admin user) need not exist here.
	args := []string{"--single-transaction", "--exit-on-error", "--no-owner", "--dbname=" + dsn}
	cron, err := cronRuns(ctx, t)
	if err != nil {
		return nil, err
	}
	if !cron {
		list, dropped, err := listWithoutCron(ctx, prog, env, filepath.Join(dir, dumpFile), dir)
		if err != nil {
			return nil, err
		}
		if dropped {
			args = append(args, "--use-list="+list)
			m.Notes = append(m.Notes, CronNotRestored)
		}
	}
	if err := runProgram(ctx, prog, env, append(args, filepath.Join(dir, dumpFile))...); err != nil {
		return nil, fmt.Errorf("restore database: %w", err)
	}
	if cron {
		if err := adoptCronJobs(ctx, t); err != nil {
			return nil, fmt.Errorf("restore database: pg_cron's jobs: %w", err)
		}
	}
	if err := restoreObjects(ctx, t, dir, m.Objects); err != nil {
		return nil, fmt.Errorf("%w; the database is restored but the object store is not complete: "+
			"empty both (drop and create the database, clear the store) before restoring again", err)
	}
	return m, checkRows(ctx, t, m.Objects)
}

// openBackup returns the directory holding the backup at from, unpacking a
// tar into a temporary one first.
func openBackup(from string) (string, func(), error) {
	st, err := os.Stat(from)
	if err != nil {
		return "", nil, fmt.Errorf("backup %s: %w", from, err)
	}
	if st.IsDir() {
		return from, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", "basalt-restore-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(tmp) }
	if err := unpack(from, tmp); err != nil {
		cleanup()
		return "", nil, err
	}
	return tmp, cleanup, nil
}

// verifyFiles checks the dump and every object file against the manifest.
func verifyFiles(dir string, m *Manifest) error {
	if err := verifyFile(dir, m.Database); err != nil {
		return err
	}
	for _, o := range m.Objects {
		if o.Missing {
			continue
		}
		rel, err := objectPath(o.SHA256)
		if err != nil {
			return fmt.Errorf("object %s/%s: %w", o.Bucket, o.Name, err)
		}
		if err := verifyFile(dir, File{Path: rel, Size: o.Size, SHA256: o.SHA256}); err != nil {
			return fmt.Errorf("object %s/%s: %w", o.Bucket, o.Name, err)
		}
	}
	return nil
}

func verifyFile(dir string, f File) error {
	sum, n, err := hashFile(filepath.Join(dir, filepath.FromSlash(f.Path)))
	if err != nil {
		return fmt.Errorf("backup is incomplete: %w", err)
	}
	if sum != f.SHA256 || n != f.Size {
		return fmt.Errorf("backup file %s is damaged: sha256 %s (%d bytes), manifest says %s (%d bytes)", f.Path, sum, n, f.SHA256, f.Size)
	}
	return nil
}

// checkEmptyDatabase refuses a database that has anything beyond what
// CREATE DATABASE gives: restoring over data would mix two states.
func checkEmptyDatabase(ctx context.Context, t Target) error {
	rows, _ := t.DB.Query(ctx, `
		SELECT what FROM (
		  SELECT 1 AS rank, 'schema ' || nspname AS what FROM pg_namespace
		   WHERE nspname NOT IN ('public', 'information_schema') AND nspname !~ '^pg_'
		  UNION ALL SELECT 2, 'relation public.' || relname FROM pg_class WHERE relnamespace = 'public'::regnamespace
		  UNION ALL SELECT 3, 'function public.' || proname FROM pg_proc WHERE pronamespace = 'public'::regnamespace
		  UNION ALL SELECT 4, 'type public.' || typname FROM pg_type
		   WHERE typnamespace = 'public'::regnamespace AND typrelid = 0 AND typcategory <> 'A'
		  UNION ALL SELECT 5, 'extension ' || extname FROM pg_extension WHERE extname <> 'plpgsql'
		  UNION ALL SELECT 6, 'event trigger ' || evtname FROM pg_event_trigger
		) x ORDER BY rank, what LIMIT 4`)
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("inspect target database: %w", err)
	}
	if len(found) == 0 {
		return nil
	}
	var db string
	_ = t.DB.QueryRow(ctx, `SELECT current_database()`).Scan(&db)
	return fmt.Errorf("%w: database %q already has %s: restore only writes into an empty database; "+
		"create a new one (createdb) and point DATABASE_URL at it, or give the embedded cluster a new --data-dir",
		ErrNotEmpty, db, strings.Join(found, ", "))
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// checkEmptyStore refuses an object store that already holds bytes.
func checkEmptyStore(ctx context.Context, b storage.Backend) error {
	var first string
	err := b.Walk(ctx, "", func(key string, _ time.Time) error {
		first = key
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return fmt.Errorf("inspect target object store: %w", err)
	}
	if first != "" {
		return fmt.Errorf("%w: the object store already holds %q: restore only writes into an empty one; "+
			"point STORAGE_FILE_DIR (or STORAGE_S3_BUCKET/STORAGE_S3_PREFIX) at an empty place", ErrNotEmpty, first)
	}
	return nil
}

// restoreRoles creates the roles the target cluster lacks, before pg_restore
// runs grants that name them.
func restoreRoles(ctx context.Context, t Target, roles []Role) error {
	return pgx.BeginFunc(ctx, t.DB, func(tx pgx.Tx) error {
		created, err := createMissingRoles(ctx, tx, roles)
		if len(created) > 0 {
			t.log().Info("created roles", "roles", created)
		}
		return err
	})
}

// restoreObjects stores every object's bytes under the key its row names,
// checking the SHA-256 of what was read.
func restoreObjects(ctx context.Context, t Target, dir string, objs []Object) error {
	for i, o := range objs {
		if o.Missing {
			continue
		}
		rel, err := objectPath(o.SHA256)
		if err != nil {
			return err
		}
		key := storage.ObjectKey(o.Bucket, o.Name, o.Version)
		if err := putVerified(ctx, t.Storage, key, filepath.Join(dir, filepath.FromSlash(rel)), o); err != nil {
			return fmt.Errorf("restore object %s/%s (%d of %d restored): %w", o.Bucket, o.Name, i, len(objs), err)
		}
	}
	return nil
}

func putVerified(ctx context.Context, b storage.Backend, key, file string, o Object) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if err := b.Put(ctx, key, io.TeeReader(f, h), o.Size, o.Mimetype); err != nil {
		return err
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != o.SHA256 {
		_ = b.Delete(ctx, key)
		return fmt.Errorf("checksum changed while storing: sha256 %s, manifest says %s", sum, o.SHA256)
	}
	return nil
}

// checkRows compares the restored storage.objects rows with the manifest:
// both came from one snapshot, so they must name the same objects.
func checkRows(ctx context.Context, t Target, objs []Object) error {
	var exists bool
	if err := t.DB.QueryRow(ctx, `SELECT to_regclass('storage.objects') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		if err == nil && len(objs) > 0 {
			err = errors.New("the restored database has no storage.objects table")
		}
		return err
	}
	rows, _ := t.DB.Query(ctx, `SELECT bucket_id || '/' || name || '/' || coalesce(version, '') FROM storage.objects`)
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("check restored objects: %w", err)
	}
	want := make(map[string]bool, len(objs))
	for _, o := range objs {
		want[o.Bucket+"/"+o.Name+"/"+o.Version] = true
	}
	for _, k := range keys {
		if !want[k] {
			return fmt.Errorf("restored database has object %s, which the manifest does not list", k)
		}
	}
	if len(keys) != len(want) {
		return fmt.Errorf("restored database has %d objects, the manifest lists %d", len(keys), len(want))
	}
	return nil
}
