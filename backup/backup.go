package backup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/basaltdev/basalt/storage"
)

// Target is the project a backup reads from or a restore writes to.
type Target struct {
	// DB is the admin connection: the owner of Basalt's schemas (a
	// superuser for restore, which creates roles and event triggers).
	DB *pgxpool.Pool
	// Storage holds the object bytes.
	Storage storage.Backend
	// BinDir is where pg_dump and pg_restore are; empty finds them as the
	// embedded cluster finds its server.
	BinDir string
	// Log receives progress; nil discards it.
	Log *slog.Logger

	// afterSnapshot runs once the snapshot is exported, before anything is
	// read through it (tests write there to prove later writes stay out).
	afterSnapshot func(context.Context) error
}

func (t Target) log() *slog.Logger {
	if t.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return t.Log
}

// attempts bounds how often a backup starts over when an object it must
// copy was replaced or deleted (and its bytes removed) after the snapshot.
const attempts = 3

// errChanged says an object's bytes went away because its row changed after
// the snapshot; a fresh snapshot sees the new state.
var errChanged = errors.New("object changed during the backup")

// Backup writes a backup of t to out: a directory (which must not exist or
// be empty), or a tar file when out ends in .tar, .tar.gz or .tgz. Nothing
// appears at out unless the whole backup succeeded.
func Backup(ctx context.Context, t Target, out, basaltVersion string) (*Manifest, error) {
	out, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	archive, gz := archiveKind(out)
	if err := checkFreeOutput(out, archive); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".partial-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	dump, err := clientProgram(t.BinDir, "pg_dump")
	if err != nil {
		return nil, err
	}
	var m *Manifest
	for i := 1; ; i++ {
		m, err = snapshotOnce(ctx, t, dump, work)
		if err == nil {
			break
		}
		if !errors.Is(err, errChanged) || i == attempts {
			return nil, err
		}
		t.log().Info("an object changed while it was being copied; starting over with a new snapshot", "err", err, "attempt", i+1)
		if err := clearDir(work); err != nil {
			return nil, err
		}
	}
	m.BasaltVersion = basaltVersion
	if err := writeManifest(work, m); err != nil {
		return nil, err
	}
	if archive {
		return m, packInto(work, out, gz)
	}
	// MkdirTemp made work 0700, which suits a copy of password hashes and
	// every user's data.
	// An empty directory at out was accepted above; rename needs it gone.
	_ = os.Remove(out)
	return m, os.Rename(work, out)
}

// snapshotOnce opens a REPEATABLE READ transaction, exports its snapshot,
// reads the manifest through it and runs pg_dump on the same snapshot while
// the object bytes are copied. The transaction stays open until pg_dump is
// done, which keeps the snapshot importable and valid.
func snapshotOnce(ctx context.Context, t Target, dumpProg, work string) (*Manifest, error) {
	conn, err := t.DB.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Release()
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(context.Background()) //nolint:errcheck // read-only
	var snapshot string
	if err := tx.QueryRow(ctx, `SELECT pg_export_snapshot()`).Scan(&snapshot); err != nil {
		return nil, fmt.Errorf("export snapshot: %w", err)
	}
	if t.afterSnapshot != nil {
		if err := t.afterSnapshot(ctx); err != nil {
			return nil, err
		}
	}
	m, err := readState(ctx, tx)
	if err != nil {
		return nil, err
	}
	dsn, env, err := libpqConn(t.DB.Config().ConnString())
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dumped := make(chan error, 1)
	go func() {
		dumped <- runProgram(dctx, dumpProg, env, "--format=custom", "--snapshot="+snapshot,
			// Resumable uploads in progress keep their parts outside the
			// object rows; they are not restorable, so their rows stay out.
			"--exclude-table-data=storage.tus_uploads",
			"--file="+filepath.Join(work, dumpFile), "--dbname="+dsn)
	}()
	if err := copyObjects(ctx, t, work, m.Objects); err != nil {
		cancel()
		_ = <-dumped // it fails now only because it was stopped
		return nil, err
	}
	if err := <-dumped; err != nil {
		return nil, fmt.Errorf("dump database: %w", err)
	}
	m.Database, err = fileInfo(work, dumpFile)
	return m, err
}

