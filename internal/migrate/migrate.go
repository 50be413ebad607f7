// Package migrate applies numbered SQL files to a database, once each.
//
// Files are named VERSION_description.sql and applied in version order, each
// in its own transaction. VERSION_description.down.sql, when present, undoes
// its migration (Down); it is never applied going up. Every applied file is recorded with a SHA-256
// checksum in basalt.schema_migrations; a file whose content changed after it
// was applied is refused. A session-level advisory lock serialises runners, so
// several nodes starting at once apply each file exactly once.
package migrate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// lockKey is the advisory lock id held while migrating ("basalt" in ASCII).
const lockKey int64 = 0x62617361_6c74

// Source is a named set of migration files (for example "platform" or "app").
type Source struct {
	Name string
	FS   fs.FS // files at its root; only *.sql are read
}

// Migration is one file of a Source.
type Migration struct {
	Source   string
	Version  string
	Name     string // file name
	SQL      string
	Checksum string // of the up file only: adding a down file changes nothing applied
	DownName string // VERSION_description.down.sql, "" when there is none
	DownSQL  string
}

// downSuffix marks the file that undoes a migration.
const downSuffix = ".down.sql"

// Status describes one migration against the database.
type Status struct {
	Migration
	AppliedAt *time.Time
	Changed   bool // applied with a different checksum
	Missing   bool // applied, but no file has its version any more
}

// ErrChanged is wrapped by errors about edited, already applied migrations.
var ErrChanged = errors.New("applied migration was changed")

// Load reads and orders a source's migrations, each with its down file.
func Load(src Source) ([]Migration, error) {
	entries, err := fs.ReadDir(src.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("read %s migrations: %w", src.Name, err)
	}
	var out []Migration
	seen := map[string]string{}
	downs := map[string]string{} // version -> down file name
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		down := strings.HasSuffix(e.Name(), downSuffix)
		version, _, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		if !ok || version == "" {
			return nil, fmt.Errorf("%s migration %q: name must be VERSION_description.sql", src.Name, e.Name())
		}
		if down {
			if prev, dup := downs[version]; dup {
				return nil, fmt.Errorf("%s migrations %q and %q share version %s", src.Name, prev, e.Name(), version)
			}
			downs[version] = e.Name()
			continue
		}
		if prev, dup := seen[version]; dup {
			return nil, fmt.Errorf("%s migrations %q and %q share version %s", src.Name, prev, e.Name(), version)
		}
		seen[version] = e.Name()
		b, err := fs.ReadFile(src.FS, path.Join(".", e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", e.Name(), err)
		}
		sum := sha256.Sum256(b)
		out = append(out, Migration{Source: src.Name, Version: version, Name: e.Name(), SQL: string(b), Checksum: hex.EncodeToString(sum[:])})
	}
	for i, m := range out {
		name, ok := downs[m.Version]
		if !ok {
			continue
		}
		if want := strings.TrimSuffix(m.Name, ".sql") + downSuffix; name != want {
			return nil, fmt.Errorf("%s down migration %q must be named %q, after its migration", src.Name, name, want)
		}
		b, err := fs.ReadFile(src.FS, path.Join(".", name))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		out[i].DownName, out[i].DownSQL = name, string(b)
		delete(downs, m.Version)
	}
	for _, name := range downs {
		return nil, fmt.Errorf("%s down migration %q has no migration %q", src.Name, name, strings.TrimSuffix(name, downSuffix)+".sql")
	}
	sort.Slice(out, func(i, j int) bool { return versionLess(out[i].Version, out[j].Version) })
	return out, nil
}

// versionLess orders numerically when both versions are digits, else lexically.
func versionLess(a, b string) bool {
	if len(a) != len(b) && isDigits(a) && isDigits(b) {
		return len(a) < len(b)
	}
	return a < b
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

const ddl = `CREATE SCHEMA IF NOT EXISTS basalt;
CREATE TABLE IF NOT EXISTS basalt.schema_migrations (
  source text NOT NULL,
  version text NOT NULL,
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source, version)
)`

// Up applies every pending migration of the sources, in the order given, and
// returns the ones it applied. log (may be nil) is told about each file.
func Up(ctx context.Context, db *pgxpool.Pool, log func(string), sources ...Source) ([]Migration, error) {
	conn, err := db.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("migrate: acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return nil, fmt.Errorf("migrate: take advisory lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockKey) //nolint:errcheck
	if _, err := conn.Exec(ctx, ddl); err != nil {
		return nil, fmt.Errorf("migrate: create bookkeeping table: %w", err)
	}
	var applied []Migration
	for _, src := range sources {
		migs, err := Load(src)
		if err != nil {
			return applied, err
		}
		done, err := records(ctx, conn, src.Name)
		if err != nil {
			return applied, fmt.Errorf("read applied %s migrations: %w", src.Name, err)
		}
		for _, m := range migs {
			if r, ok := done[m.Version]; ok {
				if sum := r.sum; sum != m.Checksum {
					return applied, fmt.Errorf("%s migration %s was edited after it was applied (checksum %s, recorded %s): "+
						"never change an applied migration, add a new one instead: %w", m.Source, m.Name, short(m.Checksum), short(sum), ErrChanged)
				}
				continue
			}
			if log != nil {
				log(fmt.Sprintf("applying %s migration %s", m.Source, m.Name))
			}
			err := pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, m.SQL); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, `INSERT INTO basalt.schema_migrations (source, version, name, checksum) VALUES ($1, $2, $3, $4)`,
					m.Source, m.Version, m.Name, m.Checksum)
				return err
			})
			if err != nil {
				return applied, fmt.Errorf("apply %s migration %s: %w", m.Source, m.Name, err)
			}
			applied = append(applied, m)
		}
	}
	return applied, nil
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