// readState reads, through the snapshot, everything the manifest records
// besides the bytes.
func readState(ctx context.Context, tx pgx.Tx) (*Manifest, error) {
	m := &Manifest{Format: Format, FormatVersion: FormatVersion, Migrations: []Migration{}, Objects: []Object{}}
	var hasMigrations, hasObjects bool
	err := tx.QueryRow(ctx, `SELECT now(), current_setting('server_version'),
		to_regclass('basalt.schema_migrations') IS NOT NULL, to_regclass('storage.objects') IS NOT NULL`).
		Scan(&m.CreatedAt, &m.PostgresVersion, &hasMigrations, &hasObjects)
	if err != nil {
		return nil, fmt.Errorf("read snapshot: %w", err)
	}
	m.CreatedAt = m.CreatedAt.UTC()
	if hasMigrations {
		rows, _ := tx.Query(ctx, `SELECT DISTINCT ON (source) source, version, name
			FROM basalt.schema_migrations ORDER BY source, version DESC`)
		if m.Migrations, err = pgx.CollectRows(rows, pgx.RowToStructByPos[Migration]); err != nil {
			return nil, fmt.Errorf("read migrations: %w", err)
		}
	}
	if hasObjects {
		rows, _ := tx.Query(ctx, `SELECT bucket_id, name, coalesce(version, ''),
			coalesce((metadata->>'size')::bigint, 0), coalesce(metadata->>'eTag', ''), coalesce(metadata->>'mimetype', '')
			FROM storage.objects ORDER BY bucket_id, name COLLATE "C"`)
		m.Objects, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (Object, error) {
			var o Object
			err := row.Scan(&o.Bucket, &o.Name, &o.Version, &o.Size, &o.ETag, &o.Mimetype)
			return o, err
		})
		if err != nil {
			return nil, fmt.Errorf("read storage objects: %w", err)
		}
	}
	if m.Roles, err = readRoles(ctx, tx); err != nil {
		return nil, err
	}
	return m, nil
}

// copyObjects copies every object's bytes into work/objects, named by their
// SHA-256, and fills in each object's checksum and real size. Keys are
// never rewritten, so bytes read after the snapshot are the snapshot's;
// only a replace or delete that committed since can have removed them.
func copyObjects(ctx context.Context, t Target, work string, objs []Object) error {
	for i := range objs {
		o := &objs[i]
		key := storage.ObjectKey(o.Bucket, o.Name, o.Version)
		rc, err := t.Storage.Get(ctx, key, 0, -1)
		if errors.Is(err, storage.ErrNotExist) {
			if changed, cerr := rowChanged(ctx, t.DB, *o); cerr != nil {
				return cerr
			} else if changed {
				return fmt.Errorf("%w: %s/%s", errChanged, o.Bucket, o.Name)
			}
			t.log().Warn("storage object has no bytes in the store; recorded as missing", "bucket", o.Bucket, "name", o.Name, "key", key)
			o.Missing, o.Size = true, 0
			continue
		} else if err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
		o.SHA256, o.Size, err = storeObject(work, rc)
		_ = rc.Close()
		if err != nil {
			return fmt.Errorf("copy %s: %w", key, err)
		}
	}
	return nil
}

// rowChanged reports whether o's row is gone or names another version now,
// outside the snapshot.
func rowChanged(ctx context.Context, db *pgxpool.Pool, o Object) (bool, error) {
	var version string
	err := db.QueryRow(ctx, `SELECT coalesce(version, '') FROM storage.objects WHERE bucket_id = $1 AND name = $2`,
		o.Bucket, o.Name).Scan(&version)
	if errors.Is(err, pgx.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("check %s/%s: %w", o.Bucket, o.Name, err)
	}
	return version != o.Version, nil
}

// storeObject writes r into work/objects under its SHA-256. Identical bytes
// are kept once.
func storeObject(work string, r io.Reader) (string, int64, error) {
	tmp, err := os.CreateTemp(work, "object-*")
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	rel, _ := objectPath(sum)
	dst := filepath.Join(work, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", 0, err
	}
	return sum, n, os.Rename(tmp.Name(), dst)
}

// fileInfo checksums work/rel.
func fileInfo(work, rel string) (File, error) {
	sum, n, err := hashFile(filepath.Join(work, filepath.FromSlash(rel)))
	return File{Path: rel, Size: n, SHA256: sum}, err
}

func hashFile(p string) (string, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// archiveKind tells a tar output (and whether it is gzipped) from a directory.
func archiveKind(p string) (archive, gz bool) {
	l := strings.ToLower(p)
	switch {
	case strings.HasSuffix(l, ".tar.gz"), strings.HasSuffix(l, ".tgz"):
		return true, true
	case strings.HasSuffix(l, ".tar"):
		return true, false
	}
	return false, false
}

// checkFreeOutput refuses to overwrite anything: a file, or a directory
// with entries.
func checkFreeOutput(out string, archive bool) error {
	st, err := os.Stat(out)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	if archive || !st.IsDir() {
		return fmt.Errorf("%s already exists; choose another --out", out)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s is not empty; choose another --out", out)
	}
	return nil
}

// clearDir empties dir for another attempt.
func clearDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