// StatusOf lists every migration of the sources with whether it is applied,
// and every applied migration whose file is gone.
func StatusOf(ctx context.Context, db *pgxpool.Pool, sources ...Source) ([]Status, error) {
	var exists bool
	if err := db.QueryRow(ctx, `SELECT to_regclass('basalt.schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, fmt.Errorf("migrate status: %w", err)
	}
	var out []Status
	for _, src := range sources {
		migs, err := Load(src)
		if err != nil {
			return nil, err
		}
		done := map[string]record{}
		if exists {
			if done, err = records(ctx, db, src.Name); err != nil {
				return nil, fmt.Errorf("migrate status: %w", err)
			}
		}
		var sts []Status
		for _, m := range migs {
			st := Status{Migration: m}
			if r, ok := done[m.Version]; ok {
				at := r.at
				st.AppliedAt = &at
				st.Changed = r.sum != m.Checksum
				delete(done, m.Version)
			}
			sts = append(sts, st)
		}
		for v, r := range done {
			at := r.at
			sts = append(sts, Status{Migration: Migration{Source: src.Name, Version: v, Name: r.name, Checksum: r.sum},
				AppliedAt: &at, Missing: true})
		}
		sort.SliceStable(sts, func(i, j int) bool { return versionLess(sts[i].Version, sts[j].Version) })
		out = append(out, sts...)
	}
	return out, nil
}

// record is one row of basalt.schema_migrations.
type record struct {
	name, sum string
	at        time.Time
}

func records(ctx context.Context, db interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}, source string) (map[string]record, error) {
	rows, err := db.Query(ctx, `SELECT version, name, checksum, applied_at FROM basalt.schema_migrations WHERE source = $1`, source)
	if err != nil {
		return nil, err
	}
	out := map[string]record{}
	var v string
	var r record
	_, err = pgx.ForEachRow(rows, []any{&v, &r.name, &r.sum, &r.at}, func() error { out[v] = r; return nil })
	return out, err
}

// ErrNoDown is wrapped by Down's error when the migration to undo has no
// down file.
var ErrNoDown = errors.New("no down migration")

// ErrNothingApplied is returned by Down when no migration of the source is
// applied.
var ErrNothingApplied = errors.New("no migration is applied")

// Down undoes the last applied migration of src (the highest applied
// version) with its down file, in one transaction that also removes its
// record, so the next Up applies the file again. The up file may have been
// edited since; that is how a migration under development is redone.
func Down(ctx context.Context, db *pgxpool.Pool, src Source) (Migration, error) {
	migs, err := Load(src)
	if err != nil {
		return Migration{}, err
	}
	conn, err := db.Acquire(ctx)
	if err != nil {
		return Migration{}, fmt.Errorf("migrate: acquire connection: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockKey); err != nil {
		return Migration{}, fmt.Errorf("migrate: take advisory lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockKey) //nolint:errcheck
	if _, err := conn.Exec(ctx, ddl); err != nil {
		return Migration{}, fmt.Errorf("migrate: create bookkeeping table: %w", err)
	}
	done, err := records(ctx, conn, src.Name)
	if err != nil {
		return Migration{}, fmt.Errorf("read applied %s migrations: %w", src.Name, err)
	}
	last := ""
	for v := range done {
		if last == "" || versionLess(last, v) {
			last = v
		}
	}
	if last == "" {
		return Migration{}, fmt.Errorf("%s: %w", src.Name, ErrNothingApplied)
	}
	var m Migration
	for _, x := range migs {
		if x.Version == last {
			m = x
		}
	}
	if m.Name == "" {
		return Migration{}, fmt.Errorf("%s migration %s was applied but its file is gone, so it cannot be undone: %w",
			src.Name, done[last].name, ErrNoDown)
	}
	if m.DownName == "" {
		return m, fmt.Errorf("%s migration %s has no down file (%s): %w",
			src.Name, m.Name, strings.TrimSuffix(m.Name, ".sql")+downSuffix, ErrNoDown)
	}
	err = pgx.BeginFunc(ctx, conn.Conn(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, m.DownSQL); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM basalt.schema_migrations WHERE source = $1 AND version = $2`, src.Name, m.Version)
		return err
	})
	if err != nil {
		return m, fmt.Errorf("undo %s migration %s with %s: %w", src.Name, m.Name, m.DownName, err)
	}
	return m, nil
}

// NewFileName returns the file name `basalt migrate new NAME` creates: a UTC
// timestamp version, as Supabase CLI migrations use, and a snake_case name.
func NewFileName(now time.Time, name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			if s := b.String(); s != "" && !strings.HasSuffix(s, "_") {
				b.WriteByte('_')
			}
		}
	}
	return now.UTC().Format("20060102150405") + "_" + strings.Trim(b.String(), "_") + ".sql"
}
